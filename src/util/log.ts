import type { ConsolaInstance, ConsolaReporter, LogObject } from "consola";
import { redact } from "./redact.ts";

const LEVELS: Record<string, number> = { silent: -999, error: 0, warn: 1, info: 3, debug: 4, trace: 5 };

/** Writes one line per log object to stderr, secrets masked. Stdout belongs to JSON-RPC. */
const stderrReporter: ConsolaReporter = {
  log(obj: LogObject) {
    const text = obj.args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === "string" ? a : safeJson(a))).join(" ");
    process.stderr.write(`${new Date(obj.date).toISOString()} [${obj.type}] ${obj.tag ? `${obj.tag}: ` : ""}${redact(text)}\n`);
  },
};

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

let instance: ConsolaInstance | undefined;

/**
 * The one consola instance, both streams on stderr (consola's default would send info to stdout).
 * Created on the first log call: importing consola costs ~4 ms, and `initialize` is answered before.
 */
function consola(): ConsolaInstance {
  if (!instance) {
    // A synchronous load keeps `log.warn(...)` a plain call everywhere.
    const { createConsola } = require("consola") as typeof import("consola");
    instance = createConsola({
      level: LEVELS[process.env.HERMES_ACP_LOG_LEVEL ?? "info"] ?? 3,
      stdout: process.stderr,
      stderr: process.stderr,
      reporters: [stderrReporter],
    });
  }
  return instance;
}

type LogFn = (message: unknown, ...rest: unknown[]) => void;

export const log: { error: LogFn; warn: LogFn; info: LogFn; debug: LogFn } = {
  error: (message, ...rest) => consola().error(message, ...rest),
  warn: (message, ...rest) => consola().warn(message, ...rest),
  info: (message, ...rest) => consola().info(message, ...rest),
  debug: (message, ...rest) => consola().debug(message, ...rest),
};
