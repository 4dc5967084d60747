// Loads <HERMES_HOME>/.env into the process env. Values override the shell's, as Hermes does, so a key
// rotated in .env wins over a stale exported one. Values are never logged or returned.
import { readFileSync } from "node:fs";
import type { EnvLike } from "./paths.ts";

export type DotEnvResult = {
  loaded: boolean;
  /** Names of the variables set from the file (never their values). */
  keys: string[];
  /** Set when the file exists but could not be read (permissions, a directory, …). */
  error?: string;
};

function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}

export function loadDotEnv(path: string, env: EnvLike = process.env): DotEnvResult {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") return { loaded: false, keys: [] };
    return { loaded: false, keys: [], error: `Could not read ${path}: ${code ?? String(error)}` };
  }
  // Loaded on use: the serve path answers `initialize` without reading .env at all.
  const { parse } = require("dotenv") as typeof import("dotenv");
  const parsed = parse(text);
  const keys = Object.keys(parsed);
  for (const key of keys) env[key] = parsed[key];
  return { loaded: true, keys };
}
