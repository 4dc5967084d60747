/**
 * The per-session Approver: applies hardline blocks, allowlists, remembered answers, modes and
 * sensitive paths, and asks the user through a PermissionPort (the ACP bridge implements it with
 * `session/request_permission`). Every failure to get a real answer denies; only cancellation throws.
 */
import { log } from "../util/log.ts";
import { isAbsolute, relative, resolve } from "node:path";
import { z } from "zod";
import type { CardContent, Location } from "../agent/events.ts";
import type { ApprovalOutcome, Approver, EditProposal } from "../tools/types.ts";
import { approvalKeyAliases, classifyCommand, type DangerMatch } from "./dangerous-commands.ts";
import { decideEdit, type Mode } from "./edit-policy.ts";

export type PermissionOptionKind = "allow_once" | "allow_always" | "reject_once" | "reject_always";
export type PermissionOption = { optionId: string; name: string; kind: PermissionOptionKind };

export type PermissionAsk = {
  /** The id of the tool card the request belongs to. */
  toolCallId: string;
  title: string;
  kind: "execute" | "edit";
  content: CardContent[];
  rawInput: unknown;
  locations?: Location[];
  options: PermissionOption[];
};

export type PermissionAnswer = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };

export interface PermissionPort {
  /** May reject or never settle; the approver times out and aborts `signal` then. */
  ask(request: PermissionAsk, signal: AbortSignal): Promise<PermissionAnswer>;
}

export type SessionApproverDeps = {
  port: PermissionPort;
  getMode(): Mode;
  /** Session cwd (may change with the session). */
  getCwd(): string;
  home: string;
  hermesHome: string;
  tmpDir: string;
  /** config.yaml `command_allowlist`, read fresh each time. */
  commandAllowlist(): string[];
  /** Adds one entry to config.yaml `command_allowlist`, keeping the file's other keys and comments. */
  persistAllowlist(pattern: string): Promise<void>;
  /** Approves every non-hardline command and every non-sensitive edit. */
  yolo?: boolean;
  sudoPasswordSet?: boolean;
  /** How long to wait for an answer before denying (config `approvals.timeout`); default 60 s. */
  timeoutMs?: number;
};

export const DEFAULT_APPROVAL_TIMEOUT_MS = 60_000;
const DENIED_EDIT_KEY_PREFIX = "denied-edit:";

/** Thrown when the turn is cancelled while a permission request is pending. */
export class ApprovalCancelledError extends Error {
  override name = "AbortError";
  constructor() {
    super("Permission request cancelled");
  }
}

export const COMMAND_OPTIONS: readonly PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  // ACP has no session-scoped kind; the option id carries the meaning (hermes-behaviour §21.1).
  { optionId: "allow_session", name: "Allow for session", kind: "allow_always" },
  { optionId: "allow_always", name: "Allow always", kind: "allow_always" },
  { optionId: "deny", name: "Deny", kind: "reject_once" },
  { optionId: "deny_always", name: "Deny always", kind: "reject_always" },
];

export const EDIT_OPTIONS: readonly PermissionOption[] = [
  { optionId: "allow_once", name: "Allow edit", kind: "allow_once" },
  { optionId: "allow_session", name: "Allow edits for this session", kind: "allow_always" },
  { optionId: "deny", name: "Deny", kind: "reject_once" },
];

const USER_DENIED_COMMAND =
  "BLOCKED: User denied this command. The user has NOT consented to this action. Do NOT retry this command, " +
  "do NOT rephrase it, and do NOT attempt the same outcome via a different command. Stop the current workflow " +
  "and wait for the user to respond before taking any further destructive or irreversible action.";

// The port is implemented by the bridge from the client's reply: check it rather than trust it.
const answerSchema = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("selected"), optionId: z.string() }),
  z.object({ outcome: z.literal("cancelled") }),
]);

/** What came of one request, before mapping to tool semantics. */
type AskResult =
  | { type: "selected"; optionId: string }
  | { type: "timeout"; seconds: number }
  | { type: "unknown_option"; optionId: string }
  | { type: "failed"; message: string };

export class SessionApprover implements Approver {
  readonly #deps: SessionApproverDeps;
  readonly #sessionApprovedKeys = new Set<string>();
  readonly #sessionDeniedKeys = new Set<string>();
  /** Keys persisted with "allow always" from this session, in case the config is read from a cache. */
  readonly #alwaysKeys = new Set<string>();
  /** Files whose edit the user denied: the terminal must not write them behind the user's back. */
  readonly #deniedEditPaths = new Set<string>();
  #sessionAllowsEdits = false;

  constructor(deps: SessionApproverDeps) {
    this.#deps = deps;
  }

  get sessionAllowsEdits(): boolean {
    return this.#sessionAllowsEdits;
  }

  async approveCommand(command: string, toolCallId: string, signal: AbortSignal): Promise<ApprovalOutcome> {
    throwIfAborted(signal);
    const deps = this.#deps;
    const verdict = classifyCommand(command, {
      home: deps.home,
      hermesHome: deps.hermesHome,
      sudoPasswordSet: deps.sudoPasswordSet === true,
    });
    if (verdict.verdict === "hardline") {
      return {
        approved: false,
        reason:
          `BLOCKED (hardline): ${verdict.description}. This command is on the unconditional blocklist and cannot be ` +
          "run by the agent, not even in yolo mode. If it is truly needed, the user must run it themselves outside the agent.",
      };
    }
    const dangers: DangerMatch[] = verdict.verdict === "dangerous" ? [...verdict.matches] : [];
    if (deps.yolo !== true) dangers.push(...this.#deniedEditMatches(command));
    if (dangers.length === 0) return { approved: true };
    if (new Set(deps.commandAllowlist()).has(command.trim()) || this.#alwaysKeys.has(command.trim())) return { approved: true };
    return this.#approveDangers(dangers, toolCallId, signal, (description) => ({
      title: `${description}: ${command}`,
      text: `${description}\n$ ${command}`,
      rawInput: { command, description },
    }));
  }

  /**
   * MCP tools without a read-only hint: asked like a command, remembered per `mcp:<server>/<tool>`
   * (used by src/mcp/approval.ts when present).
   */
  approveMcpTool(
    request: { server: string; tool: string; toolName: string; args: Record<string, unknown>; destructive: boolean },
    toolCallId: string,
    signal: AbortSignal,
  ): Promise<ApprovalOutcome> {
    throwIfAborted(signal);
    const danger: DangerMatch = {
      description: `${request.destructive ? "destructive " : ""}MCP tool ${request.server}/${request.tool}`,
      key: `mcp:${request.server}/${request.tool}`,
    };
    const args = JSON.stringify(request.args, null, 2);
    return this.#approveDangers([danger], toolCallId, signal, (description) => ({
      title: `${description}`,
      text: `${description}\n${args.length > 2000 ? `${args.slice(0, 1997)}...` : args}`,
      rawInput: { tool: request.toolName, arguments: request.args },
    }));
  }

  /** The shared tail of command-style approval: allowlists, remembered answers, yolo, then ask. */
  async #approveDangers(
    dangers: DangerMatch[],
    toolCallId: string,
    signal: AbortSignal,
    show: (description: string) => { title: string; text: string; rawInput: unknown },
  ): Promise<ApprovalOutcome> {
    const deps = this.#deps;
    const allowlist = new Set([...deps.commandAllowlist(), ...this.#alwaysKeys]);
    const pending = dangers.filter(
      (danger) =>
        !this.#sessionApprovedKeys.has(danger.key) && !approvalKeyAliases(danger.key).some((alias) => allowlist.has(alias)),
    );
    if (pending.length === 0) return { approved: true };
    const denied = pending.find((danger) => this.#sessionDeniedKeys.has(danger.key));
    if (denied !== undefined) {
      return {
        approved: false,
        reason: `BLOCKED: the user chose "Deny always" for "${denied.description}" in this session. ${USER_DENIED_COMMAND.slice("BLOCKED: ".length)}`,
      };
    }
    if (deps.yolo === true) return { approved: true };

    const description = pending.map((danger) => danger.description).join("; ");
    // Edit-denial findings are session-scoped facts, not rules: never offer to allow them forever.
    const permanentCapable = pending.every((danger) => !danger.key.startsWith(DENIED_EDIT_KEY_PREFIX));
    const options = COMMAND_OPTIONS.filter((option) => permanentCapable || option.optionId !== "allow_always");
    const shown = show(description);
    const result = await this.#ask(
      {
        toolCallId,
        title: shown.title,
        kind: "execute",
        content: [{ type: "text", text: shown.text }],
        rawInput: shown.rawInput,
        options,
      },
      signal,
    );
    switch (result.type) {
      case "selected":
        return await this.#applyCommandChoice(result.optionId, pending);
      case "timeout":
        return { approved: false, reason: `BLOCKED: no answer within ${result.seconds}s to the approval request; the command was not run. Silence is not consent: do not retry it without asking the user.` };
      case "unknown_option":
        return { approved: false, reason: `BLOCKED: the approval answer "${result.optionId}" was not one of the offered options; the command was not run.` };
      case "failed":
        return { approved: false, reason: `BLOCKED: the approval request failed (${result.message}); the command was not run.` };
    }
  }

  async approveEdit(proposal: EditProposal, toolCallId: string, signal: AbortSignal): Promise<ApprovalOutcome> {
    throwIfAborted(signal);
    const deps = this.#deps;
    const cwd = deps.getCwd();
    const files = proposal.files.map((file) => ({ ...file, path: resolve(cwd, file.path) }));
    const paths = files.map((file) => file.path);
    const homes = { home: deps.home, hermesHome: deps.hermesHome };
    const decision = decideEdit(paths, {
      ...homes,
      mode: deps.getMode(),
      cwd,
      tmpDir: deps.tmpDir,
      sessionAllowsEdits: this.#sessionAllowsEdits || deps.yolo === true,
    });
    if (decision === "allow") return { approved: true };

    const [first] = files;
    const title = files.length === 1 && first !== undefined ? `Approve edit: ${first.path}` : `Approve edits: ${files.length} files`;
    const notModified = files.length === 1 ? "file was not modified." : "files were not modified.";
    const result = await this.#ask(
      {
        toolCallId,
        title,
        kind: "edit",
        content: files.map((file) => ({ type: "diff", path: file.path, oldText: file.oldText, newText: file.newText })),
        rawInput: { tool: proposal.toolName, arguments: proposal.rawInput },
        locations: paths.map((path) => ({ path })),
        options: [...EDIT_OPTIONS],
      },
      signal,
    );
    switch (result.type) {
      case "selected":
        if (result.optionId === "allow_once") return { approved: true };
        if (result.optionId === "allow_session") {
          // Sensitive paths keep asking: decideEdit checks them before sessionAllowsEdits.
          this.#sessionAllowsEdits = true;
          return { approved: true };
        }
        for (const path of paths) this.#deniedEditPaths.add(path);
        return { approved: false, reason: `Edit approval denied by the user; ${notModified}` };
      case "timeout":
        for (const path of paths) this.#deniedEditPaths.add(path);
        return { approved: false, reason: `Edit approval denied: no answer within ${result.seconds}s; ${notModified}` };
      case "unknown_option":
        return { approved: false, reason: `Edit approval denied: the answer "${result.optionId}" was not one of the offered options; ${notModified}` };
      case "failed":
        return { approved: false, reason: `Edit approval denied: the approval request failed (${result.message}); ${notModified}` };
    }
  }

  async #applyCommandChoice(optionId: string, pending: DangerMatch[]): Promise<ApprovalOutcome> {
    switch (optionId) {
      case "allow_once":
        return { approved: true };
      case "allow_session":
        for (const danger of pending) this.#sessionApprovedKeys.add(danger.key);
        return { approved: true };
      case "allow_always":
        for (const danger of pending) {
          this.#sessionApprovedKeys.add(danger.key);
          this.#alwaysKeys.add(danger.key);
          // A failed save still lets this run and the rest of the session; the next one asks again.
          await this.#deps.persistAllowlist(danger.key).catch((e) => log.warn("could not save the command allowlist", e));
        }
        return { approved: true };
      case "deny_always":
        for (const danger of pending) this.#sessionDeniedKeys.add(danger.key);
        return { approved: false, reason: USER_DENIED_COMMAND };
      default:
        return { approved: false, reason: USER_DENIED_COMMAND };
    }
  }

  /** Commands naming a file whose edit was denied ask again, so the user sees the second attempt. */
  #deniedEditMatches(command: string): DangerMatch[] {
    if (this.#deniedEditPaths.size === 0 || this.#deps.getMode() !== "default") return [];
    const cwd = this.#deps.getCwd();
    const found: DangerMatch[] = [];
    for (const path of this.#deniedEditPaths) {
      const rel = relative(cwd, path);
      const spellings = [path];
      if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) spellings.push(rel);
      if (spellings.some((spelling) => command.includes(spelling))) {
        found.push({ description: `touches ${path}, whose edit the user denied`, key: `${DENIED_EDIT_KEY_PREFIX}${path}` });
      }
    }
    return found;
  }

  async #ask(request: PermissionAsk, signal: AbortSignal): Promise<AskResult> {
    const timeoutMs = this.#deps.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    const seconds = Number((timeoutMs / 1000).toFixed(3));
    // Aborted on turn cancel and on timeout, so the bridge can withdraw the pending request.
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<"timeout" | "aborted">((done) => {
      timer = setTimeout(() => done("timeout"), timeoutMs);
      onAbort = () => {
        controller.abort(signal.reason);
        done("aborted");
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const answer = this.#deps.port.ask(request, controller.signal).then(
        (value: unknown) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const first = await Promise.race([answer, stop]);
      if (first === "aborted" || signal.aborted) throw new ApprovalCancelledError();
      if (first === "timeout") {
        controller.abort(new Error("permission request timed out"));
        return { type: "timeout", seconds };
      }
      if ("error" in first) return { type: "failed", message: errorMessage(first.error) };
      const parsed = answerSchema.safeParse(first.value);
      if (!parsed.success) return { type: "failed", message: "malformed answer" };
      if (parsed.data.outcome === "cancelled") throw new ApprovalCancelledError();
      const { optionId } = parsed.data;
      return request.options.some((option) => option.optionId === optionId)
        ? { type: "selected", optionId }
        : { type: "unknown_option", optionId };
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
    }
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new ApprovalCancelledError();
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
