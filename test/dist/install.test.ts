// Runs the real install.sh with `sh` against a loopback release server that serves a real archive of the host
// binary (dist/hermes-acp, built once if missing) and its SHA256SUMS.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { archiveName, packBinary, sha256Hex, sha256sums } from "../../scripts/build-all.ts";

const root = join(import.meta.dir, "../..");
// Each install moves ~100 MB through loopback, sha256 and tar: generous limits for loaded 2-core CI machines.
const SLOW = 60_000;
const script = join(root, "install.sh");
const UNIX_NAMES = (["linux", "darwin"] as const).flatMap((os) =>
  (["x64", "arm64"] as const).flatMap((arch) => ["", "baseline", "musl"].map((variant) => archiveName({ os, arch, ...(variant ? { variant } : {}) }))),
);

type Release = { archive: Uint8Array; sums: string; failAssets: boolean };
const release: Release = { archive: new Uint8Array(), sums: "", failAssets: false };
const requests: { path: string; agent: string }[] = [];
let server: ReturnType<typeof Bun.serve>;
let goodSums = "";
let hostVersion = "";
let work = "";

async function hostBinary(): Promise<string> {
  const built = join(root, "dist/hermes-acp");
  if (existsSync(built)) return built;
  const { buildHost } = await import("../../scripts/build.ts");
  return buildHost();
}

describe.skipIf(process.platform === "win32")("install.sh", () => {
  beforeAll(async () => {
    const binary = await hostBinary();
    hostVersion = Bun.spawnSync([binary, "--version"]).stdout.toString().trim();
    release.archive = packBinary({ os: "linux" }, new Uint8Array(readFileSync(binary)), 1);
    const sha = sha256Hex(release.archive);
    goodSums = sha256sums(UNIX_NAMES.map((name) => ({ name, sha256: sha })));
    work = mkdtempSync(join(tmpdir(), "hermes-install-"));
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const path = new URL(req.url).pathname;
        requests.push({ path, agent: req.headers.get("user-agent") ?? "" });
        const match = /^\/releases\/(?:latest\/download|download\/v[^/]+)\/([^/]+)$/.exec(path);
        const name = match?.[1];
        if (name === "SHA256SUMS") return new Response(release.sums);
        if (name && UNIX_NAMES.includes(name) && !release.failAssets) return new Response(release.archive);
        return new Response("not found", { status: 404 });
      },
    });
  }, 180_000);

  afterAll(() => server?.stop(true));

  // Async spawn: a spawnSync would block the event loop that serves the downloads.
  async function run(args: string[] = [], env: Record<string, string> = {}, opts: { sums?: string; failAssets?: boolean } = {}) {
    release.sums = opts.sums ?? goodSums;
    release.failAssets = opts.failAssets ?? false;
    requests.length = 0;
    const home = mkdtempSync(join(work, "home-"));
    const installDir = env.HERMES_ACP_INSTALL_DIR ?? join(home, "bin");
    const proc = Bun.spawn(["sh", script, ...args], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        HERMES_ACP_INSTALL_DIR: installDir,
        HERMES_ACP_DOWNLOAD_BASE: `http://127.0.0.1:${server.port}/releases`,
        ...env,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, out, err, installDir, dest: join(installDir, "hermes-acp") };
  }

  test("installs the latest release for this platform and prints the next steps", async () => {
    const r = await run();
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(Bun.spawnSync([r.dest, "--version"]).stdout.toString().trim()).toBe(hostVersion);
    expect(statSync(r.dest).mode & 0o111).toBe(0o111);
    const asset = requests.find((q) => q.path.endsWith(".tar.gz"))?.path ?? "";
    const os = process.platform === "darwin" ? "darwin" : "linux";
    const arch = process.arch === "arm64" ? "arm64" : "x64";
    expect(asset).toMatch(new RegExp(`^/releases/latest/download/hermes-acp-${os}-${arch}(-baseline|-musl)?\\.tar\\.gz$`));
    expect(requests.map((q) => q.path)).toContain("/releases/latest/download/SHA256SUMS");
    expect(r.out).toContain(`Installed hermes-acp ${hostVersion} to ${r.dest}`);
    expect(r.out).toContain(`export PATH="${r.installDir}:$PATH"`);
    expect(r.out).toContain(`${r.dest} --setup`);
    expect(r.out).toContain(`"agent_servers": {"Hermes": {"type": "custom", "command": "${r.dest}", "args": []}}`);
  }, SLOW);

  test("re-installing a pinned version replaces the binary atomically and leaves nothing behind", async () => {
    const first = await run();
    expect(first.code).toBe(0);
    const firstInode = statSync(first.dest).ino;
    const second = await run(["--version", "v9.9.9"], {
      HERMES_ACP_INSTALL_DIR: first.installDir,
      PATH: `${first.installDir}${delimiter}${process.env.PATH ?? "/usr/bin:/bin"}`,
    });
    expect(second.code).toBe(0);
    expect(requests.some((q) => q.path.startsWith("/releases/download/v9.9.9/hermes-acp-"))).toBe(true);
    expect(readdirSync(first.installDir)).toEqual(["hermes-acp"]);
    expect(statSync(first.dest).ino).not.toBe(firstInode); // renamed into place, not rewritten
    expect(Bun.spawnSync([first.dest, "--version"]).stdout.toString().trim()).toBe(hostVersion);
    expect(second.out).not.toContain("is not on your PATH");
  }, SLOW);

  test("refuses a checksum mismatch and keeps the installed binary", async () => {
    const home = mkdtempSync(join(work, "keep-"));
    const installDir = join(home, "bin");
    mkdirSync(installDir);
    writeFileSync(join(installDir, "hermes-acp"), "old binary");
    const wrong = goodSums.replace(/^[0-9a-f]{64}/gm, "0".repeat(64));
    const r = await run([], { HERMES_ACP_INSTALL_DIR: installDir }, { sums: wrong });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("checksum mismatch");
    expect(r.err).toContain("refusing to install");
    expect(readFileSync(join(installDir, "hermes-acp"), "utf8")).toBe("old binary");
    expect(readdirSync(installDir)).toEqual(["hermes-acp"]);
  }, SLOW);

  test("refuses when SHA256SUMS has no entry for the archive", async () => {
    const r = await run([], {}, { sums: `${"a".repeat(64)}  something-else.tar.gz\n` });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("no entry for hermes-acp-");
    expect(existsSync(r.installDir)).toBe(false);
  }, SLOW);

  test.each([
    ["Plan9", { HERMES_ACP_OS: "Plan9" }, "unsupported operating system: Plan9"],
    ["riscv64", { HERMES_ACP_ARCH: "riscv64" }, "unsupported CPU architecture: riscv64"],
    ["Windows", { HERMES_ACP_OS: "MINGW64_NT-10.0" }, "on Windows, download hermes-acp-windows-x64.zip"],
  ])("unsupported platform (%s) fails before downloading", async (_label, env, message) => {
    const r = await run([], env);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(message);
    expect(requests).toEqual([]);
    expect(existsSync(r.installDir)).toBe(false);
  }, SLOW);

  test.each([
    ["Linux aarch64", { HERMES_ACP_OS: "Linux", HERMES_ACP_ARCH: "aarch64", HERMES_ACP_VARIANT: "" }, "hermes-acp-linux-arm64.tar.gz"],
    ["Darwin arm64", { HERMES_ACP_OS: "Darwin", HERMES_ACP_ARCH: "arm64" }, "hermes-acp-darwin-arm64.tar.gz"],
    ["Linux amd64 musl", { HERMES_ACP_OS: "Linux", HERMES_ACP_ARCH: "amd64", HERMES_ACP_VARIANT: "musl" }, "hermes-acp-linux-x64-musl.tar.gz"],
  ])("%s downloads %s", async (_label, env, asset) => {
    const r = await run([], env, { failAssets: true });
    expect(r.code).not.toBe(0);
    expect(requests[0]?.path).toBe(`/releases/latest/download/${asset}`);
    expect(r.err).toContain("download failed");
  }, SLOW);

  test("a linux x64 CPU without AVX2 gets the baseline build", async () => {
    const cpuinfo = join(work, "cpuinfo-no-avx2");
    writeFileSync(cpuinfo, "processor\t: 0\nflags\t\t: fpu sse sse2 ssse3 sse4_1 sse4_2 avx\n");
    const glibc = !existsSync("/lib") || !readdirSync("/lib").some((f) => f.startsWith("ld-musl-"));
    const r = await run([], { HERMES_ACP_OS: "Linux", HERMES_ACP_ARCH: "x86_64", HERMES_ACP_CPUINFO: cpuinfo }, { failAssets: true });
    expect(r.code).not.toBe(0);
    expect(requests[0]?.path).toBe(`/releases/latest/download/hermes-acp-linux-x64-${glibc ? "baseline" : "musl"}.tar.gz`);
  }, SLOW);

  const wget = Bun.which("wget");
  test.skipIf(!wget)("falls back to wget when curl is missing", async () => {
    const bin = toolDir(["wget"]);
    const r = await run([], { PATH: bin });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(requests.every((q) => q.agent.toLowerCase().includes("wget"))).toBe(true);
    expect(Bun.spawnSync([r.dest, "--version"]).stdout.toString().trim()).toBe(hostVersion);
  }, SLOW);

  test("says so when neither curl nor wget exists", async () => {
    const r = await run([], { PATH: toolDir([]) });
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("neither curl nor wget");
  }, SLOW);

  /** A PATH holding only the tools install.sh needs (plus `extra`), never curl. */
  function toolDir(extra: string[]): string {
    const dir = mkdtempSync(join(work, "path-"));
    const tools = ["sh", "uname", "mktemp", "rm", "mkdir", "tar", "gzip", "sha256sum", "shasum", "grep", "chmod", "mv", "cp", "cat", "ldd", "sysctl"];
    for (const tool of [...tools, ...extra]) {
      const found = Bun.which(tool);
      if (found) symlinkSync(found, join(dir, tool));
    }
    return dir;
  }
});
