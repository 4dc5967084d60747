import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Mode } from "../../src/approvals/edit-policy.ts";
import {
  type PermissionAnswer,
  type PermissionAsk,
  type PermissionPort,
  SessionApprover,
  type SessionApproverDeps,
} from "../../src/approvals/session-approver.ts";
import type { EditProposal } from "../../src/tools/types.ts";

let root = "";
let ws = "";
let home = "";
let hermesHome = "";
let tmp = "";

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "session-approver-"));
  ws = join(root, "ws");
  home = join(root, "home");
  hermesHome = join(home, ".hermes");
  tmp = join(root, "tmp");
  for (const dir of [ws, hermesHome, tmp]) mkdirSync(dir, { recursive: true });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

type Reply = PermissionAnswer | "hang" | "reject" | ((request: PermissionAsk) => Promise<PermissionAnswer>);

/** Answers each request with the next scripted reply and records what it was asked. */
class FakePort implements PermissionPort {
  readonly requests: PermissionAsk[] = [];
  readonly signals: AbortSignal[] = [];
  constructor(private readonly replies: Reply[] = []) {}

  ask(request: PermissionAsk, signal: AbortSignal): Promise<PermissionAnswer> {
    this.requests.push(request);
    this.signals.push(signal);
    const reply = this.replies.shift();
    if (reply === undefined) throw new Error(`unexpected permission request: ${request.title}`);
    if (reply === "hang") return new Promise(() => {});
    if (reply === "reject") return Promise.reject(new Error("connection closed"));
    if (typeof reply === "function") return reply(request);
    return Promise.resolve(reply);
  }
}

const pick = (optionId: string): PermissionAnswer => ({ outcome: "selected", optionId });

function makeApprover(port: FakePort, overrides: Partial<SessionApproverDeps> & { mode?: Mode; allowlist?: string[] } = {}) {
  const persisted: string[] = [];
  const allowlist = overrides.allowlist ?? [];
  const approver = new SessionApprover({
    port,
    getMode: () => overrides.mode ?? "default",
    getCwd: () => ws,
    home,
    hermesHome,
    tmpDir: tmp,
    commandAllowlist: () => allowlist,
    persistAllowlist: async (pattern) => {
      persisted.push(pattern);
    },
    ...overrides,
  });
  return { approver, persisted };
}

const live = () => new AbortController().signal;

function edit(...names: string[]): EditProposal {
  return {
    toolName: "write_file",
    files: names.map((name) => ({ path: join(ws, name), oldText: null, newText: `content of ${name}\n` })),
    rawInput: { path: names[0], content: "x" },
  };
}

const DENIED_BY_USER = /^BLOCKED: User denied this command\. The user has NOT consented/;

describe("commands", () => {
  test("hardline is blocked without asking, even in yolo", async () => {
    const port = new FakePort();
    const { approver } = makeApprover(port, { yolo: true, allowlist: ["rm -rf /"] });
    const outcome = await approver.approveCommand("rm -rf /", "tc-1", live());
    expect(outcome.approved).toBe(false);
    expect(outcome.approved === false && outcome.reason).toStartWith("BLOCKED (hardline): recursive delete of root filesystem");
    expect(port.requests).toHaveLength(0);
  });

  test("safe commands run without asking", async () => {
    const port = new FakePort();
    const { approver } = makeApprover(port);
    expect(await approver.approveCommand("ls -la", "tc-1", live())).toEqual({ approved: true });
    expect(port.requests).toHaveLength(0);
  });

  test("a dangerous command asks with the tool card id, the description and the five options", async () => {
    const port = new FakePort([pick("allow_once")]);
    const { approver } = makeApprover(port);
    expect(await approver.approveCommand("rm -rf build", "call_abc", live())).toEqual({ approved: true });
    expect(port.requests).toEqual([
      {
        toolCallId: "call_abc",
        title: "recursive delete: rm -rf build",
        kind: "execute",
        content: [{ type: "text", text: "recursive delete\n$ rm -rf build" }],
        rawInput: { command: "rm -rf build", description: "recursive delete" },
        options: [
          { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
          { optionId: "allow_session", name: "Allow for session", kind: "allow_always" },
          { optionId: "allow_always", name: "Allow always", kind: "allow_always" },
          { optionId: "deny", name: "Deny", kind: "reject_once" },
          { optionId: "deny_always", name: "Deny always", kind: "reject_always" },
        ],
      },
    ]);
  });

  test("allow once: asks again next time", async () => {
    const port = new FakePort([pick("allow_once"), pick("allow_once")]);
    const { approver } = makeApprover(port);
    await approver.approveCommand("rm -rf build", "tc-1", live());
    expect(await approver.approveCommand("rm -rf dist", "tc-2", live())).toEqual({ approved: true });
    expect(port.requests).toHaveLength(2);
  });

  test("allow for session: the pattern is remembered for this session only", async () => {
    const port = new FakePort([pick("allow_session")]);
    const { approver, persisted } = makeApprover(port);
    expect(await approver.approveCommand("rm -rf build", "tc-1", live())).toEqual({ approved: true });
    expect(await approver.approveCommand("rm -r other", "tc-2", live())).toEqual({ approved: true });
    expect(port.requests).toHaveLength(1);
    expect(persisted).toEqual([]);
    // A different pattern still asks.
    const port2 = new FakePort([pick("deny")]);
    const other = makeApprover(port2).approver;
    expect((await other.approveCommand("rm -rf build", "tc-3", live())).approved).toBe(false);
    expect(port2.requests).toHaveLength(1);
  });

  test("allow always: persisted to the allowlist and not asked again", async () => {
    const port = new FakePort([pick("allow_always")]);
    const { approver, persisted } = makeApprover(port);
    expect(await approver.approveCommand("git reset --hard HEAD", "tc-1", live())).toEqual({ approved: true });
    expect(persisted).toEqual(["git reset --hard (destroys uncommitted changes)"]);
    expect(await approver.approveCommand("git reset --hard origin/main", "tc-2", live())).toEqual({ approved: true });
    expect(port.requests).toHaveLength(1);
    // Another session reading the saved allowlist does not ask either.
    const port2 = new FakePort();
    const fresh = makeApprover(port2, { allowlist: persisted }).approver;
    expect(await fresh.approveCommand("git reset --hard HEAD~2", "tc-3", live())).toEqual({ approved: true });
    expect(port2.requests).toHaveLength(0);
  });

  test("a failing save still approves this command", async () => {
    const port = new FakePort([pick("allow_always")]);
    const { approver } = makeApprover(port, { persistAllowlist: () => Promise.reject(new Error("read-only")) });
    expect(await approver.approveCommand("git clean -fd", "tc-1", live())).toEqual({ approved: true });
  });

  test("allowlisted exact command or legacy key runs without asking", async () => {
    const port = new FakePort();
    const { approver } = makeApprover(port, { allowlist: ["rm -rf build", "git\\s+reset\\s+--hard"] });
    expect(await approver.approveCommand("rm -rf build", "tc-1", live())).toEqual({ approved: true });
    expect(await approver.approveCommand("git reset --hard HEAD", "tc-2", live())).toEqual({ approved: true });
    expect(port.requests).toHaveLength(0);
  });

  test("deny: denied with a model-readable reason, asks again next time", async () => {
    const port = new FakePort([pick("deny"), pick("allow_once")]);
    const { approver } = makeApprover(port);
    const first = await approver.approveCommand("rm -rf build", "tc-1", live());
    expect(first.approved === false && first.reason).toMatch(DENIED_BY_USER);
    expect(await approver.approveCommand("rm -rf build", "tc-2", live())).toEqual({ approved: true });
    expect(port.requests).toHaveLength(2);
  });

  test("deny always: remembered for the session, later matches denied without asking", async () => {
    const port = new FakePort([pick("deny_always")]);
    const { approver } = makeApprover(port);
    expect((await approver.approveCommand("rm -rf build", "tc-1", live())).approved).toBe(false);
    const second = await approver.approveCommand("rm -r other", "tc-2", live());
    expect(second.approved).toBe(false);
    expect(second.approved === false && second.reason).toContain('"Deny always" for "recursive delete"');
    expect(port.requests).toHaveLength(1);
  });

  test("yolo approves dangerous commands without asking", async () => {
    const port = new FakePort();
    const { approver } = makeApprover(port, { yolo: true });
    expect(await approver.approveCommand("git push --force", "tc-1", live())).toEqual({ approved: true });
    expect(port.requests).toHaveLength(0);
  });

  test("several rules: the request names every one and a session answer covers all", async () => {
    const port = new FakePort([pick("allow_session")]);
    const { approver } = makeApprover(port);
    await approver.approveCommand("rm -r build && curl x | sh", "tc-1", live());
    expect(port.requests[0]?.title).toBe("recursive delete; pipe remote content to shell: rm -r build && curl x | sh");
    expect(await approver.approveCommand("curl y | sh", "tc-2", live())).toEqual({ approved: true });
    expect(port.requests).toHaveLength(1);
  });

  test("a session approval of one rule does not let a second rule through", async () => {
    const port = new FakePort([pick("allow_session"), pick("deny")]);
    const { approver } = makeApprover(port);
    await approver.approveCommand("rm -r build", "tc-1", live());
    const outcome = await approver.approveCommand("rm -r build; curl x | sh", "tc-2", live());
    expect(outcome.approved).toBe(false);
    expect(port.requests[1]?.title).toStartWith("pipe remote content to shell: ");
  });
});

describe("failure to answer (command and edit)", () => {
  const cases = [
    { name: "command", run: (a: SessionApprover, s: AbortSignal) => a.approveCommand("rm -rf build", "tc-1", s) },
    { name: "edit", run: (a: SessionApprover, s: AbortSignal) => a.approveEdit(edit("a.txt"), "tc-1", s) },
  ];
  for (const { name, run } of cases) {
    test(`${name}: timeout → denied, pending request withdrawn`, async () => {
      const port = new FakePort(["hang"]);
      const { approver } = makeApprover(port, { timeoutMs: 20 });
      const outcome = await run(approver, live());
      expect(outcome.approved).toBe(false);
      expect(outcome.approved === false && outcome.reason).toContain("no answer within 0.02s");
      if (name === "edit") expect(outcome).toEqual({ approved: false, reason: "Edit approval denied: no answer within 0.02s; file was not modified." });
      expect(port.signals[0]?.aborted).toBe(true);
    });

    test(`${name}: cancelled outcome → AbortError`, async () => {
      const port = new FakePort([{ outcome: "cancelled" }]);
      const { approver } = makeApprover(port);
      await expect(run(approver, live())).rejects.toMatchObject({ name: "AbortError" });
    });

    test(`${name}: turn cancelled while waiting → AbortError and the request is withdrawn`, async () => {
      const port = new FakePort(["hang"]);
      const { approver } = makeApprover(port);
      const turn = new AbortController();
      const pending = run(approver, turn.signal);
      setTimeout(() => turn.abort(), 5);
      await expect(pending).rejects.toMatchObject({ name: "AbortError" });
      await pending.catch(() => undefined);
      expect(port.signals[0]?.aborted).toBe(true);
    });

    test(`${name}: already-cancelled turn → AbortError without asking`, async () => {
      const port = new FakePort();
      const { approver } = makeApprover(port);
      const turn = new AbortController();
      turn.abort();
      await expect(run(approver, turn.signal)).rejects.toMatchObject({ name: "AbortError" });
      expect(port.requests).toHaveLength(0);
    });

    test(`${name}: unknown option id → denied`, async () => {
      const port = new FakePort([pick("approve_for_session")]);
      const { approver } = makeApprover(port);
      const outcome = await run(approver, live());
      expect(outcome.approved).toBe(false);
      expect(outcome.approved === false && outcome.reason).toContain("approve_for_session");
    });

    test(`${name}: port rejects → denied`, async () => {
      const port = new FakePort(["reject"]);
      const { approver } = makeApprover(port);
      const outcome = await run(approver, live());
      expect(outcome.approved).toBe(false);
      expect(outcome.approved === false && outcome.reason).toContain("connection closed");
    });

    test(`${name}: malformed answer → denied`, async () => {
      const port = new FakePort([async () => JSON.parse('{"outcome":"selected"}')]);
      const { approver } = makeApprover(port);
      expect((await run(approver, live())).approved).toBe(false);
    });
  }
});

describe("edits", () => {
  test("default mode asks with the real diff, the tool card id and three options", async () => {
    const port = new FakePort([pick("allow_once")]);
    const { approver } = makeApprover(port);
    const proposal: EditProposal = {
      toolName: "patch",
      files: [{ path: join(ws, "a.ts"), oldText: "old\n", newText: "new\n" }],
      rawInput: { path: "a.ts", old_string: "old", new_string: "new" },
    };
    expect(await approver.approveEdit(proposal, "call_7", live())).toEqual({ approved: true });
    expect(port.requests).toEqual([
      {
        toolCallId: "call_7",
        title: `Approve edit: ${join(ws, "a.ts")}`,
        kind: "edit",
        content: [{ type: "diff", path: join(ws, "a.ts"), oldText: "old\n", newText: "new\n" }],
        rawInput: { tool: "patch", arguments: { path: "a.ts", old_string: "old", new_string: "new" } },
        locations: [{ path: join(ws, "a.ts") }],
        options: [
          { optionId: "allow_once", name: "Allow edit", kind: "allow_once" },
          { optionId: "allow_session", name: "Allow edits for this session", kind: "allow_always" },
          { optionId: "deny", name: "Deny", kind: "reject_once" },
        ],
      },
    ]);
  });

  test("relative proposal paths are taken against the session cwd", async () => {
    const port = new FakePort([pick("allow_once")]);
    const { approver } = makeApprover(port);
    await approver.approveEdit({ toolName: "write_file", files: [{ path: "rel.txt", oldText: null, newText: "x" }], rawInput: {} }, "tc", live());
    expect(port.requests[0]?.title).toBe(`Approve edit: ${join(ws, "rel.txt")}`);
  });

  test("a multi-file patch is ONE request with one diff block per file", async () => {
    const port = new FakePort([pick("allow_once")]);
    const { approver } = makeApprover(port);
    await approver.approveEdit(edit("a.txt", "b.txt", "c.txt"), "tc-1", live());
    expect(port.requests).toHaveLength(1);
    const request = port.requests[0];
    expect(request?.title).toBe("Approve edits: 3 files");
    expect(request?.content.map((c) => (c.type === "diff" ? c.path : c.type))).toEqual([
      join(ws, "a.txt"),
      join(ws, "b.txt"),
      join(ws, "c.txt"),
    ]);
    expect(request?.locations).toHaveLength(3);
  });

  test("allow once asks again next time", async () => {
    const port = new FakePort([pick("allow_once"), pick("allow_once")]);
    const { approver } = makeApprover(port);
    await approver.approveEdit(edit("a.txt"), "tc-1", live());
    await approver.approveEdit(edit("a.txt"), "tc-2", live());
    expect(port.requests).toHaveLength(2);
  });

  test("allow edits for this session: later edits pass, sensitive paths still ask", async () => {
    const port = new FakePort([pick("allow_session"), pick("deny")]);
    const { approver } = makeApprover(port);
    expect(await approver.approveEdit(edit("a.txt"), "tc-1", live())).toEqual({ approved: true });
    expect(approver.sessionAllowsEdits).toBe(true);
    expect(await approver.approveEdit(edit("b.txt", "c.txt"), "tc-2", live())).toEqual({ approved: true });
    expect(port.requests).toHaveLength(1);
    expect(await approver.approveEdit(edit(".env"), "tc-3", live())).toEqual({
      approved: false,
      reason: "Edit approval denied by the user; file was not modified.",
    });
    expect(port.requests).toHaveLength(2);
  });

  test("deny → model-readable reason (plural for several files)", async () => {
    const port = new FakePort([pick("deny"), pick("deny")]);
    const { approver } = makeApprover(port);
    expect(await approver.approveEdit(edit("a.txt"), "tc-1", live())).toEqual({
      approved: false,
      reason: "Edit approval denied by the user; file was not modified.",
    });
    expect(await approver.approveEdit(edit("a.txt", "b.txt"), "tc-2", live())).toEqual({
      approved: false,
      reason: "Edit approval denied by the user; files were not modified.",
    });
  });

  test("accept_edits allows workspace edits without asking; dont_ask anything but sensitive paths", async () => {
    const port = new FakePort([pick("deny"), pick("deny")]);
    const accept = makeApprover(port, { mode: "accept_edits" }).approver;
    expect(await accept.approveEdit(edit("a.txt"), "tc-1", live())).toEqual({ approved: true });
    const outside = { toolName: "write_file", files: [{ path: join(root, "elsewhere.txt"), oldText: null, newText: "x" }], rawInput: {} };
    expect((await accept.approveEdit(outside, "tc-2", live())).approved).toBe(false);
    const dontAsk = makeApprover(port, { mode: "dont_ask" }).approver;
    expect(await dontAsk.approveEdit(outside, "tc-3", live())).toEqual({ approved: true });
    expect((await dontAsk.approveEdit(edit(".git/config"), "tc-4", live())).approved).toBe(false);
    expect(port.requests).toHaveLength(2);
  });

  test("yolo auto-allows edits except sensitive paths", async () => {
    const port = new FakePort([pick("deny")]);
    const { approver } = makeApprover(port, { yolo: true });
    expect(await approver.approveEdit(edit("a.txt"), "tc-1", live())).toEqual({ approved: true });
    const ssh = { toolName: "write_file", files: [{ path: join(home, ".ssh", "authorized_keys"), oldText: null, newText: "k" }], rawInput: {} };
    expect((await approver.approveEdit(ssh, "tc-2", live())).approved).toBe(false);
    expect(port.requests).toHaveLength(1);
  });

  test("after a denied edit, a terminal command naming that file asks (default mode), never offering 'always'", async () => {
    const port = new FakePort([pick("deny"), pick("deny")]);
    const { approver } = makeApprover(port);
    await approver.approveEdit(edit("notes.txt"), "tc-1", live());
    expect(await approver.approveCommand("ls", "tc-2", live())).toEqual({ approved: true });
    const outcome = await approver.approveCommand("echo hi > notes.txt", "tc-3", live());
    expect(outcome.approved).toBe(false);
    const request = port.requests[1];
    expect(request?.title).toBe(`touches ${join(ws, "notes.txt")}, whose edit the user denied: echo hi > notes.txt`);
    expect(request?.options.map((o) => o.optionId)).toEqual(["allow_once", "allow_session", "deny", "deny_always"]);
  });
});

describe("session memory", () => {
  test("two approvers never share answers", async () => {
    const port = new FakePort([pick("allow_session"), pick("allow_session"), pick("deny"), pick("deny")]);
    const a = makeApprover(port).approver;
    const b = makeApprover(port).approver;
    await a.approveCommand("rm -rf build", "tc-1", live());
    await a.approveEdit(edit("a.txt"), "tc-2", live());
    expect(b.sessionAllowsEdits).toBe(false);
    expect((await b.approveCommand("rm -rf build", "tc-3", live())).approved).toBe(false);
    expect((await b.approveEdit(edit("a.txt"), "tc-4", live())).approved).toBe(false);
    expect(port.requests).toHaveLength(4);
  });
});
