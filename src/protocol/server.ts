import * as acp from "@agentclientprotocol/sdk";
import { isAbsolute } from "node:path";
import type { Services } from "../app/services.ts";
import { SessionManager } from "../session/manager.ts";
import type { LiveSession } from "../session/live-session.ts";
import { DomainError } from "../session/errors.ts";
import { parseMode, setConfigOption, setMode } from "../session/options.ts";
import { acpEventSink } from "../bridge/acp-sink.ts";
import { acpPermissionPort } from "../bridge/permission.ts";
import { acpFileSystem } from "../bridge/client-fs.ts";
import { acpShell } from "../bridge/client-terminal.ts";
import { localShell } from "../tools/local-shell.ts";
import { detectProvider } from "../llm/resolve.ts";
import { log } from "../util/log.ts";
import { trace } from "../util/trace.ts";
import { restoreJit } from "../util/jit.ts";
import { collectIfGrown } from "../util/memory.ts";
import { SETUP_AUTH_METHOD_ID } from "./capabilities.ts";
import type { ClientCaps } from "./initialize.ts";
import { mapErrors } from "./errors.ts";
import { configOptions, legacyModelState, modeState } from "./session-state.ts";
import { toUserInput } from "./content.ts";
import { availableCommands, runSlashCommand } from "../session/commands/index.ts";
import { paginate } from "./pagination.ts";
import { switchModel } from "../session/switch-model.ts";
import { modelChoices, refreshModelChoices } from "../session/model-choices.ts";
import { startTurn } from "../session/start-turn.ts";
import { z } from "zod";
import { lazy } from "../util/lazy.ts";

/** A params parser whose zod schema is built on its first request, not at startup. */
function lazyParser<T>(build: () => z.ZodType<T>) {
  const schema = lazy(build);
  return { parse: (params: unknown): T => schema().parse(params) };
}

// session/set_model left the protocol (spec 0.13.5); older clients still send it.
const SetModelParams = lazyParser(() => z.object({ sessionId: z.string(), modelId: z.string().min(1) }));
// session/fork is unstable in ACP v1: served through the stable SDK with our own parser, which keeps
// the unstable schemas (a second, larger set of validators) out of startup.
const ForkParams = lazyParser(() =>
  z.object({
    sessionId: z.string(),
    cwd: z.string(),
    mcpServers: z.array(z.unknown()).optional(),
    additionalDirectories: z.array(z.string()).optional(),
  }),
);

export type ServerOptions = {
  services: Services;
  /** The client capabilities from `initialize` (answered by protocol/front.ts before this app loads). */
  caps: () => ClientCaps;
  /** Schedules work to run once the response being sent now has gone out. */
  afterResponse?: (fn: () => void) => void;
};

/** Builds the ACP agent: one thin handler per method; the work lives in session/ and agent/. */
export function createAgentApp(options: ServerOptions): acp.AgentApp {
  const { services } = options;
  let client: acp.AgentContext | undefined;
  let manager: SessionManager | undefined;

  const gates = () => ({ notices: options.caps().notices, compaction: options.caps().compaction });
  const sessions = (ctx: acp.AgentContext): SessionManager => {
    client = ctx;
    manager ??= new SessionManager(services, (sessionId) => {
      const c = client as acp.AgentContext;
      return {
        sink: acpEventSink(c, sessionId, gates()),
        permissions: acpPermissionPort(c, sessionId),
        fs: acpFileSystem(c, sessionId, options.caps()),
        shell: options.caps().terminal ? acpShell(c, sessionId) : localShell,
        configChanged: async () => {
          const s = manager?.findLive(sessionId);
          if (s) await c.notify("session/update", { sessionId, update: { sessionUpdate: "config_option_update", configOptions: configOptions(s) } });
        },
      };
    });
    return manager;
  };

  /** Config must parse and a provider must be usable before a session can do anything useful. */
  const requireUsableConfig = () => {
    const cfg = services.config();
    if (!cfg.ok) {
      throw new DomainError("CONFIG_INVALID", cfg.error.message, { file: services.paths.config, fix: cfg.error.fix });
    }
    if (!detectProvider(cfg.config, services.env)) {
      throw new DomainError(
        "AUTH_REQUIRED",
        "Authentication required: no model provider is configured. Run `hermes-acp --setup` (or choose “Configure Hermes provider”), or put an API key such as OPENROUTER_API_KEY in ~/.hermes/.env.",
      );
    }
  };

  /** ACP paths are absolute; a Windows drive path is absolute too (it is translated under WSL). */
  const requireAbsolute = (cwd: string) => {
    if (!isAbsolute(cwd) && !/^[A-Za-z]:[\\/]/.test(cwd)) {
      throw new DomainError("INVALID_VALUE", `cwd must be an absolute path, got "${cwd}".`);
    }
  };

  /** Commands and usage go out after the response: sent before it, Zed shows no commands and JetBrains hangs. */
  const afterResponse = options.afterResponse ?? ((fn) => void setTimeout(fn, 0));
  const announce = (session: LiveSession) => {
    afterResponse(() => {
      // The session is open: startup is over, and what runs from here on is worth compiling.
      restoreJit();
      void (async () => {
        try {
          await client?.notify("session/update", {
            sessionId: session.id,
            update: { sessionUpdate: "available_commands_update", availableCommands: availableCommands() },
          });
          await session.emitUsage();
          // The picker was built from the cache; refresh it from the providers and re-announce if it changed.
          if (services.env.HERMES_ACP_MODEL_REFRESH !== "off" && (await refreshModelChoices(session))) await session.announceConfigOptions();
        } catch (e) {
          log.debug("post-response updates failed", e);
        }
      })();
    });
  };

  const sessionResponse = (s: LiveSession, meta?: Record<string, unknown>) => {
    const choices = modelChoices(s);
    return {
      modes: modeState(s),
      configOptions: configOptions(s, choices),
      // Older clients (before the model config option) read this removed field; newer ones ignore it.
      models: legacyModelState(choices),
      ...(meta ? { _meta: meta } : {}),
    };
  };

  const live = (ctx: acp.AgentContext, id: string): LiveSession => sessions(ctx).getLive(id);

  return acp
    .agent({ name: "hermes-acp" })
    .onRequest(
      "authenticate",
      mapErrors(({ params }) => {
        const id = params.methodId.trim().toLowerCase();
        const cfg = services.config();
        const provider = cfg.ok ? detectProvider(cfg.config, services.env) : null;
        if (provider && (id === SETUP_AUTH_METHOD_ID || id === provider)) return {};
        throw new DomainError(
          "AUTH_REQUIRED",
          provider
            ? `Unknown authentication method "${params.methodId}". Use "${provider}" or "${SETUP_AUTH_METHOD_ID}".`
            : "Authentication failed: no usable provider credential was found. Run `hermes-acp --setup` to configure one.",
        );
      }),
    )
    .onRequest(
      "session/new",
      mapErrors(({ params, client: ctx }) => {
        requireAbsolute(params.cwd);
        requireUsableConfig();
        const s = sessions(ctx).create(params.cwd);
        s.mcp.attach(params.mcpServers, s.cwd);
        log.info(`New session ${s.id} in ${s.cwd}`);
        announce(s);
        trace("session/new handled");
        return { sessionId: s.id, ...sessionResponse(s, s.provenanceMeta()) };
      }),
    )
    .onRequest(
      "session/load",
      mapErrors(async ({ params, client: ctx }) => {
        // Replaying a long history is hot code: worth the JIT at once.
        restoreJit();
        requireAbsolute(params.cwd);
        const m = sessions(ctx);
        const s = m.get(params.sessionId);
        m.updateCwd(s, params.cwd);
        s.mcp.attach(params.mcpServers, s.cwd);
        try {
          for (const event of await m.replay(s)) await s.ports.sink.emit(event);
          await s.ports.sink.flush();
        } catch (e) {
          log.warn(`ACP history replay raised during session/load for ${s.id} — load will still succeed, partial transcript may be missing`, e);
        }
        announce(s);
        return sessionResponse(s, s.provenanceMeta());
      }),
    )
    .onRequest(
      "session/resume",
      mapErrors(({ params, client: ctx }) => {
        requireAbsolute(params.cwd);
        const m = sessions(ctx);
        const s = m.get(params.sessionId);
        m.updateCwd(s, params.cwd);
        // Resume may omit mcpServers; then the session keeps what it had (or its configured servers).
        if (params.mcpServers || !s.mcp.attached) s.mcp.attach(params.mcpServers ?? [], s.cwd);
        announce(s);
        return sessionResponse(s, s.provenanceMeta());
      }),
    )
    .onRequest(
      "session/fork",
      ForkParams,
      mapErrors(({ params, client: ctx }) => {
        requireAbsolute(params.cwd);
        const m = sessions(ctx);
        const fork = m.fork(m.get(params.sessionId), params.cwd);
        fork.mcp.attach(params.mcpServers ?? [], fork.cwd);
        announce(fork);
        return { sessionId: fork.id, ...sessionResponse(fork) };
      }),
    )
    .onRequest(
      "session/list",
      mapErrors(({ params, client: ctx }) => {
        const all = sessions(ctx).list(params.cwd);
        const page = paginate(all, params.cursor ?? null);
        return { sessions: page.items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      }),
    )
    .onRequest(
      "session/close",
      mapErrors(({ params, client: ctx }) => {
        sessions(ctx).close(params.sessionId);
        return {};
      }),
    )
    .onRequest(
      "session/delete",
      mapErrors(({ params, client: ctx }) => {
        sessions(ctx).delete(params.sessionId);
        return {};
      }),
    )
    .onNotification("session/cancel", ({ params, client: ctx }) => {
      sessions(ctx).findLive(params.sessionId)?.cancel();
    })
    .onRequest(
      "session/set_mode",
      mapErrors(async ({ params, client: ctx }) => {
        const s = live(ctx, params.sessionId);
        const mode = parseMode(params.modeId);
        setMode(s, mode);
        await ctx.notify("session/update", { sessionId: s.id, update: { sessionUpdate: "current_mode_update", currentModeId: mode } });
        return {};
      }),
    )
    .onRequest(
      "session/set_config_option",
      mapErrors(async ({ params, client: ctx }) => {
        const s = live(ctx, params.sessionId);
        const mode = setConfigOption(s, params.configId, params.value);
        // Modes and the mode option are kept in sync for clients that show either.
        if (mode) await ctx.notify("session/update", { sessionId: s.id, update: { sessionUpdate: "current_mode_update", currentModeId: mode } });
        return { configOptions: configOptions(s) };
      }),
    )
    .onRequest(
      "session/set_model",
      SetModelParams,
      mapErrors(({ params, client: ctx }) => {
        switchModel(live(ctx, params.sessionId), params.modelId);
        return {};
      }),
    )
    .onRequest(
      "session/prompt",
      mapErrors(async ({ params, client: ctx }) => {
        restoreJit();
        const s = live(ctx, params.sessionId);
        const input = toUserInput(params.prompt);
        if (!input.text && (typeof input.content === "string" || input.content.length === 0)) return { stopReason: "end_turn" };
        const command = await runSlashCommand(s, input);
        const stopReason = command ? command.stopReason : await startTurn(s, input);
        // Every update of the turn goes out before its response (streamed text may still be buffered).
        await s.ports.sink.flush().catch(() => undefined);
        afterResponse(collectIfGrown);
        return { stopReason };
      }),
    );
}

