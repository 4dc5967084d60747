/**
 * The only writer of stdout in serve mode: JSON-RPC frames, in order. Frames written in one turn of the
 * event loop go out as one write (a replay of thousands of updates costs one syscall, not thousands).
 */
export function batchedStdout(write: (bytes: Uint8Array) => void = (b) => void process.stdout.write(b)) {
  let pending: Uint8Array[] = [];
  let scheduled = false;
  let afterFlush: (() => void)[] = [];
  const flush = () => {
    scheduled = false;
    if (pending.length > 0) {
      const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
      pending = [];
      write(bytes);
    }
    const then = afterFlush;
    afterFlush = [];
    for (const fn of then) fn();
  };
  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return {
    write(bytes: Uint8Array) {
      pending.push(bytes);
      schedule();
    },
    /**
     * Runs `fn` once what is written so far has gone out: work that follows a response (the session's
     * command list, usage) must not delay the response itself.
     */
    afterFlush(fn: () => void) {
      afterFlush.push(fn);
      schedule();
    },
    /** Writes whatever is pending now (before exiting). */
    flush,
  };
}
