import { z } from "zod";
import { processRegistry, type BackgroundProcess, type ProcessRegistry } from "./process-registry.ts";
import { defineTool, type ToolContext, type ToolResult } from "./types.ts";
import description from "./process.md" with { type: "text" };

const ACTIONS = ["list", "poll", "log", "wait", "kill", "write", "submit"] as const;
const DEFAULT_WAIT_S = 180;
const MAX_WAIT_S = 3600;
const DEFAULT_LOG_LINES = 200;
const MAX_LOG_CHARS = 50_000;

const processParams = z.object({
  action: z.enum(ACTIONS).describe("What to do: list, poll, log, wait, kill, write, submit."),
  session_id: z.string().optional().describe("The process id from terminal(background=true). Required except for list."),
  data: z.string().optional().describe("Text for stdin (write: as is; submit: a newline is added)."),
  timeout: z.number().optional().describe(`wait: max seconds to block (default ${DEFAULT_WAIT_S}, max ${MAX_WAIT_S}).`),
  offset: z.number().int().min(0).optional().describe("log: first line (0-based). Default: the last lines."),
  limit: z.number().int().min(1).optional().describe(`log: number of lines (default ${DEFAULT_LOG_LINES}).`),
});
export type ProcessParams = z.infer<typeof processParams>;

const tailChars = (text: string, n: number) => (text.length > n ? text.slice(text.length - n) : text);

function reply(value: Record<string, unknown>, failed = false): ToolResult {
  return { output: JSON.stringify(value), failed };
}

function summary(p: BackgroundProcess): Record<string, unknown> {
  return {
    session_id: p.id,
    command: p.command,
    status: p.status,
    pid: p.pid,
    ...(p.status === "running" ? {} : { exit_code: p.exitCode ?? -1 }),
  };
}

function logLines(p: BackgroundProcess, offset: number | undefined, limit: number | undefined): Record<string, unknown> {
  const text = p.output();
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const count = limit ?? DEFAULT_LOG_LINES;
  const start = offset === undefined ? Math.max(0, lines.length - count) : Math.min(offset, lines.length);
  const selected = lines.slice(start, start + count);
  let output = selected.join("\n");
  if (output.length > MAX_LOG_CHARS) output = `${output.slice(0, MAX_LOG_CHARS)}\n[... cut at ${MAX_LOG_CHARS} characters; use a smaller limit ...]`;
  const showing = selected.length ? `lines ${start}-${start + selected.length - 1} of ${lines.length}` : `0 of ${lines.length} lines`;
  return { ...summary(p), output, total_lines: lines.length, showing };
}

type WaitEnd = "exited" | "timeout" | "interrupted";

async function waitFor(p: BackgroundProcess, ms: number, signal: AbortSignal): Promise<WaitEnd> {
  if (signal.aborted) return "interrupted";
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      p.done.then((): WaitEnd => "exited"),
      new Promise<WaitEnd>((r) => {
        timer = setTimeout(() => r("timeout"), ms);
      }),
      new Promise<WaitEnd>((r) => {
        onAbort = () => r("interrupted");
        signal.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

async function wait(p: BackgroundProcess, timeout: number | undefined, signal: AbortSignal): Promise<ToolResult> {
  const requested = timeout !== undefined && Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_WAIT_S;
  const seconds = Math.min(requested, MAX_WAIT_S);
  const end = await waitFor(p, seconds * 1000, signal);
  const clamped = requested > MAX_WAIT_S ? { timeout_note: `Requested wait of ${requested}s was clamped to ${MAX_WAIT_S}s` } : {};
  if (end === "exited") return reply({ ...summary(p), output: tailChars(p.output(), 4000), ...clamped });
  const note = end === "timeout" ? `Waited ${seconds}s; the process is still running` : "Wait interrupted: the user cancelled the turn";
  return reply({ ...summary(p), status: end === "timeout" ? "timeout" : "interrupted", output: tailChars(p.output(), 2000), note, ...clamped });
}

async function act(args: ProcessParams, registry: ProcessRegistry, ctx: ToolContext): Promise<ToolResult> {
  if (args.action === "list") {
    const processes = registry.list(ctx.sessionId).map((p) => ({
      ...summary(p),
      command: p.command.slice(0, 200),
      cwd: p.cwd,
      started_at: new Date(p.startedAt).toISOString(),
      uptime_seconds: p.uptimeSeconds,
      output_preview: tailChars(p.output(), 200),
    }));
    return reply({ processes });
  }
  if (!args.session_id) return reply({ error: `session_id is required for action '${args.action}'` }, true);
  const p = registry.get(ctx.sessionId, args.session_id);
  if (!p) {
    return reply({ status: "not_found", error: `No background process '${args.session_id}' in this session. Use action 'list' to see them.` }, true);
  }
  switch (args.action) {
    case "poll":
      return reply({ ...summary(p), uptime_seconds: p.uptimeSeconds, output: tailChars(p.output(), 2000) });
    case "log":
      return reply(logLines(p, args.offset, args.limit));
    case "wait":
      return wait(p, args.timeout, ctx.signal);
    case "kill": {
      if (p.status !== "running") return reply({ ...summary(p), status: "already_exited" });
      await p.kill();
      return reply({ session_id: p.id, command: p.command, status: p.status, pid: p.pid, signal: p.signalCode });
    }
    case "write":
    case "submit": {
      if (args.action === "write" && args.data === undefined) return reply({ error: "data is required for action 'write'" }, true);
      const data = args.action === "submit" ? `${args.data ?? ""}\n` : (args.data ?? "");
      try {
        return reply({ session_id: p.id, status: "ok", bytes_written: p.write(data) });
      } catch (e) {
        return reply({ session_id: p.id, status: p.status, error: e instanceof Error ? e.message : String(e) }, true);
      }
    }
  }
}

/** Builds the process tool over a registry (the terminal tool's, by default). */
export function createProcessTool(registry: ProcessRegistry = processRegistry) {
  return defineTool<ProcessParams>({
    name: "process",
    description,
    parameters: processParams,
    kind: "execute",
    title: (args) => (args.session_id ? `process ${args.action}: ${args.session_id}` : `process ${args.action}`),
    locations: () => [],
    startContent: (args) => {
      let text = `Process action: ${args.action}`;
      if (args.session_id) text += `\nSession: ${args.session_id}`;
      if (args.data) text += `\nInput: ${args.data.length > 500 ? `${args.data.slice(0, 400)}\n... (${args.data.length} chars total, truncated)` : args.data}`;
      return [{ type: "text", text }];
    },
    run: (args, ctx) => act(args, registry, ctx),
  });
}

export const processTool = createProcessTool();
