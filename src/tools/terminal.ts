import { statSync } from "node:fs";
import { z } from "zod";
import { resolveToolPath } from "./paths.ts";
import { processRegistry, type ProcessRegistry } from "./process-registry.ts";
import { defineTool, type CommandResult, type ToolContext, type ToolResult } from "./types.ts";
import description from "./terminal.md" with { type: "text" };

export const DEFAULT_TIMEOUT_S = 180;
export const MAX_TIMEOUT_S = 3600;
const OUTPUT_LIMIT = 50_000;
/** While a command runs without an editor terminal, its card shows the last LIVE_TAIL characters of output… */
const LIVE_TAIL = 4_000;
/** …refreshed at most this often. */
const LIVE_INTERVAL_MS = 500;

const terminalParams = z.object({
  command: z.string().min(1).describe("The shell command to run."),
  background: z.boolean().optional().describe("Run in the background and return a session_id for the process tool."),
  timeout: z.number().optional().describe(`Seconds before the command is killed (default ${DEFAULT_TIMEOUT_S} unless configured, max ${MAX_TIMEOUT_S}).`),
  workdir: z.string().optional().describe("Directory to run in (absolute, or relative to the session cwd)."),
});
export type TerminalParams = z.infer<typeof terminalParams>;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

const validSeconds = (s: number | undefined): s is number => s !== undefined && Number.isFinite(s) && s > 0;

/** Seconds → ms, clamped to (0, 3600]; anything else means the default (the configured one, else 180 s). */
export function timeoutMsOf(timeout: number | undefined, configured?: number): number {
  const s = validSeconds(timeout) ? timeout : validSeconds(configured) ? configured : DEFAULT_TIMEOUT_S;
  return Math.round(Math.min(s, MAX_TIMEOUT_S) * 1000);
}

function json(value: Record<string, unknown>, failed: boolean): ToolResult {
  return { output: JSON.stringify(value), failed };
}

function blocked(reason: string): ToolResult {
  const output = reason.startsWith("BLOCKED")
    ? reason
    : `BLOCKED: ${reason}. The user has NOT consented to this command. Do not retry it, and do not try to achieve ` +
      "the same effect another way (another command, a script, or another tool); ask the user how to proceed.";
  return { output, failed: true };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function foregroundResult(r: CommandResult, timeoutMs: number, signal: AbortSignal): ToolResult {
  const exitCode = r.exitCode ?? -1;
  const out: Record<string, unknown> = { output: r.output, exit_code: exitCode };
  if (r.timedOut) out.error = `Command timed out after ${timeoutMs / 1000}s`;
  else if (signal.aborted) out.error = "Command interrupted: the user cancelled the turn";
  else if (r.exitCode === null && r.signal) out.error = `Command killed by ${r.signal}`;
  return json(out, exitCode !== 0);
}

/**
 * Streams a running command's output into its card (editors without a terminal of their own would otherwise
 * show nothing until it ends): the tail of the output, throttled. A command done within the first interval
 * shows only its result. `stop` before the result is reported.
 */
function liveOutput(ctx: ToolContext, command: string): { onOutput: (text: string) => void; stop: () => void } {
  let tail = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastSent = performance.now();
  const send = () => {
    timer = undefined;
    lastSent = performance.now();
    void ctx.progress({ content: [{ type: "text", text: `$ ${command}\n\n\`\`\`\n${tail}\n\`\`\`` }] }).catch(() => {});
  };
  return {
    onOutput(text) {
      tail = (tail + text).slice(-LIVE_TAIL);
      timer ??= setTimeout(send, Math.max(0, LIVE_INTERVAL_MS - (performance.now() - lastSent)));
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** Builds the terminal tool; the registry is injectable so tests get their own. */
export function createTerminalTool(registry: ProcessRegistry = processRegistry) {
  return defineTool<TerminalParams>({
    name: "terminal",
    description,
    parameters: terminalParams,
    kind: "execute",
    title: (args) => `terminal: ${clip(args.command, 80)}`,
    locations: () => [],
    startContent: (args) => [{ type: "text", text: `$ ${args.command}` }],
    async run(args, ctx: ToolContext): Promise<ToolResult> {
      const { command } = args;
      // Approval comes before anything else touches the machine.
      const outcome = await ctx.approver.approveCommand(command, ctx.toolCallId, ctx.signal);
      if (!outcome.approved) return blocked(outcome.reason);

      const cwd = args.workdir ? resolveToolPath(ctx.cwd, args.workdir) : ctx.cwd;
      if (!isDirectory(cwd)) {
        return json({ output: "", exit_code: -1, error: `Working directory does not exist or is not a directory: ${cwd}` }, true);
      }

      if (args.background) {
        // Always local: a client terminal cannot be polled or written to the way `process` needs.
        try {
          const proc = registry.start(ctx.sessionId, command, { cwd });
          return json({ output: "Background process started", session_id: proc.id, pid: proc.pid }, false);
        } catch (e) {
          return json({ output: "", exit_code: -1, error: `Could not start the process: ${e instanceof Error ? e.message : String(e)}` }, true);
        }
      }

      const timeoutMs = timeoutMsOf(args.timeout, ctx.commandTimeoutS);
      const live = liveOutput(ctx, command);
      let result: CommandResult;
      try {
        result = await ctx.shell.run(command, {
          cwd,
          timeoutMs,
          signal: ctx.signal,
          outputLimit: OUTPUT_LIMIT,
          onStart: ({ terminalId }) => {
            if (terminalId) void ctx.progress({ content: [{ type: "terminal", terminalId }] }).catch(() => {});
          },
          onOutput: live.onOutput,
        });
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        return json({ output: "", exit_code: -1, error: `Could not run the command: ${e instanceof Error ? e.message : String(e)}` }, true);
      } finally {
        live.stop();
      }
      return foregroundResult(result, timeoutMs, ctx.signal);
    },
  });
}

export const terminalTool = createTerminalTool();
