import type { LlmChunk, LlmClient, ToolSpec, Usage } from "../llm/types.ts";
import { LlmError } from "../llm/types.ts";
import type { ChatMessage, ToolCall } from "./messages.ts";
import type { EventSink } from "./events.ts";
import type { StopReason } from "./stop-reason.ts";
import { isAbortError } from "./stop-reason.ts";
import { runToolCall, type ToolRunner } from "./tool-call.ts";
import { fixToolPairs } from "./compression-pairs.ts";

export type LoopDeps = {
  llm: LlmClient;
  model: string;
  systemPrompt: string;
  tools: ToolSpec[];
  runner: ToolRunner;
  sink: EventSink;
  signal: AbortSignal;
  maxIterations: number;
  maxTokens?: number;
  reasoningEffort?: string;
  /** The model context; the loop appends to it. */
  history: ChatMessage[];
  /** Stores one completed message (called in order, as each completes). */
  persist(message: ChatMessage): void;
  /** Guidance sent with /steer while the turn runs, taken before each model call. */
  takeSteering(): string[];
  newMessageId(): string;
  /** Runs before each model call with the last prompt size (e.g. to compress the context). */
  beforeModelCall?(promptTokens: number | undefined): Promise<void>;
  /** The provider said the context is too long: shrink it and return true to retry once. */
  onContextOverflow?(error: LlmError): Promise<boolean>;
  /** Runs once each model request is on its way: work the request need not wait for goes here. */
  onRequestSent?(): void;
  /** Makes a provider tool-call id unique within the session (some servers reuse `call_0`). */
  uniqueToolCallId(id: string): string;
};

export type LoopResult = { stopReason: StopReason; usage?: Usage; error?: LlmError };

const CANCELLED_RESULT = "Cancelled by the user before this tool ran.";
const INTERRUPTED_RESULT = "[No result: the agent stopped before this tool finished.]";

/** One prompt turn: model → tool calls → results → model … until the model stops or a limit is hit. */
export async function runAgentLoop(deps: LoopDeps): Promise<LoopResult> {
  const { sink, signal, history } = deps;
  let usage: Usage | undefined;
  const push = (m: ChatMessage) => {
    history.push(m);
    deps.persist(m);
  };

  for (let iteration = 0; iteration < deps.maxIterations; iteration++) {
    for (const guidance of deps.takeSteering()) {
      push({ role: "user", content: `[User guidance while you work] ${guidance}` });
    }
    if (signal.aborted) return { stopReason: "cancelled", usage };
    await deps.beforeModelCall?.(usage?.promptTokens);
    if (signal.aborted) return { stopReason: "cancelled", usage };

    const messageId = deps.newMessageId();
    let text = "";
    let reasoning = "";
    let done: Extract<Awaited<ReturnType<typeof collect>>, object> | undefined;
    try {
      done = await collect(deps, messageId, (t) => (text += t), (r) => (reasoning += r));
    } catch (e) {
      if (signal.aborted || isAbortError(e)) {
        if (text || reasoning) push(assistant(text, reasoning, [], "cancelled"));
        return { stopReason: "cancelled", usage };
      }
      if (e instanceof LlmError && !text && !reasoning && (await deps.onContextOverflow?.(e))) {
        iteration--; // the same request again, on the compressed context
        continue;
      }
      if (e instanceof LlmError) return { stopReason: "end_turn", usage, error: e };
      return { stopReason: "end_turn", usage, error: new LlmError("stream", e instanceof Error ? e.message : String(e)) };
    }
    if (done.usage) usage = done.usage;

    const toolCalls: ToolCall[] = done.toolCalls.map((c) => ({ ...c, id: deps.uniqueToolCallId(c.id) }));
    push(assistant(done.content, done.reasoning, toolCalls, done.finishReason));

    if (done.finishReason === "content_filter" && toolCalls.length === 0) return { stopReason: "refusal", usage };
    if (toolCalls.length === 0) {
      return { stopReason: done.finishReason === "length" ? "max_tokens" : "end_turn", usage };
    }

    for (const [i, call] of toolCalls.entries()) {
      if (signal.aborted) {
        // Every tool call needs a result, or the provider rejects the next request.
        for (const skipped of toolCalls.slice(i)) push(toolMessage(skipped, CANCELLED_RESULT));
        return { stopReason: "cancelled", usage };
      }
      const outcome = await runToolCall(call, deps.runner, sink, signal, (output) => push(toolMessage(call, output)));
      if (outcome.cancelled) {
        for (const skipped of toolCalls.slice(i + 1)) push(toolMessage(skipped, CANCELLED_RESULT));
        return { stopReason: "cancelled", usage };
      }
    }
    if (signal.aborted) return { stopReason: "cancelled", usage };
  }
  return { stopReason: "max_turn_requests", usage };
}

async function collect(deps: LoopDeps, messageId: string, onText: (t: string) => void, onReasoning: (t: string) => void) {
  const request = {
    model: deps.model,
    // A crash or kill can leave a tool call without its result; providers reject such a history.
    messages: [{ role: "system" as const, content: deps.systemPrompt }, ...fixToolPairs(deps.history, INTERRUPTED_RESULT).messages],
    tools: deps.tools,
    ...(deps.maxTokens ? { maxTokens: deps.maxTokens } : {}),
    ...(deps.reasoningEffort ? { reasoningEffort: deps.reasoningEffort } : {}),
  };
  const stream = deps.llm.stream(request, deps.signal)[Symbol.asyncIterator]();
  // The first step runs the client up to its request; the wait for the answer is free time.
  let next = stream.next();
  deps.onRequestSent?.();
  // Like for-await: a loop left early (a result, a throwing sink) closes the stream; a failed or finished one is closed.
  let open = true;
  try {
    for (;;) {
      let step: IteratorResult<LlmChunk>;
      try {
        step = await next;
      } catch (e) {
        open = false;
        throw e;
      }
      if (step.done) {
        open = false;
        throw new LlmError("stream", "The provider closed the stream without finishing the response.");
      }
      const chunk = step.value;
      switch (chunk.type) {
        case "text":
          if (!chunk.text) break;
          onText(chunk.text);
          await deps.sink.emit({ type: "message_chunk", messageId, text: chunk.text });
          break;
        case "reasoning":
          if (!chunk.text) break;
          onReasoning(chunk.text);
          await deps.sink.emit({ type: "thought_chunk", messageId: `${messageId}-thought`, text: chunk.text });
          break;
        case "done":
          // The last text goes out now, not after the message is stored.
          await deps.sink.flush();
          return chunk;
      }
      next = stream.next();
    }
  } finally {
    if (open) await stream.return?.(undefined);
  }
}

function assistant(content: string, reasoning: string, toolCalls: ToolCall[], finishReason: string): ChatMessage {
  return {
    role: "assistant",
    content: content || null,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    finish_reason: finishReason,
  };
}

function toolMessage(call: ToolCall, output: string): ChatMessage {
  return { role: "tool", content: output, tool_call_id: call.id, tool_name: call.function.name };
}
