// The compiled binary starts with JavaScriptCore's JIT made reluctant (scripts/build.ts: startup is run-once
// code not worth compiling), and zod's own JIT off (protocol/agent.ts: at startup each schema parses once or
// twice). Once the agent is interactive, hot paths (streaming, a replay decoding thousands of rows) need both.
import { config } from "zod/mini";

let restored = false;

/** Restores the normal JIT policies; idempotent, and harmless where they were never changed. */
export function restoreJit(): void {
  if (restored) return;
  restored = true;
  Bun.unsafe.setJITPolicy(1);
  // Schemas built from now on (most are built on first use) compile their object parsers.
  config({ jitless: false });
}
