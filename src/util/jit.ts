// The compiled binary starts with JavaScriptCore's JIT made reluctant (scripts/build.ts: startup is run-once
// code not worth compiling). Once the agent is interactive, hot paths (streaming, replay) need the JIT back.
let restored = false;

/** Restores the normal JIT policy; idempotent, and harmless where the policy was never raised. */
export function restoreJit(): void {
  if (restored) return;
  restored = true;
  Bun.unsafe.setJITPolicy(1);
}
