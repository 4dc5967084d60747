/** The longest a frame waits for its batch: a busy turn must not hold text the editor could already show. */
const MAX_HOLD_MS = 8;

/**
 * The only writer of stdout in serve mode: JSON-RPC frames, in order. A frame after a quiet spell goes out
 * at once; the frames that follow it in the same turn of the event loop are batched into one write (a replay
 * of thousands of updates costs a few syscalls, not thousands), held at most MAX_HOLD_MS. Both bounds matter
 * when a stream is parsed from bytes that are already buffered: that runs as one long chain of microtasks, and
 * a flush scheduled behind it would hold the first and the last text until the whole response was processed.
 */
export function batchedStdout(write: (bytes: Uint8Array) => void = (b) => void process.stdout.write(b)) {
  let pending: Uint8Array[] = [];
  let scheduled = false;
  let batchOpened = 0;
  let afterFlush: (() => void)[] = [];
  const writePending = () => {
    if (pending.length === 0) return;
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    write(bytes);
  };
  /** End of the turn: what is pending goes out, then the work waiting for it runs. */
  const flush = () => {
    scheduled = false;
    writePending();
    const then = afterFlush;
    afterFlush = [];
    for (const fn of then) fn();
  };
  const openBatch = () => {
    scheduled = true;
    batchOpened = performance.now();
    setImmediate(flush);
  };
  return {
    write(bytes: Uint8Array) {
      pending.push(bytes);
      if (!scheduled) {
        writePending();
        openBatch();
      } else if (performance.now() - batchOpened >= MAX_HOLD_MS) {
        writePending();
        batchOpened = performance.now();
      }
    },
    /**
     * Runs `fn` once what is written so far has gone out: work that follows a response (the session's
     * command list, usage) must not delay the response itself.
     */
    afterFlush(fn: () => void) {
      afterFlush.push(fn);
      if (!scheduled) openBatch();
    },
    /** Writes whatever is pending now (before exiting). */
    flush,
  };
}
