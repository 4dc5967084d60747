import type { z } from "zod";
import type { CardContent, Location, ToolKind } from "../agent/events.ts";

/** Reads and writes text files: through the editor (unsaved buffers) when it offers that, else the disk. */
export interface FileSystem {
  /** Whole file as text. Rejects with an Error whose message is fit for the model when missing/unreadable. */
  readText(absPath: string): Promise<string>;
  /** Creates parent directories as needed. */
  writeText(absPath: string, content: string): Promise<void>;
}

export type EditProposal = {
  toolName: string;
  /** One entry per file the edit writes; oldText null for a new file. Paths are absolute. */
  files: { path: string; oldText: string | null; newText: string }[];
  rawInput: unknown;
};

export type ApprovalOutcome = { approved: true } | { approved: false; reason: string };

/**
 * Asks before side effects. Implementations apply modes, allowlists, sensitive paths and
 * remembered answers; tools only ask and obey.
 */
export interface Approver {
  approveEdit(proposal: EditProposal, toolCallId: string, signal: AbortSignal): Promise<ApprovalOutcome>;
  approveCommand(command: string, toolCallId: string, signal: AbortSignal): Promise<ApprovalOutcome>;
}

export type CommandResult = {
  output: string;
  exitCode: number | null;
  signal?: string | null;
  timedOut: boolean;
  truncated: boolean;
};

export type RunOptions = {
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Max bytes of output kept (the tail is kept). */
  outputLimit: number;
  env?: Record<string, string>;
  /** Called once the command started, e.g. with a client terminal id to embed in the card. */
  onStart?: (info: { terminalId?: string; pid?: number }) => void;
  /** Output as it arrives (local processes only: an editor's terminal shows its own). */
  onOutput?: (text: string) => void;
};

/** Runs shell commands: in the editor's terminal when it offers one, else as a local process group. */
export interface Shell {
  run(command: string, options: RunOptions): Promise<CommandResult>;
}

export type ToolResult = {
  /** What the model reads. */
  output: string;
  /** True when the tool failed (the model still gets `output`). */
  failed?: boolean;
  /** What the card shows at the end; when absent, display.ts formats `output`. */
  content?: CardContent[];
  rawOutput?: unknown;
};

export type ToolContext = {
  sessionId: string;
  toolCallId: string;
  /** The session cwd: the base for every relative path. */
  cwd: string;
  signal: AbortSignal;
  fs: FileSystem;
  shell: Shell;
  approver: Approver;
  /** Per-session state a tool keeps between calls (todo list, background processes…), keyed by tool. */
  state: Map<string, unknown>;
  /** Updates the running card (e.g. live terminal, progress text). */
  progress(update: { content?: CardContent[]; title?: string }): Promise<void>;
  /** Seconds a foreground command may run when the model names no timeout (config `terminal.timeout`; else 180). */
  commandTimeoutS?: number;
};

export type Tool<P> = {
  name: string;
  /** Model-facing description. */
  description: string;
  parameters: z.ZodType<P>;
  kind: ToolKind;
  title(args: P): string;
  locations(args: P, cwd: string): Location[];
  /** Content shown on the card when the call starts (before approval). */
  startContent?(args: P): CardContent[] | undefined;
  run(args: P, ctx: ToolContext): Promise<ToolResult>;
};

/** Erases the parameter type so tools of different shapes share one registry. */
export type AnyTool = Tool<never> & { parameters: z.ZodType<unknown> };

export function defineTool<P>(tool: Tool<P>): AnyTool {
  return tool as unknown as AnyTool;
}
