import type { StopReason } from "../agent/stop-reason.ts";

/**
 * One session's prompts, one at a time and in order. Cancel ends the running turn and everything
 * queued behind it (the original kept draining the queue); a closed queue takes no more work.
 */
export class TurnQueue {
  private chain: Promise<unknown> = Promise.resolve();
  private epoch = 0;
  private current: AbortController | null = null;
  private waiting = 0;
  private closed = false;
  /** Guidance sent with /steer, taken by the running turn before its next model call. */
  private steering: string[] = [];

  constructor(private readonly onClosed: () => Error) {}

  get running(): boolean {
    return this.current !== null;
  }

  /** Prompts waiting behind the running turn. */
  get queued(): number {
    return this.waiting;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `run` after everything queued before it; resolves with its stop reason (cancelled if cancel came first). */
  enqueue(run: (signal: AbortSignal) => Promise<StopReason>): Promise<StopReason> {
    if (this.closed) return Promise.reject(this.onClosed());
    const epoch = this.epoch;
    this.waiting++;
    const result = this.chain.then(async () => {
      this.waiting--;
      if (epoch !== this.epoch || this.closed) return "cancelled" as const;
      const controller = new AbortController();
      this.current = controller;
      try {
        return await run(controller.signal);
      } finally {
        if (this.current === controller) this.current = null;
      }
    });
    this.chain = result.catch(() => undefined);
    return result;
  }

  cancel(): void {
    this.epoch++;
    this.steering = [];
    this.current?.abort();
  }

  close(): void {
    this.closed = true;
    this.cancel();
  }

  /** Queues guidance for the running turn; false when nothing runs. */
  steer(text: string): boolean {
    if (!this.current) return false;
    this.steering.push(text);
    return true;
  }

  takeSteering(): string[] {
    return this.steering.splice(0);
  }
}
