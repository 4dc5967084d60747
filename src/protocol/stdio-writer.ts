/**
 * The only writer of stdout in serve mode: JSON-RPC frames, in order. Frames written in one turn of the
 * event loop go out as one write (a replay of thousands of updates costs one syscall, not thousands).
 */
export function batchedStdout(write: (bytes: Uint8Array) => void = (b) => void process.stdout.write(b)) {
  let pending: Uint8Array[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    write(bytes);
  };
  return {
    write(bytes: Uint8Array) {
      pending.push(bytes);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    /** Writes whatever is pending now (before exiting). */
    flush,
  };
}
