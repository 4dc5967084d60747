import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { diskFileSystem } from "../../src/tools/disk-fs.ts";
import type { ApprovalOutcome, Approver, EditProposal, ToolContext } from "../../src/tools/types.ts";
import { writeFileTool } from "../../src/tools/write-file.ts";

const root = mkdtempSync(join(tmpdir(), "write-file-"));
let dir: string;
let n = 0;

/** Records every proposal; answers with the given outcome. */
class FakeApprover implements Approver {
  proposals: EditProposal[] = [];
  constructor(private readonly outcome: ApprovalOutcome) {}
  approveEdit(proposal: EditProposal): Promise<ApprovalOutcome> {
    this.proposals.push(proposal);
    return Promise.resolve(this.outcome);
  }
  approveCommand(): Promise<ApprovalOutcome> {
    return Promise.reject(new Error("write_file must not run commands"));
  }
}

function ctx(approver: Approver): ToolContext {
  return {
    sessionId: "s1",
    toolCallId: "tc-w",
    cwd: dir,
    signal: new AbortController().signal,
    fs: diskFileSystem,
    shell: { run: () => Promise.reject(new Error("no shell")) },
    approver,
    state: new Map(),
    progress: () => Promise.resolve(),
  };
}

const outputShape = z.object({
  success: z.boolean(),
  path: z.string().optional(),
  bytes_written: z.number().optional(),
  created: z.boolean().optional(),
  error: z.string().optional(),
});

async function write(args: { path: string; content: string }, approver: Approver) {
  const r = await writeFileTool.run(writeFileTool.parameters.parse(args) as never, ctx(approver));
  return { ...r, json: outputShape.parse(JSON.parse(r.output)) };
}

beforeEach(() => {
  dir = join(root, `case-${n++}`);
  mkdirSync(dir, { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("write_file", () => {
  test("asks before writing; approval writes the file and the card shows one diff", async () => {
    writeFileSync(join(dir, "a.txt"), "before\n");
    const approver = new FakeApprover({ approved: true });
    const r = await write({ path: "a.txt", content: "after\n" }, approver);
    expect(r.failed).toBeUndefined();
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("after\n");
    expect(approver.proposals).toEqual([
      { toolName: "write_file", files: [{ path: join(dir, "a.txt"), oldText: "before\n", newText: "after\n" }], rawInput: { path: "a.txt", content: "after\n" } },
    ]);
    expect(r.json).toEqual({ success: true, path: join(dir, "a.txt"), bytes_written: 6, created: false });
    expect(r.content).toEqual([{ type: "diff", path: join(dir, "a.txt"), oldText: "before\n", newText: "after\n" }]);
  });

  test("denial leaves the file untouched and tells the model", async () => {
    writeFileSync(join(dir, "a.txt"), "before\n");
    const approver = new FakeApprover({ approved: false, reason: "user declined" });
    const r = await write({ path: "a.txt", content: "after\n" }, approver);
    expect(r.failed).toBe(true);
    expect(r.json.success).toBe(false);
    expect(r.json.error).toContain("Edit approval denied");
    expect(r.json.error).toContain("not modified");
    expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("before\n");
  });

  test("a new file: oldText null, parent directories created, created=true", async () => {
    const approver = new FakeApprover({ approved: true });
    const r = await write({ path: "deep/er/new.txt", content: "héllo" }, approver);
    expect(approver.proposals[0]?.files[0]?.oldText).toBeNull();
    expect(readFileSync(join(dir, "deep/er/new.txt"), "utf8")).toBe("héllo");
    expect(r.json).toMatchObject({ success: true, created: true, bytes_written: 6 });
  });

  test("denied new file is not created", async () => {
    await write({ path: "nope.txt", content: "x" }, new FakeApprover({ approved: false, reason: "no" }));
    expect(existsSync(join(dir, "nope.txt"))).toBe(false);
  });

  test("relative paths resolve against ctx.cwd, not process.cwd()", async () => {
    const approver = new FakeApprover({ approved: true });
    await write({ path: "rel.txt", content: "x" }, approver);
    expect(approver.proposals[0]?.files[0]?.path).toBe(join(dir, "rel.txt"));
    expect(existsSync(join(dir, "rel.txt"))).toBe(true);
    expect(existsSync(join(process.cwd(), "rel.txt"))).toBe(false);
  });

  test("a directory target is refused before asking", async () => {
    mkdirSync(join(dir, "adir"));
    const approver = new FakeApprover({ approved: true });
    const r = await write({ path: "adir", content: "x" }, approver);
    expect(r.failed).toBe(true);
    expect(r.json.error).toBe(`Cannot edit non-file path: ${join(dir, "adir")}`);
    expect(approver.proposals).toHaveLength(0);
  });

  test("cancellation while waiting for approval throws and writes nothing", async () => {
    const controller = new AbortController();
    const approver: Approver = {
      approveEdit: (_p, _id, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason));
          controller.abort();
        }),
      approveCommand: () => Promise.reject(new Error("unused")),
    };
    const c = { ...ctx(approver), signal: controller.signal };
    const run = writeFileTool.run(writeFileTool.parameters.parse({ path: "c.txt", content: "x" }) as never, c);
    await expect(run).rejects.toBeDefined();
    expect(existsSync(join(dir, "c.txt"))).toBe(false);
  });

  test("title, kind, start content", () => {
    expect(writeFileTool.kind).toBe("edit");
    expect(writeFileTool.title({ path: "x.ts", content: "" } as never)).toBe("write: x.ts");
    expect(writeFileTool.startContent?.({ path: "x.ts", content: "" } as never)).toEqual([
      { type: "text", text: "Preparing write to x.ts. Approval prompt shows the diff." },
    ]);
  });
});
