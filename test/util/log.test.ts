import { afterEach, describe, expect, test } from "bun:test";
import { log } from "../../src/util/log.ts";

/** What the logger writes to stderr while `fn` runs. */
function captureStderr(fn: () => void): string[] {
  const lines: string[] = [];
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    fn();
  } finally {
    process.stderr.write = original;
  }
  return lines;
}

const savedLevel = process.env.HERMES_ACP_LOG_LEVEL;
afterEach(() => {
  process.env.HERMES_ACP_LOG_LEVEL = savedLevel;
});

describe("log", () => {
  test("one timestamped line per call, at or above HERMES_ACP_LOG_LEVEL only", () => {
    process.env.HERMES_ACP_LOG_LEVEL = "warn";
    const lines = captureStderr(() => {
      log.debug("debug line");
      log.info("info line");
      log.warn("warn line");
      log.error("error line");
    });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z \[warn\] warn line\n$/);
    expect(lines[1]).toMatch(/\[error\] error line\n$/);
    process.env.HERMES_ACP_LOG_LEVEL = "silent";
    expect(captureStderr(() => log.error("nothing"))).toEqual([]);
    process.env.HERMES_ACP_LOG_LEVEL = "debug";
    expect(captureStderr(() => log.debug("shown"))).toHaveLength(1);
  });

  test("an unknown level means info; errors print their stack; objects print as JSON; secrets are masked", () => {
    process.env.HERMES_ACP_LOG_LEVEL = "loud";
    const lines = captureStderr(() => {
      log.debug("hidden");
      log.info("request failed", new Error("boom"), { status: 500 }, "key sk-or-v1-abcdefghijklmnop1234");
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("[info] request failed Error: boom\n    at ");
    expect(lines[0]).toContain('{"status":500}');
    expect(lines[0]).toContain("key ***");
    expect(lines[0]).not.toContain("abcdefghijklmnop1234");
  });
});
