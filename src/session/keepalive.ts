// Some editors give up on a prompt that stays silent for long (a slow model, a long build or test run). While a
// turn runs, an empty message chunk after each interval of silence says the agent is alive — Hermes' turn
// keepalive (`acp.turn_keepalive_interval_seconds`, default 45, 0 = off). After `acp.turn_keepalive_max_silent_seconds`
// (default 1800) without a real update it stops, so a wedged turn does not look alive forever.
import type { AgentEvent, EventSink } from "../agent/events.ts";
import type { HermesConfig } from "../config/schema.ts";

export type KeepaliveSettings = { intervalMs: number; maxSilentMs: number };

const DEFAULT_INTERVAL_S = 45;
const DEFAULT_MAX_SILENT_S = 1800;

export function keepaliveSettings(config: HermesConfig | undefined): KeepaliveSettings {
  const acp = config?.acp;
  const interval = acp?.turn_keepalive_interval_seconds ?? acp?.keepalive_interval_s ?? DEFAULT_INTERVAL_S;
  const maxSilent = acp?.turn_keepalive_max_silent_seconds ?? DEFAULT_MAX_SILENT_S;
  return { intervalMs: interval * 1000, maxSilentMs: maxSilent * 1000 };
}

/** A sink that knows when it last carried a real event (keepalives go to `inner` and do not count). */
export class TrackedSink implements EventSink {
  lastEventAt = performance.now();

  constructor(readonly inner: EventSink) {}

  emit(event: AgentEvent): Promise<void> {
    this.lastEventAt = performance.now();
    return this.inner.emit(event);
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }
}

/** Sends keepalives through `sink` until the returned function is called. */
export function keepAlive(sink: TrackedSink, { intervalMs, maxSilentMs }: KeepaliveSettings): () => void {
  if (!(intervalMs > 0)) return () => {};
  let lastBeat = 0;
  const timer = setInterval(
    () => {
      const now = performance.now();
      if (now - Math.max(sink.lastEventAt, lastBeat) < intervalMs || now - sink.lastEventAt >= maxSilentMs) return;
      lastBeat = now;
      void sink.inner.emit({ type: "keepalive" }).catch(() => {});
    },
    Math.max(10, Math.floor(intervalMs / 4)),
  );
  timer.unref();
  return () => clearInterval(timer);
}
