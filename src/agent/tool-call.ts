import type { ToolResult } from "../tools/types.ts";
import { coerceArgs, planFromTodoResult, toolCompletion, toolKind, toolLocations, toolRawInput, toolStartContent, toolTitle } from "../tools/display.ts";
import type { EventSink, ToolKind } from "./events.ts";
import type { ToolCall } from "./messages.ts";
import { isAbortError } from "./stop-reason.ts";

/** Runs tools for the loop: validation and execution, bound to one session. */
export interface ToolRunner {
  cwd: string;
  /** The tool's own kind (MCP tools take theirs from annotations). */
  kindOf(name: string): ToolKind | undefined;
  parse(call: ToolCall): { ok: true; args: unknown } | { ok: false; error: string };
  run(call: ToolCall, args: unknown, signal: AbortSignal): Promise<ToolResult>;
}

/** Kinds whose tools ask for approval before acting (ACP: pending → permission → in_progress). */
const ASKS_FIRST = new Set<ToolKind>(["edit", "execute", "delete", "move"]);

export type ToolCallOutcome = { output: string; cancelled: boolean };

/**
 * Shows the card, runs the call, closes the card. Returns what the model reads, and whether the
 * user cancelled (a cancelled permission answer ends the turn like session/cancel).
 */
export async function runToolCall(
  call: ToolCall,
  runner: ToolRunner,
  sink: EventSink,
  signal: AbortSignal,
  /** Stores the result; called before the card says "done", so nothing the user saw finish is lost in a crash. */
  record: (output: string) => void,
): Promise<ToolCallOutcome> {
  const name = call.function.name;
  const args = coerceArgs(call.function.arguments);
  const toolCallId = call.id;
  await sink.emit({
    type: "tool_start",
    toolCallId,
    name,
    title: toolTitle(name, args),
    kind: name.startsWith("mcp_") ? (runner.kindOf(name) ?? toolKind(name)) : toolKind(name),
    locations: toolLocations(name, args, runner.cwd),
    content: toolStartContent(name, args),
    rawInput: toolRawInput(name, args),
  });

  const parsed = runner.parse(call);
  if (!parsed.ok) {
    record(parsed.error);
    await sink.emit({ type: "tool_end", toolCallId, status: "failed", content: [{ type: "text", text: parsed.error }] });
    return { output: parsed.error, cancelled: false };
  }

  // Tools that may ask first stay `pending` until approved (the runner marks them in_progress then).
  const kind = name.startsWith("mcp_") ? (runner.kindOf(name) ?? toolKind(name)) : toolKind(name);
  if (!ASKS_FIRST.has(kind)) await sink.emit({ type: "tool_progress", toolCallId, status: "in_progress" });
  let result: ToolResult;
  try {
    result = await untilAborted(runner.run(call, parsed.args, signal), signal);
  } catch (e) {
    if (signal.aborted || isAbortError(e)) {
      record("Cancelled by the user while this tool was running.");
      await sink.emit({ type: "tool_end", toolCallId, status: "failed", content: [{ type: "text", text: "Cancelled." }] });
      return { output: "Cancelled by the user while this tool was running.", cancelled: true };
    }
    const message = `Error executing tool '${name}': ${e instanceof Error ? e.message : String(e)}`;
    record(message);
    await sink.emit({ type: "tool_end", toolCallId, status: "failed", content: [{ type: "text", text: message }] });
    return { output: message, cancelled: false };
  }

  record(result.output);
  const shown = toolCompletion(name, args, result.output, { failed: result.failed });
  await sink.emit({
    type: "tool_end",
    toolCallId,
    status: result.failed ? "failed" : shown.status,
    content: result.content ?? shown.content,
    ...(shown.rawOutput !== undefined ? { rawOutput: shown.rawOutput } : {}),
  });
  if (name === "todo") {
    const entries = planFromTodoResult(result.output);
    if (entries) await sink.emit({ type: "plan", entries });
  }
  return { output: result.output, cancelled: false };
}

/**
 * Stops waiting when the turn is cancelled, even if a tool (or the editor behind it) never returns:
 * cancel must answer promptly. The tool's own work is cancelled through the same signal.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function abortError(): Error {
  const e = new Error("cancelled");
  e.name = "AbortError";
  return e;
}
