// Startup timing marks for profiling the compiled binary: `HERMES_ACP_TRACE=1 hermes-acp` writes
// "trace <ms since process start> <label>" lines to stderr. Off by default; a no-op call costs nothing.
const enabled = process.env.HERMES_ACP_TRACE === "1";

export function trace(label: string): void {
  if (enabled) process.stderr.write(`trace ${performance.now().toFixed(1)} ${(performance.timeOrigin + performance.now()).toFixed(2)} ${label}\n`);
}
