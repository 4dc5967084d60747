import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { diskFileSystem } from "../../src/tools/disk-fs.ts";
import { patchTool, type PatchParams } from "../../src/tools/patch.ts";
import { resolveToolPath } from "../../src/tools/paths.ts";
import type { ApprovalOutcome, EditProposal, ToolContext, ToolResult } from "../../src/tools/types.ts";

/** Records every edit proposal and answers with a fixed outcome. */
class FakeApprover {
  readonly edits: EditProposal[] = [];
  constructor(
    private readonly outcome: ApprovalOutcome,
    private readonly onAsk?: () => void,
  ) {}
  async approveEdit(proposal: EditProposal): Promise<ApprovalOutcome> {
    this.edits.push(proposal);
    this.onAsk?.();
    return this.outcome;
  }
  async approveCommand(): Promise<ApprovalOutcome> {
    throw new Error("patch must not run commands");
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "patch-tool-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function context(approver: FakeApprover, controller = new AbortController()): ToolContext {
  return {
    sessionId: "s1",
    toolCallId: "tc-1",
    cwd: dir,
    signal: controller.signal,
    fs: diskFileSystem,
    shell: { run: async () => ({ output: "", exitCode: 0, timedOut: false, truncated: false }) },
    approver,
    state: new Map(),
    progress: async () => {},
  };
}

async function run(args: PatchParams, approver: FakeApprover, controller?: AbortController): Promise<ToolResult & { json: Record<string, unknown> }> {
  const parsed = patchTool.parameters.parse(args);
  const result = await patchTool.run(parsed as never, context(approver, controller));
  return { ...result, json: JSON.parse(result.output) as Record<string, unknown> };
}

const approveAll = (): FakeApprover => new FakeApprover({ approved: true });
const denyAll = (): FakeApprover => new FakeApprover({ approved: false, reason: "user chose Deny" });
const write = (name: string, text: string): string => {
  const p = join(dir, name);
  mkdirSync(join(p, ".."), { recursive: true });
  writeFileSync(p, text);
  return p;
};
const read = (name: string): string => readFileSync(join(dir, name), "utf8");

describe("resolveToolPath", () => {
  test.each([
    ["/work/s", "a/../b.txt", "/work/s/b.txt"],
    ["/work/s", "./x/./y", "/work/s/x/y"],
    ["/work/s", "/abs//p/../q", "/abs/q"],
    ["/work/s", "~", homedir()],
    ["/work/s", "~/notes.md", join(homedir(), "notes.md")],
    ["/work/s", "~user/x", "/work/s/~user/x"],
  ])("(%p, %p) → %p", (cwd, p, expected) => {
    expect(resolveToolPath(cwd, p)).toBe(expected);
  });
});

describe("patch tool: shape", () => {
  test("kind, title, locations, start content", () => {
    expect(patchTool.name).toBe("patch");
    expect(patchTool.kind).toBe("edit");
    expect(patchTool.description).toContain("*** Begin Patch");
    expect(patchTool.title({ path: "a.txt" } as never)).toBe("patch (replace): a.txt");
    expect(patchTool.title({ mode: "patch", patch: "x" } as never)).toBe("patch (patch): ?");
    expect(patchTool.title({ mode: null, path: null } as never)).toBe("patch (replace): ?");
    expect(patchTool.locations({ path: "src/a.ts" } as never, "/w")).toEqual([{ path: "/w/src/a.ts" }]);
    const v4a = "*** Begin Patch\n*** Update File: a.ts\n-x\n+y\n*** Move File: b.ts -> c/d.ts\n*** End Patch";
    expect(patchTool.locations({ mode: "patch", patch: v4a } as never, "/w")).toEqual([{ path: "/w/a.ts" }, { path: "/w/b.ts" }, { path: "/w/c/d.ts" }]);
    expect(patchTool.startContent?.({ path: "a.txt" } as never)).toEqual([
      { type: "text", text: "Preparing replace edit for a.txt. Approval prompt shows the diff." },
    ]);
  });

  test("arguments: nulls accepted, unknown mode rejected", () => {
    expect(patchTool.parameters.safeParse({ mode: null, path: "a", old_string: "x", new_string: "y", replace_all: null, patch: null }).success).toBe(true);
    expect(patchTool.parameters.safeParse({ mode: "rewrite" }).success).toBe(false);
  });
});

describe("patch tool: replace mode", () => {
  test("approved: one approval with the whole file before/after, then written; Hermes-shaped JSON and a diff card", async () => {
    const abs = write("src/app.py", "def main():\n    print('hi')\n");
    const approver = approveAll();
    const args = { path: "src/app.py", old_string: "print('hi')", new_string: "print('hello')" };
    const r = await run(args, approver);

    expect(read("src/app.py")).toBe("def main():\n    print('hello')\n");
    expect(approver.edits).toEqual([
      { toolName: "patch", files: [{ path: abs, oldText: "def main():\n    print('hi')\n", newText: "def main():\n    print('hello')\n" }], rawInput: args },
    ]);
    expect(r.failed).toBeUndefined();
    expect(r.json).toEqual({
      success: true,
      diff: "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n def main():\n-    print('hi')\n+    print('hello')\n",
      files_modified: ["src/app.py"],
      files_created: [],
      files_deleted: [],
      message: "Replaced 1 occurrence (exact match)",
    });
    expect(r.content).toEqual([{ type: "diff", path: abs, oldText: "def main():\n    print('hi')\n", newText: "def main():\n    print('hello')\n" }]);
  });

  test("denied: file byte-identical, failed result says it was not modified and why", async () => {
    const original = "a = 1\r\nb = 2\r\n";
    write("f.txt", original);
    const r = await run({ path: "f.txt", old_string: "a = 1", new_string: "a = 2" }, denyAll());
    expect(read("f.txt")).toBe(original);
    expect(r.failed).toBe(true);
    expect(r.json.success).toBe(false);
    expect(String(r.json.error)).toContain("the file was NOT modified");
    expect(String(r.json.error)).toContain("user chose Deny");
    expect(String(r.json.error)).toContain("Do not retry");
  });

  test("relative paths resolve against the session cwd, not process.cwd()", async () => {
    expect(process.cwd()).not.toBe(dir);
    const abs = write("only-in-session-cwd.txt", "hello\n");
    const approver = approveAll();
    await run({ path: "./only-in-session-cwd.txt", old_string: "hello", new_string: "bye" }, approver);
    expect(approver.edits[0]?.files[0]?.path).toBe(abs);
    expect(read("only-in-session-cwd.txt")).toBe("bye\n");
    expect(existsSync(join(process.cwd(), "only-in-session-cwd.txt"))).toBe(false);
  });

  test("fuzzy match with replace_all and re-indentation", async () => {
    write("m.py", "if a:\n    x = 1\nif b:\n    x = 1\n");
    const r = await run({ path: "m.py", old_string: "x = 1 ", new_string: "x = 2", replace_all: true }, approveAll());
    expect(read("m.py")).toBe("if a:\n    x = 2\nif b:\n    x = 2\n");
    expect(r.json.message).toBe("Replaced 2 occurrences (line_trimmed match)");
  });

  test.each([
    ["no path", { old_string: "a", new_string: "b" }, "path required"],
    ["no old_string", { path: "f.txt", new_string: "b" }, "old_string and new_string required"],
    ["no new_string", { path: "f.txt", old_string: "a" }, "old_string and new_string required"],
    ["identical", { path: "f.txt", old_string: "a", new_string: "a" }, "old_string and new_string are identical"],
    ["missing file", { path: "missing.txt", old_string: "a", new_string: "b" }, "Failed to read file: missing.txt"],
    ["not unique", { path: "f.txt", old_string: "line", new_string: "b" }, "Found 2 matches for old_string."],
  ])("model-fixable error (%s) → %p, nothing asked or written", async (_name, args, error) => {
    write("f.txt", "line one\nline two\n");
    const approver = approveAll();
    const r = await run(args, approver);
    expect(r.failed).toBe(true);
    expect(String(r.json.error)).toStartWith(error);
    expect(approver.edits).toHaveLength(0);
    expect(read("f.txt")).toBe("line one\nline two\n");
  });

  test("no match: the error carries the closest sections with line numbers", async () => {
    write("g.py", "import os\n\ndef load(path):\n    return open(path).read()\n");
    const r = await run({ path: "g.py", old_string: "def load_all(paths, strict):", new_string: "x" }, approveAll());
    expect(r.json.error).toStartWith("Could not find a match for old_string in the file\n\nDid you mean one of these sections?\n");
    expect(String(r.json.error)).toContain("   3| def load(path):");
  });

  test("cancellation after approval writes nothing and rejects", async () => {
    write("c.txt", "old\n");
    const controller = new AbortController();
    const approver = new FakeApprover({ approved: true }, () => controller.abort());
    await expect(run({ path: "c.txt", old_string: "old", new_string: "new" }, approver, controller)).rejects.toThrow();
    expect(read("c.txt")).toBe("old\n");
  });
});

describe("patch tool: V4A mode", () => {
  const threeFiles = [
    "*** Begin Patch",
    "*** Update File: src/a.py",
    "@@ def f @@",
    " def f():",
    "-    return 1",
    "+    return 2",
    "*** Add File: src/new.py",
    "+VALUE = 1",
    "*** Delete File: old.txt",
    "*** End Patch",
  ].join("\n");

  test("three files: exactly one approval carrying three files, then all applied", async () => {
    const a = write("src/a.py", "def f():\n    return 1\n");
    const old = write("old.txt", "bye\n");
    const approver = approveAll();
    const r = await run({ mode: "patch", patch: threeFiles }, approver);

    expect(approver.edits).toHaveLength(1);
    expect(approver.edits[0]?.files).toEqual([
      { path: a, oldText: "def f():\n    return 1\n", newText: "def f():\n    return 2\n" },
      { path: join(dir, "src/new.py"), oldText: null, newText: "VALUE = 1" },
      { path: old, oldText: "bye\n", newText: "" },
    ]);
    expect(read("src/a.py")).toBe("def f():\n    return 2\n");
    expect(read("src/new.py")).toBe("VALUE = 1");
    expect(existsSync(old)).toBe(false);
    expect(r.json).toMatchObject({
      success: true,
      files_modified: ["src/a.py"],
      files_created: ["src/new.py"],
      files_deleted: ["old.txt"],
      message: "Patch applied to 3 files",
    });
    const diff = String(r.json.diff);
    expect(diff).toContain("--- a/src/a.py\n+++ b/src/a.py\n");
    expect(diff).toContain("--- /dev/null\n+++ b/src/new.py\n");
    expect(diff).toContain("--- a/old.txt\n+++ /dev/null\n");
    expect(r.content?.map((c) => c.type)).toEqual(["diff", "diff", "diff"]);
  });

  test("denied: every file byte-identical and the output says no files were modified", async () => {
    write("src/a.py", "def f():\n    return 1\n");
    write("old.txt", "bye\n");
    const r = await run({ mode: "patch", patch: threeFiles }, denyAll());
    expect(read("src/a.py")).toBe("def f():\n    return 1\n");
    expect(read("old.txt")).toBe("bye\n");
    expect(existsSync(join(dir, "src/new.py"))).toBe(false);
    expect(r.failed).toBe(true);
    expect(String(r.json.error)).toContain("no files were modified");
    expect(String(r.json.error)).toContain("user chose Deny");
  });

  test("validation failure: nothing asked, nothing written, every problem listed", async () => {
    write("src/a.py", "def f():\n    return 1\n");
    const approver = approveAll();
    const r = await run({ mode: "patch", patch: threeFiles }, approver); // old.txt is missing
    expect(approver.edits).toHaveLength(0);
    expect(read("src/a.py")).toBe("def f():\n    return 1\n");
    expect(existsSync(join(dir, "src/new.py"))).toBe(false);
    expect(r.json.error).toBe("Patch validation failed (no files were modified):\n  • old.txt: file not found for deletion");
  });

  test("move on disk, then an update of the moved file", async () => {
    write("a.txt", "x\n");
    const patch = "*** Begin Patch\n*** Move File: a.txt -> sub/b.txt\n*** Update File: sub/b.txt\n-x\n+y\n*** End Patch";
    const r = await run({ mode: "patch", patch }, approveAll());
    expect(existsSync(join(dir, "a.txt"))).toBe(false);
    expect(read("sub/b.txt")).toBe("y\n");
    expect(r.json.files_modified).toEqual(["a.txt -> sub/b.txt", "sub/b.txt"]);
  });

  test("parse errors and missing patch text are model-readable", async () => {
    expect((await run({ mode: "patch" }, approveAll())).json.error).toBe("patch content required");
    expect((await run({ mode: "patch", patch: "*** Update File: a.txt\n" }, approveAll())).json.error).toBe(
      "Parse error: UPDATE 'a.txt': no hunks found",
    );
  });

  test("an empty patch succeeds without asking", async () => {
    const approver = approveAll();
    const r = await run({ mode: "patch", patch: "*** Begin Patch\n*** End Patch" }, approver);
    expect(r.json.success).toBe(true);
    expect(approver.edits).toHaveLength(0);
  });
});
