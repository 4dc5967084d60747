#!/bin/sh
# Installs the hermes-acp binary from GitHub Releases.
#
#   curl -fsSL https://raw.githubusercontent.com/hermes-org/hermes-acp/main/install.sh | sh
#   curl -fsSL .../install.sh | sh -s -- --version 0.1.0
#
# Environment:
#   HERMES_ACP_INSTALL_DIR   where to put the binary (default: $HOME/.local/bin)
#   HERMES_ACP_DOWNLOAD_BASE releases URL (default: https://github.com/hermes-org/hermes-acp/releases)
#   HERMES_ACP_OS, HERMES_ACP_ARCH, HERMES_ACP_VARIANT, HERMES_ACP_CPUINFO
#                            override platform detection (testing, or to force e.g. the baseline build)
set -eu

BASE="${HERMES_ACP_DOWNLOAD_BASE:-https://github.com/hermes-org/hermes-acp/releases}"
INSTALL_DIR="${HERMES_ACP_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}"
VERSION=""

say() { printf '%s\n' "$*"; }
die() {
  printf 'hermes-acp install: %s\n' "$*" >&2
  exit 1
}

usage() {
  say "Usage: install.sh [--version X.Y.Z]"
  say "Installs hermes-acp into \$HERMES_ACP_INSTALL_DIR (default \$HOME/.local/bin)."
}

while [ $# -gt 0 ]; do
  case "$1" in
    --version)
      [ $# -ge 2 ] || die "--version needs a value, e.g. --version 0.1.0"
      VERSION="$2"
      shift 2
      ;;
    --version=*)
      VERSION="${1#--version=}"
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) die "unknown option: $1 (see --help)" ;;
  esac
done

VERSION="${VERSION#v}"
case "$VERSION" in
  *[!0-9A-Za-z.+-]*) die "not a version: $VERSION" ;;
esac

# ---- platform ---------------------------------------------------------------------------------------------

detect_os() {
  case "${HERMES_ACP_OS:-$(uname -s)}" in
    Linux | linux) echo linux ;;
    Darwin | darwin) echo darwin ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT | windows)
      die "on Windows, download hermes-acp-windows-x64.zip from $BASE/latest and put hermes-acp.exe on your PATH."
      ;;
    *) die "unsupported operating system: ${HERMES_ACP_OS:-$(uname -s)} (release builds exist for Linux, macOS and Windows)." ;;
  esac
}

detect_arch() {
  case "${HERMES_ACP_ARCH:-$(uname -m)}" in
    x86_64 | amd64 | x64) echo x64 ;;
    aarch64 | arm64 | armv8*) echo arm64 ;;
    *) die "unsupported CPU architecture: ${HERMES_ACP_ARCH:-$(uname -m)} (release builds exist for x64 and arm64)." ;;
  esac
}

is_musl() {
  for f in /lib/ld-musl-*; do
    [ -e "$f" ] && return 0
  done
  ldd --version 2>&1 | grep -qi musl
}

OS=$(detect_os)
ARCH=$(detect_arch)

# An x64 shell under Rosetta 2 reports x86_64; the native arm64 build is faster.
if [ "$OS" = darwin ] && [ "$ARCH" = x64 ] && [ -z "${HERMES_ACP_ARCH:-}" ]; then
  if [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
    ARCH=arm64
  fi
fi

if [ -n "${HERMES_ACP_VARIANT+set}" ]; then
  VARIANT="$HERMES_ACP_VARIANT"
elif [ "$OS" = linux ] && is_musl; then
  VARIANT=musl
elif [ "$OS" = linux ] && [ "$ARCH" = x64 ]; then
  # The default x64 build needs AVX2 (Haswell and later); older CPUs and some VMs get the baseline build.
  CPUINFO="${HERMES_ACP_CPUINFO:-/proc/cpuinfo}"
  if [ -r "$CPUINFO" ] && ! grep -qw avx2 "$CPUINFO"; then
    VARIANT=baseline
  else
    VARIANT=""
  fi
else
  VARIANT=""
fi

ASSET="hermes-acp-$OS-$ARCH${VARIANT:+-$VARIANT}.tar.gz"
if [ -n "$VERSION" ]; then
  URL_BASE="$BASE/download/v$VERSION"
else
  URL_BASE="$BASE/latest/download"
fi

# ---- download and verify ----------------------------------------------------------------------------------

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    die "neither curl nor wget is installed; install one of them and run this again."
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sum=$(sha256sum "$1")
  elif command -v shasum >/dev/null 2>&1; then
    sum=$(shasum -a 256 "$1")
  elif command -v openssl >/dev/null 2>&1; then
    sum=$(openssl dgst -sha256 -r "$1")
  else
    die "no sha256sum, shasum or openssl found: cannot verify the download."
  fi
  printf '%s\n' "${sum%% *}"
}

TMP=$(mktemp -d 2>/dev/null || mktemp -d -t hermes-acp)
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

say "Downloading $ASSET${VERSION:+ (v$VERSION)}..."
download "$URL_BASE/$ASSET" "$TMP/$ASSET" || die "download failed: $URL_BASE/$ASSET${VERSION:+ (is v$VERSION a released version?)}"
download "$URL_BASE/SHA256SUMS" "$TMP/SHA256SUMS" || die "download failed: $URL_BASE/SHA256SUMS"

EXPECTED=""
while read -r sum name; do
  if [ "${name#\*}" = "$ASSET" ]; then EXPECTED="$sum"; fi
done <"$TMP/SHA256SUMS"
[ -n "$EXPECTED" ] || die "SHA256SUMS has no entry for $ASSET; refusing to install."
ACTUAL=$(sha256_of "$TMP/$ASSET")
if [ "$ACTUAL" != "$EXPECTED" ]; then
  die "checksum mismatch for $ASSET (expected $EXPECTED, got $ACTUAL); refusing to install. Try again, or report it if it persists."
fi

mkdir "$TMP/x"
tar -xzf "$TMP/$ASSET" -C "$TMP/x" || die "could not unpack $ASSET."
[ -f "$TMP/x/hermes-acp" ] || die "$ASSET does not contain hermes-acp."
chmod 755 "$TMP/x/hermes-acp"
NEW_VERSION=$("$TMP/x/hermes-acp" --version 2>/dev/null) || die "the downloaded binary does not run on this machine ($OS-$ARCH${VARIANT:+-$VARIANT}); nothing was installed."

# ---- install (atomic: a running copy keeps its inode; a failed copy never replaces a good one) -------------

mkdir -p "$INSTALL_DIR" || die "cannot create $INSTALL_DIR"
DEST="$INSTALL_DIR/hermes-acp"
STAGED="$INSTALL_DIR/.hermes-acp.$$.tmp"
cp "$TMP/x/hermes-acp" "$STAGED" || die "cannot write to $INSTALL_DIR"
chmod 755 "$STAGED"
mv -f "$STAGED" "$DEST" || {
  rm -f "$STAGED"
  die "cannot replace $DEST"
}

say "Installed hermes-acp $NEW_VERSION to $DEST"

case ":${PATH:-}:" in
  *":$INSTALL_DIR:"*) ;;
  *)
    case "${SHELL:-}" in
      */zsh) RC="$HOME/.zshrc" ;;
      */bash) RC="$HOME/.bashrc" ;;
      */fish) RC="$HOME/.config/fish/config.fish" ;;
      *) RC="your shell's startup file" ;;
    esac
    say ""
    say "$INSTALL_DIR is not on your PATH. Add this line to $RC:"
    case "$RC" in
      */config.fish) say "  fish_add_path \"$INSTALL_DIR\"" ;;
      *) say "  export PATH=\"$INSTALL_DIR:\$PATH\"" ;;
    esac
    ;;
esac

say ""
say "Next steps:"
say "  1. Choose a model provider:  $DEST --setup"
say "  2. Add Hermes to Zed (~/.config/zed/settings.json):"
say "       \"agent_servers\": {\"Hermes\": {\"type\": \"custom\", \"command\": \"$DEST\", \"args\": []}}"
say "     or to JetBrains (~/.jetbrains/acp.json):"
say "       {\"agent_servers\": {\"Hermes\": {\"command\": \"$DEST\", \"args\": []}}}"
