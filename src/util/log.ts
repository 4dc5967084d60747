// The one logger: a line per call on stderr (stdout belongs to JSON-RPC), secrets masked, filtered by
// HERMES_ACP_LOG_LEVEL. Hand-written rather than consola: consola cost ~2.6 ms to load on the
// session/new critical path, and all it did for us was this level check (the line format was ours).
import { redact } from "./redact.ts";

const LEVELS: Record<string, number> = { silent: -999, error: 0, warn: 1, info: 3, debug: 4, trace: 5 };

type Level = "error" | "warn" | "info" | "debug";
type LogFn = (message: unknown, ...rest: unknown[]) => void;

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

function format(args: unknown[]): string {
  return args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === "string" ? a : safeJson(a))).join(" ");
}

/** Read per call, so tests (and a changed environment) take effect without reloading the module. */
function threshold(): number {
  return LEVELS[process.env.HERMES_ACP_LOG_LEVEL ?? "info"] ?? LEVELS.info!;
}

function logAt(level: Level): LogFn {
  const rank = LEVELS[level]!;
  return (...args) => {
    if (rank > threshold()) return;
    process.stderr.write(`${new Date().toISOString()} [${level}] ${redact(format(args))}\n`);
  };
}

export const log: Record<Level, LogFn> = {
  error: logAt("error"),
  warn: logAt("warn"),
  info: logAt("info"),
  debug: logAt("debug"),
};
