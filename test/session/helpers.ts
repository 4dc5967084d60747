// Temp state.db locations for the session store tests (never the real ~/.hermes, never the shared fixture itself).
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FIXTURE_CANDIDATES = [
  join(import.meta.dir, "..", "fixtures", "hermes-v16-state.db"),
  "/work/shared/fixtures/hermes-v16-state.db",
];
export const FIXTURE_PATH = FIXTURE_CANDIDATES.find((p) => existsSync(p)) ?? FIXTURE_CANDIDATES[1]!;

/** Fixture ids (a real DB written by Hermes' SessionDB). */
export const FX = {
  cli1: "20260622_101500_c11a01",
  cli2: "20260622_113000_c12b02",
  acp: "3f6d2a8e-5b7c-4e1a-9c2d-0a1b2c3d4e5f",
  chainRoot: "7c9e1b40-2d3f-4a5b-8c6d-e7f8a9b0c1d2",
  chainTip: "20260622_120500_cc0d01",
} as const;

const dirs: string[] = [];

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hermes-store-"));
  dirs.push(dir);
  return dir;
}

/** A fresh path for a state.db that does not exist yet. */
export function freshDbPath(): string {
  return join(tempDir(), "hermes", "state.db");
}

/** The fixture copied into a temp HERMES_HOME as state.db. */
export function fixtureCopy(): string {
  const path = join(tempDir(), "state.db");
  copyFileSync(FIXTURE_PATH, path);
  return path;
}

export function cleanupTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
