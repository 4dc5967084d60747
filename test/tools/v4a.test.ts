import { describe, expect, test } from "bun:test";
import { operationPaths, parseV4A, planV4A, type FileState, type PatchOperation } from "../../src/tools/v4a.ts";

function ops(patch: string): PatchOperation[] {
  const parsed = parseV4A(patch);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.operations;
}

function files(entries: Record<string, string>): Map<string, FileState> {
  return new Map(Object.entries(entries).map(([k, text]) => [k, { kind: "text", text }]));
}

function planError(patch: string, initial: Map<string, FileState>): string {
  const result = planV4A(ops(patch), initial);
  if (result.ok) throw new Error("expected a validation error");
  return result.error;
}

describe("parseV4A", () => {
  test("parses every operation kind", () => {
    const parsed = ops(
      [
        "*** Begin Patch",
        "*** Update File: src/a.py",
        "@@ def main @@",
        " def main():",
        "-    print('hi')",
        "+    print('hello')",
        "*** Add File: new.txt",
        "+hello",
        "*** Delete File: old.txt",
        "*** Move File: x.txt -> y/z.txt",
        "*** End Patch",
      ].join("\n"),
    );
    expect(parsed).toEqual([
      {
        kind: "update",
        path: "src/a.py",
        hunks: [
          {
            hint: "def main",
            lines: [
              { prefix: " ", content: "def main():" },
              { prefix: "-", content: "    print('hi')" },
              { prefix: "+", content: "    print('hello')" },
            ],
          },
        ],
      },
      { kind: "add", path: "new.txt", hunks: [{ hint: null, lines: [{ prefix: "+", content: "hello" }] }] },
      { kind: "delete", path: "old.txt" },
      { kind: "move", path: "x.txt", to: "y/z.txt" },
    ]);
    expect(operationPaths(parsed)).toEqual(["src/a.py", "new.txt", "old.txt", "x.txt", "y/z.txt"]);
  });

  test("tolerates marker spelling, text around markers, header spacing and CRLF", () => {
    const parsed = ops("Here is the patch:\n```\n***Begin Patch\r\n***   Update   File:   a.txt  \r\n-x\r\n+y\r\n*** End Patch ```\nignored trailing prose\n+not parsed");
    expect(parsed).toEqual([{ kind: "update", path: "a.txt", hunks: [{ hint: null, lines: [{ prefix: "-", content: "x" }, { prefix: "+", content: "y" }] }] }]);
  });

  test("missing Begin parses from the top; missing End parses to EOF", () => {
    expect(ops("*** Delete File: a\n*** Delete File: b")).toEqual([
      { kind: "delete", path: "a" },
      { kind: "delete", path: "b" },
    ]);
  });

  test("a hunk line mentioning a marker is content, not a marker", () => {
    const parsed = ops("*** Begin Patch\n*** Add File: doc.md\n+*** End Patch\n+done\n*** End Patch");
    expect(parsed[0]).toEqual({
      kind: "add",
      path: "doc.md",
      hunks: [{ hint: null, lines: [{ prefix: "+", content: "*** End Patch" }, { prefix: "+", content: "done" }] }],
    });
  });

  test("hints: @@ text @@, bare @@, codex-style @@ text; each @@ starts a new hunk", () => {
    const parsed = ops("*** Update File: a\n@@ class A @@\n-a\n+b\n@@\n-c\n+d\n@@ def f():\n-e\n+f");
    const hunks = parsed[0]?.kind === "update" ? parsed[0].hunks : [];
    expect(hunks.map((h) => h.hint)).toEqual(["class A", null, "def f():"]);
    expect(hunks.map((h) => h.lines.length)).toEqual([2, 2, 2]);
  });

  test("`\\` lines are skipped, unprefixed lines are context, inner blank lines are blank context, trailing ones dropped", () => {
    const parsed = ops("*** Update File: a\n@@\nfirst\n\n-old\n\\ No newline at end of file\n+new\n\n\n*** End Patch");
    const hunk = parsed[0]?.kind === "update" ? parsed[0].hunks[0] : undefined;
    expect(hunk?.lines).toEqual([
      { prefix: " ", content: "first" },
      { prefix: " ", content: "" },
      { prefix: "-", content: "old" },
      { prefix: "+", content: "new" },
    ]);
  });

  test("empty patch: no operations, not an error", () => {
    expect(parseV4A("*** Begin Patch\n*** End Patch")).toEqual({ ok: true, operations: [] });
    expect(parseV4A("")).toEqual({ ok: true, operations: [] });
  });

  test("parse errors: empty path, update without hunks, move without destination", () => {
    expect(parseV4A("*** Update File: a.txt\n*** Add File:   \n+x\n*** Move File: b.txt")).toEqual({
      ok: false,
      error: "Parse error: UPDATE 'a.txt': no hunks found; Operation with empty file path; MOVE 'b.txt': missing destination path (expected 'src -> dst')",
    });
  });
});

describe("planV4A validation (nothing is planned when anything fails)", () => {
  test.each([
    ["update of a missing file", "*** Update File: nope.txt\n-a\n+b", "nope.txt: file not found"],
    ["hunk not found", "*** Update File: a.txt\n-zzz\n+b", "a.txt: hunk 1 (no hint) not found — Could not find a match for old_string in the file"],
    ["ambiguous hunk", "*** Update File: a.txt\n@@ x @@\n-same\n+b", "a.txt: hunk 1 'x' not found — Found 2 matches for old_string."],
    ["addition-only hint missing", "*** Update File: a.txt\n@@ nowhere @@\n+b", "a.txt: addition-only hunk context hint 'nowhere' not found"],
    ["addition-only hint ambiguous", "*** Update File: a.txt\n@@ same @@\n+b", "a.txt: addition-only hunk context hint 'same' is ambiguous (2 occurrences)"],
    ["delete of a missing file", "*** Delete File: nope.txt", "nope.txt: file not found for deletion"],
    ["move of a missing source", "*** Move File: nope.txt -> z.txt", "nope.txt: source file not found for move"],
    ["move onto an existing file", "*** Move File: a.txt -> b.txt", "b.txt: destination already exists — move would overwrite"],
    ["add over an existing file", "*** Add File: b.txt\n+x", "b.txt: file already exists — use Update File, not Add File"],
  ])("%s", (_name, patch, expected) => {
    const error = planError(patch, files({ "a.txt": "same\nsame\nend\n", "b.txt": "B\n" }));
    expect(error).toStartWith(`Patch validation failed (no files were modified):\n  • ${expected}`);
  });

  test("collects every error as a bullet", () => {
    const error = planError("*** Delete File: x\n*** Update File: a.txt\n-zzz\n+y\n*** Move File: a.txt -> b.txt", files({ "a.txt": "A\n", "b.txt": "B\n" }));
    const bullets = error.split("\n").filter((l) => l.startsWith("  • "));
    expect(bullets).toHaveLength(3);
    expect(bullets[0]).toBe("  • x: file not found for deletion");
    expect(bullets[2]).toBe("  • b.txt: destination already exists — move would overwrite");
  });

  test("a no-match hunk error carries the closest sections of the simulated file", () => {
    const error = planError("*** Update File: a.txt\n-def load_all(paths, strict):\n+x", files({ "a.txt": "import os\n\ndef load(path):\n    pass\n" }));
    expect(error).toContain("Did you mean one of these sections?\n");
    expect(error).toContain("   3| def load(path):");
  });

  test("an unreadable file reports its read error", () => {
    const initial = new Map<string, FileState>([["bin.dat", { kind: "unreadable", error: "Permission denied: bin.dat" }]]);
    expect(planError("*** Update File: bin.dat\n-a\n+b", initial)).toContain("  • bin.dat: Permission denied: bin.dat");
  });
});

describe("planV4A apply simulation", () => {
  test("multi-file update/add/delete/move: one change per file with old and new text, effects in order", () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: a.txt",
      " keep",
      "-old",
      "+new",
      "*** Add File: dir/c.txt",
      "+line 1",
      "+line 2",
      "*** Delete File: d.txt",
      "*** Move File: m.txt -> moved/m.txt",
      "*** End Patch",
    ].join("\n");
    const result = planV4A(ops(patch), files({ "a.txt": "keep\nold\ntail\n", "d.txt": "D\n", "m.txt": "M\n" }));
    if (!result.ok) throw new Error(result.error);
    expect(result.plan.changes).toEqual([
      { key: "a.txt", path: "a.txt", oldText: "keep\nold\ntail\n", newText: "keep\nnew\ntail\n" },
      { key: "dir/c.txt", path: "dir/c.txt", oldText: null, newText: "line 1\nline 2" },
      { key: "d.txt", path: "d.txt", oldText: "D\n", newText: null },
      { key: "m.txt", path: "m.txt", oldText: "M\n", newText: null },
      { key: "moved/m.txt", path: "moved/m.txt", oldText: null, newText: "M\n" },
    ]);
    expect(result.plan.effects.map((e) => e.kind)).toEqual(["write", "write", "delete", "move"]);
    expect(result.plan.filesModified).toEqual(["a.txt", "m.txt -> moved/m.txt"]);
    expect(result.plan.filesCreated).toEqual(["dir/c.txt"]);
    expect(result.plan.filesDeleted).toEqual(["d.txt"]);
  });

  test("hunks apply sequentially: a later hunk sees the earlier one's result", () => {
    const result = planV4A(ops("*** Update File: a\n@@\n-one\n+two\n@@\n-two\n+three"), files({ a: "one\n" }));
    expect(result.ok && result.plan.changes[0]?.newText).toBe("three\n");
  });

  test("a move then an update of the destination validates against the moved content", () => {
    const result = planV4A(ops("*** Move File: a -> b\n*** Update File: b\n-x\n+y"), files({ a: "x\n" }));
    if (!result.ok) throw new Error(result.error);
    expect(result.plan.changes).toEqual([
      { key: "a", path: "a", oldText: "x\n", newText: null },
      { key: "b", path: "b", oldText: null, newText: "y\n" },
    ]);
    expect(result.plan.effects.map((e) => e.kind)).toEqual(["move", "write"]);
  });

  test("addition-only hunk goes after the line containing its unique hint", () => {
    const result = planV4A(ops("*** Update File: a\n@@ def f @@\n+    # added"), files({ a: "x = 1\ndef f():\n    pass\n" }));
    expect(result.ok && result.plan.changes[0]?.newText).toBe("x = 1\ndef f():\n    # added\n    pass\n");
  });

  test("addition-only hunk without a hint is appended at the end", () => {
    const result = planV4A(ops("*** Update File: a\n+tail"), files({ a: "x\n\n" }));
    expect(result.ok && result.plan.changes[0]?.newText).toBe("x\ntail\n");
  });

  test("a hunk ambiguous in the whole file is retried near its hint", () => {
    const text = `def a():\n    return 0\n${"# filler\n".repeat(400)}def b():\n    return 0\n`;
    const result = planV4A(ops("*** Update File: f.py\n@@ def b(): @@\n-    return 0\n+    return 1"), files({ "f.py": text }));
    if (!result.ok) throw new Error(result.error);
    expect(result.plan.changes[0]?.newText).toBe(text.replace("def b():\n    return 0", "def b():\n    return 1"));
  });

  test("context-only hunks are inert; keys come from keyOf", () => {
    const result = planV4A(ops("*** Update File: ./a\n@@\n ctx\n@@\n-xx\n+yy"), files({ "/abs/a": "ctx\nxx\n" }), (p) => `/abs/${p.replace("./", "")}`);
    if (!result.ok) throw new Error(result.error);
    expect(result.plan.changes).toEqual([{ key: "/abs/a", path: "./a", oldText: "ctx\nxx\n", newText: "ctx\nyy\n" }]);
  });
});
