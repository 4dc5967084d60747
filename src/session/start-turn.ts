import type { StopReason } from "../agent/stop-reason.ts";
import type { UserInput } from "../protocol/content.ts";
import { log } from "../util/log.ts";
import type { LiveSession } from "./live-session.ts";

/** Queues a prompt turn; the first prompt of a conversation also names the session. */
export function startTurn(session: LiveSession, input: UserInput, opts: { echo?: boolean } = {}): Promise<StopReason> {
  const result = session.enqueue(async (signal) => {
    if (opts.echo && input.text) await session.ports.sink.emit({ type: "user_message", text: input.text });
    await ensureTitle(session, input.text);
    return session.runTurn(input, signal);
  });
  void result.then(() => drainDeferred(session), () => undefined);
  return result;
}

/** Prompts parked with /queue while idle run after the next turn (Hermes semantics). */
function drainDeferred(session: LiveSession): void {
  for (const input of session.deferred.splice(0)) void startTurn(session, input, { echo: true });
}

async function ensureTitle(session: LiveSession, text: string): Promise<void> {
  if (session.title || !text.trim()) return;
  try {
    const firstLine = text.trim().split("\n")[0] ?? text;
    const stored = session.services.store().setTitle(session.id, firstLine);
    if (!stored) return;
    session.title = stored;
    await session.ports.sink.emit({ type: "session_info", title: stored, updatedAt: new Date().toISOString() });
  } catch (e) {
    log.warn(`could not set the title of session ${session.id}`, e);
  }
}
