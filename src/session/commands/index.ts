import type { StopReason } from "../../agent/stop-reason.ts";
import type { UserInput } from "../../protocol/content.ts";
import { log } from "../../util/log.ts";
import type { LiveSession } from "../live-session.ts";
import { COMMANDS, type SlashCommand } from "./table.ts";

export type WireCommand = { name: string; description: string; input?: { hint: string } };

/** The `available_commands_update` list, in Hermes' order. */
export function availableCommands(): WireCommand[] {
  return COMMANDS.map((c) => ({
    name: c.name,
    description: c.description,
    ...(c.hint ? { input: { hint: c.hint } } : {}),
  }));
}

function parse(input: UserInput): { command: SlashCommand; args: string } | null {
  if (typeof input.content !== "string") return null;
  const text = input.text.trim();
  if (!text.startsWith("/")) return null;
  const [head = ""] = text.split(/\s+/);
  const name = head.slice(1).toLowerCase();
  const command = COMMANDS.find((c) => c.name === name || c.alias === name);
  if (!command) return null;
  return { command, args: text.slice(head.length).trim() };
}

/**
 * Runs a known slash command locally (hermes-behaviour §17); null means "not a command, send it
 * to the model". Commands that change the conversation wait for the running turn.
 */
export async function runSlashCommand(session: LiveSession, input: UserInput): Promise<{ stopReason: StopReason } | null> {
  const parsed = parse(input);
  if (!parsed) return null;
  const { command, args } = parsed;
  const execute = async (signal?: AbortSignal): Promise<StopReason> => {
    let reply: { text: string; stopReason?: Promise<StopReason> };
    try {
      reply = await command.run(session, args, signal ?? new AbortController().signal);
    } catch (e) {
      log.warn(`/${command.name} failed`, e);
      reply = { text: `Error executing /${command.name}: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (reply.stopReason) return reply.stopReason;
    await session.ports.sink.emit({ type: "message_chunk", messageId: crypto.randomUUID(), text: reply.text });
    await session.emitUsage();
    return "end_turn";
  };
  // Commands that change the conversation take their place in the queue (and can be cancelled there).
  const stopReason = command.waitsForTurn ? await session.enqueue((signal) => execute(signal)) : await execute();
  return { stopReason };
}
