import { compressionThreshold } from "../../agent/compression-threshold.ts";
import type { StopReason } from "../../agent/stop-reason.ts";
import { estimateTokens } from "../../agent/tokens.ts";
import { VERSION } from "../../version.ts";
import type { LiveSession } from "../live-session.ts";
import { startTurn } from "../start-turn.ts";
import { switchModel } from "../switch-model.ts";

export type CommandReply = { text: string; stopReason?: Promise<StopReason> };

export type SlashCommand = {
  name: string;
  alias?: string;
  /** Advertised in available_commands_update. */
  description: string;
  /** Shown by /help. */
  help: string;
  hint?: string;
  /** Changes the conversation, so it runs after the current turn. */
  waitsForTurn?: boolean;
  run(session: LiveSession, args: string, signal: AbortSignal): Promise<CommandReply> | CommandReply;
};

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

export const COMMANDS: SlashCommand[] = [
  {
    name: "help",
    description: "List available commands",
    help: "Show available commands",
    run: () => ({
      text: [
        "Available commands:",
        "",
        ...COMMANDS.map((c) => `  /${c.name.padEnd(10)}  ${c.help}`),
        "",
        "Unrecognized /commands are sent to the model as normal messages.",
      ].join("\n"),
    }),
  },
  {
    name: "model",
    description: "Show current model and provider, or switch models",
    help: "Show or change current model",
    hint: "model name to switch to",
    run: async (session, args) => {
      if (!args) {
        const r = session.resolveRuntime();
        const model = r.ok ? r.runtime.model : (session.settings.model ?? "unknown");
        const provider = r.ok ? r.runtime.provider : (session.settings.provider ?? "auto");
        return { text: `Current model: ${model}\nProvider: ${provider}` };
      }
      const picked = switchModel(session, args);
      await session.announceConfigOptions();
      return { text: `Model switched to: ${picked.model}\nProvider: ${picked.provider}` };
    },
  },
  {
    name: "tools",
    description: "List available tools with descriptions",
    help: "List available tools",
    run: async (session) => {
      const tools = (await session.tools()).list();
      const mcp = await session.mcp.statusLines();
      const mcpSection = mcp.length ? ["", "MCP servers:", ...mcp.map((l) => `  ${l}`)] : [];
      if (!tools.length) return { text: ["No tools available.", ...mcpSection].join("\n") };
      const lines = tools.map((t) => {
        const d = t.description.split("\n")[0] ?? "";
        return `  ${t.name}: ${d.length > 80 ? `${d.slice(0, 77)}...` : d}`;
      });
      return { text: [`Available tools (${tools.length}):`, ...lines, ...mcpSection].join("\n") };
    },
  },
  {
    name: "context",
    description: "Show conversation message counts by role",
    help: "Show conversation context info",
    run: (session) => {
      const h = session.history;
      const count = (role: string) => h.filter((m) => m.role === role).length;
      const lines: string[] = [];
      lines.push(h.length ? `Conversation: ${h.length} messages` : "Conversation is empty (no messages yet).");
      lines.push(`  user: ${count("user")}, assistant: ${count("assistant")}, tool: ${count("tool")}, system: ${count("system")}`);
      const r = session.resolveRuntime();
      if (r.ok) lines.push(`Model: ${r.runtime.model}`);
      lines.push(`Provider: ${r.ok ? r.runtime.provider : (session.settings.provider ?? "auto")}`);
      const window = session.contextSize(r.ok ? r.runtime : undefined);
      const used = estimateTokens(h);
      lines.push(`Context usage: ~${fmt(used)} / ${fmt(window)} tokens (${((used / window) * 100).toFixed(1)}%)`);
      const cfg = session.services.config();
      const comp = cfg.ok ? cfg.config.compression : undefined;
      const threshold = compressionThreshold(window, comp?.threshold ?? 0.5);
      const pct = Math.round((threshold / window) * 100);
      if (used >= threshold) lines.push(`Compression: due now (threshold ~${fmt(threshold)}, ${pct}%). Run /compress.`);
      else lines.push(`Compression: ~${fmt(threshold - used)} tokens until threshold (~${fmt(threshold)}, ${pct}%).`);
      lines.push(comp?.enabled === false ? "Compression is disabled for this agent." : "Tip: run /compress to compress manually before the threshold.");
      return { text: lines.join("\n") };
    },
  },
  {
    name: "reset",
    description: "Clear conversation history",
    help: "Clear conversation history",
    waitsForTurn: true,
    run: (session) => {
      session.reset();
      return { text: "Conversation history cleared." };
    },
  },
  {
    name: "compress",
    alias: "compact",
    description: "Compress conversation context",
    help: "Compress conversation context",
    waitsForTurn: true,
    run: async (session, _args, signal) => ({ text: await session.compressNow(signal) }),
  },
  {
    name: "steer",
    description: "Inject guidance into the currently running agent turn",
    help: "Inject guidance into the currently running agent turn",
    hint: "guidance for the active turn",
    run: (session, args) => {
      if (!args) return { text: "Usage: /steer <guidance>" };
      if (session.queue.steer(args)) {
        return { text: `⏩ Steer queued for the active turn: ${args.length > 80 ? `${args.slice(0, 80)}...` : args}` };
      }
      // Idle: the guidance becomes the next prompt (hermes-behaviour §10.4 step 3).
      return { text: "", stopReason: startTurn(session, { text: args, content: args }) };
    },
  },
  {
    name: "queue",
    description: "Queue a prompt to run after the current turn finishes",
    help: "Queue a prompt to run after the current turn finishes",
    hint: "prompt to run next",
    run: (session, args) => {
      if (!args) return { text: "Usage: /queue <prompt>" };
      if (session.queue.running) void startTurn(session, { text: args, content: args }, { echo: true });
      else session.deferred.push({ text: args, content: args });
      return { text: `Queued for the next turn. (${session.queue.queued + session.deferred.length} queued)` };
    },
  },
  {
    name: "version",
    description: "Show Hermes version",
    help: "Show Hermes version",
    run: () => ({ text: `Hermes ACP v${VERSION}` }),
  },
];
