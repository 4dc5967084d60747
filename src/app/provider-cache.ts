// Remembers the detected provider between runs so `initialize` can name it without loading the
// config schema (~10 ms). The cache is keyed by everything detection reads — the sizes and mtimes of
// .env and config.yaml and a SHA-256 of the provider-related environment — so it can never be stale;
// on a miss the caller computes the answer and stores it. No secret is stored, only the digest.
import { readFileSync, writeFileSync, renameSync } from "node:fs";
import { fileStamp } from "../util/file-stamp.ts";
import { join } from "node:path";
import type { HermesPaths } from "../config/paths.ts";

const RELEVANT_ENV = /(_API_KEY|_TOKEN|_BASE_URL)$|^HERMES_INFERENCE_PROVIDER$|^HERMES_HOME$/;

/** The key for the current inputs of provider detection. */
export function detectionKey(paths: HermesPaths, env: Record<string, string | undefined>): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(`${fileStamp(paths.env)}|${fileStamp(paths.config)}`);
  for (const name of Object.keys(env).filter((k) => RELEVANT_ENV.test(k)).sort()) hasher.update(`|${name}=${env[name] ?? ""}`);
  return hasher.digest("hex");
}

function cachePath(paths: HermesPaths): string {
  return join(paths.home, ".acp-provider-cache.json");
}

/** The cached provider (null = "none detected") for this key, or undefined on a miss. */
export function readCachedProvider(paths: HermesPaths, key: string): string | null | undefined {
  try {
    const data: unknown = JSON.parse(readFileSync(cachePath(paths), "utf8"));
    if (data && typeof data === "object" && "key" in data && "provider" in data && data.key === key) {
      const provider = data.provider;
      return typeof provider === "string" || provider === null ? provider : undefined;
    }
  } catch {
    // Missing or unreadable: a miss.
  }
  return undefined;
}

export function writeCachedProvider(paths: HermesPaths, key: string, provider: string | null): void {
  try {
    const path = cachePath(paths);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ key, provider }), { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    // A cache that cannot be written only costs time next start.
  }
}
