import type { ChatMessage } from "../agent/messages.ts";
import type { StopReason } from "../agent/stop-reason.ts";
import { isAbortError } from "../agent/stop-reason.ts";
import { runAgentLoop } from "../agent/loop.ts";
import type { ToolRunner } from "../agent/tool-call.ts";
import { buildSystemPrompt } from "../agent/system-prompt.ts";
import { isContextLengthError } from "../agent/compression.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { ApprovalOutcome, Approver, ToolContext } from "../tools/types.ts";
import type { McpToolApprover } from "../mcp/approval.ts";
import type { UserInput } from "../protocol/content.ts";
import { log } from "../util/log.ts";
import { compactSession, maybeCompact } from "./compaction.ts";
import { withFallbacks } from "../llm/fallback.ts";
import { fallbackTargets, followFallback } from "./fallback-targets.ts";
import type { LiveSession } from "./live-session.ts";

/** Runs one prompt turn against the model. Never throws: failures end the turn with a message. */
export async function runTurn(session: LiveSession, input: UserInput, signal: AbortSignal): Promise<StopReason> {
  const sink = session.ports.sink;
  const resolved = session.resolveRuntime();
  if (!resolved.ok) {
    await sink.emit({ type: "message_chunk", messageId: crypto.randomUUID(), text: `⚠️ ${resolved.error}` });
    return "end_turn";
  }
  const runtime = resolved.runtime;
  // The user message is saved while the first request is in flight (a SQLite write is ~0.3 ms of the time to
  // first token), and in any case before anything after it is saved, before compression copies the history,
  // and before the turn ends.
  let unsavedUser: ChatMessage | undefined;
  const saveUser = () => {
    if (!unsavedUser) return;
    session.persist(unsavedUser);
    unsavedUser = undefined;
  };
  try {
    const llm = withFallbacks(
      { client: await session.llm(runtime), provider: runtime.provider, model: runtime.model },
      fallbackTargets(session, runtime),
      (to, error) => followFallback(session, to, error),
    );
    if (signal.aborted) return "cancelled";
    const user: ChatMessage = { role: "user", content: input.content };
    session.history.push(user);
    unsavedUser = user;
    const registry = await session.tools();
    const { approver } = await session.workbench();
    const systemPrompt = buildSystemPrompt({ cwd: session.cwd, model: runtime.model, tools: registry.list() });
    let overflowRetried = false;
    const result = await runAgentLoop({
      llm,
      model: runtime.model,
      systemPrompt,
      beforeModelCall: (promptTokens) =>
        maybeCompact(session, { runtime, llm, signal, systemPrompt, beforeCompaction: saveUser, ...(promptTokens ? { promptTokens } : {}) }),
      onRequestSent: saveUser,
      onContextOverflow: async (error) => {
        if (overflowRetried || !isContextLengthError(error)) return false;
        overflowRetried = true;
        saveUser();
        return (await compactSession(session, { runtime, llm, signal, force: true })).ok;
      },
      tools: registry.specs(),
      runner: toolRunner(session, registry, approver),
      sink,
      signal,
      maxIterations: session.maxIterations(),
      ...(runtime.maxTokens ? { maxTokens: runtime.maxTokens } : {}),
      ...(session.settings.options.thought_level ? { reasoningEffort: session.settings.options.thought_level } : {}),
      history: session.history,
      persist: (m) => {
        saveUser();
        session.persist(m);
      },
      takeSteering: () => session.queue.takeSteering(),
      newMessageId: () => crypto.randomUUID(),
      uniqueToolCallId: (id) => session.uniqueToolCallId(id),
    });
    if (result.error && !signal.aborted) {
      log.warn(`turn of session ${session.id} ended by a provider error: ${result.error.message}`);
      await sink.emit({ type: "message_chunk", messageId: crypto.randomUUID(), text: `\n\n⚠️ ${result.error.message}` });
      await sink.emit({ type: "notice", severity: "error", title: "Model provider error", description: result.error.message });
    }
    await session.emitUsage(runtime, result.usage);
    return signal.aborted ? "cancelled" : result.stopReason;
  } catch (e) {
    if (signal.aborted || isAbortError(e)) return "cancelled";
    log.error(`turn of session ${session.id} failed`, e);
    await sink
      .emit({ type: "message_chunk", messageId: crypto.randomUUID(), text: `⚠️ Internal error: ${e instanceof Error ? e.message : String(e)}` })
      .catch(() => undefined);
    return "end_turn";
  } finally {
    saveUser();
  }
}

/** Binds the registry's tools to this session: its cwd, editor ports, approver and tool state. */
function toolRunner(session: LiveSession, registry: ToolRegistry, approver: Approver): ToolRunner {
  return {
    cwd: session.cwd,
    kindOf: (name) => registry.get(name)?.kind,
    parse: (call) => {
      const r = registry.parseCall(call.function.name, call.function.arguments);
      return r.ok ? { ok: true, args: r.args } : r;
    },
    run: async (call, args, signal) => {
      const tool = registry.get(call.function.name);
      if (!tool) return { output: `Unknown tool: ${call.function.name}`, failed: true };
      const cfg = session.services.config();
      const commandTimeoutS = cfg.ok ? cfg.config.terminal?.timeout : undefined;
      const ctx: ToolContext = {
        sessionId: session.id,
        toolCallId: call.id,
        cwd: session.cwd,
        signal,
        fs: session.ports.fs,
        shell: session.ports.shell,
        approver: markInProgressWhenApproved(approver, () => session.ports.sink.emit({ type: "tool_progress", toolCallId: call.id, status: "in_progress" })),
        state: session.toolState,
        progress: (u) => session.ports.sink.emit({ type: "tool_progress", toolCallId: call.id, ...u }),
        ...(commandTimeoutS !== undefined ? { commandTimeoutS } : {}),
      };
      // The registry validated `args` against this tool's own schema.
      return tool.run(args as never, ctx);
    },
  };
}

/** The approver for one call: once the call may proceed, its card moves from pending to in_progress. */
function markInProgressWhenApproved(approver: Approver, started: () => Promise<void>): Approver {
  const after = async (outcome: ApprovalOutcome) => {
    if (outcome.approved) await started();
    return outcome;
  };
  const wrapped: Approver & Partial<McpToolApprover> = {
    approveEdit: (p, id, s) => approver.approveEdit(p, id, s).then(after),
    approveCommand: (c, id, s) => approver.approveCommand(c, id, s).then(after),
  };
  if (hasMcpApproval(approver)) wrapped.approveMcpTool = (r, id, s) => approver.approveMcpTool(r, id, s).then(after);
  return wrapped;
}

function hasMcpApproval(a: Approver): a is Approver & McpToolApprover {
  return "approveMcpTool" in a && typeof a.approveMcpTool === "function";
}
