import { homedir } from "node:os";
import { posix } from "node:path";
import { readFileSync } from "node:fs";

let wslCache: boolean | undefined;

/** True when this process runs inside WSL, where Windows clients send `C:\…` paths. */
export function isWsl(): boolean {
  if (wslCache === undefined) {
    try {
      wslCache = process.platform === "linux" && /microsoft/i.test(readFileSync("/proc/version", "utf8"));
    } catch {
      wslCache = false;
    }
  }
  return wslCache;
}

const DRIVE_PATH = /^([A-Za-z]):[\\/](.*)$/;

function driveToMnt(path: string): string | null {
  const m = DRIVE_PATH.exec(path);
  if (!m) return null;
  return `/mnt/${m[1]!.toLowerCase()}/${m[2]!.replace(/\\/g, "/")}`;
}

/** The session cwd as this process must use it (hermes-behaviour §9.1): drive paths become /mnt/x/… only under WSL. */
export function translateCwd(cwd: string, wsl = isWsl()): string {
  if (!wsl) return cwd;
  return driveToMnt(cwd) ?? cwd;
}

/** Normalises a cwd for comparing in session/list filters (§9.3): drive paths always map to /mnt/x. */
export function normalizeCwdForMatch(cwd: string | null | undefined, home = homedir()): string {
  if (!cwd) return ".";
  let p = cwd.trim();
  if (p === "~" || p.startsWith("~/")) p = home + p.slice(1);
  p = driveToMnt(p) ?? p;
  p = p.replace(/^\/mnt\/([A-Za-z])(\/|$)/, (_m, d: string, rest: string) => `/mnt/${d.toLowerCase()}${rest}`);
  p = p.replace(/\\/g, "/");
  const n = posix.normalize(p);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
}

/** A `file:` URI (or bare path) as a local path, or null when it is not a local file (§9.4). */
export function pathFromFileUri(uri: string): string | null {
  if (!uri) return null;
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(uri);
  let path: string;
  if (schemeMatch && !DRIVE_PATH.test(uri)) {
    if (schemeMatch[1]!.toLowerCase() !== "file") return null;
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return null;
    }
    if (url.hostname !== "" && url.hostname !== "localhost") return null;
    path = decodeURIComponent(url.pathname);
  } else {
    try {
      path = decodeURIComponent(uri);
    } catch {
      path = uri;
    }
  }
  // file:///C:/x arrives as /C:/x; Windows paths map to /mnt/<drive> (unconditional, as in Hermes).
  if (/^\/[A-Za-z]:[\\/]/.test(path)) path = path.slice(1);
  if (process.platform === "win32") return path;
  return driveToMnt(path) ?? path;
}
