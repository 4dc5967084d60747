import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { diskFileSystem } from "../../src/tools/disk-fs.ts";
import { readFileTool } from "../../src/tools/read-file.ts";
import type { FileSystem, ToolContext } from "../../src/tools/types.ts";

let dir: string;

function ctx(fs: FileSystem = diskFileSystem): ToolContext {
  return {
    sessionId: "s1",
    toolCallId: "tc-1",
    cwd: dir,
    signal: new AbortController().signal,
    fs,
    shell: { run: () => Promise.reject(new Error("no shell in this test")) },
    approver: {
      approveEdit: () => Promise.reject(new Error("read_file must not ask")),
      approveCommand: () => Promise.reject(new Error("read_file must not ask")),
    },
    state: new Map(),
    progress: () => Promise.resolve(),
  };
}

const resultShape = z.object({
  content: z.string().optional(),
  total_lines: z.number().optional(),
  file_size: z.number().optional(),
  truncated: z.boolean().optional(),
  hint: z.string().optional(),
  error: z.string().optional(),
  similar_files: z.array(z.string()).optional(),
});

async function read(args: { path: string; offset?: number; limit?: number }, fs?: FileSystem) {
  const parsed = readFileTool.parameters.parse(args);
  const r = await readFileTool.run(parsed as never, ctx(fs));
  return { ...r, json: resultShape.parse(JSON.parse(r.output)) };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "read-file-"));
  writeFileSync(join(dir, "ten.txt"), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
  writeFileSync(join(dir, "crlf.txt"), "a\r\nb\r\n");
  writeFileSync(join(dir, "empty.txt"), "");
  writeFileSync(join(dir, "nul.txt"), "abc\0def");
  writeFileSync(join(dir, "pic.png"), "not really a png");
  writeFileSync(join(dir, "config.yaml"), "a: 1\n");
  writeFileSync(join(dir, "Config.yml"), "a: 1\n");
  writeFileSync(join(dir, "unrelated.md"), "x\n");
  writeFileSync(join(dir, "big.txt"), Array.from({ length: 1500 }, () => "x".repeat(199)).join("\n"));
  writeFileSync(join(dir, "long.txt"), Array.from({ length: 2500 }, (_, i) => `${i}`).join("\n"));
  mkdirSync(join(dir, "sub"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("read_file", () => {
  test("numbers lines like `     1|text` and reports totals", async () => {
    const { json, failed } = await read({ path: "ten.txt" });
    expect(failed).toBeUndefined();
    expect(json.content?.split("\n")[0]).toBe("     1|line 1");
    expect(json.content?.split("\n")).toHaveLength(10);
    expect(json.total_lines).toBe(10);
    expect(json.file_size).toBe(Buffer.byteLength(Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n") + "\n"));
    expect(json.truncated).toBe(false);
    expect(json.hint).toBeUndefined();
  });

  test("offset and limit page through the file with a continue hint", async () => {
    const { json } = await read({ path: "ten.txt", offset: 3, limit: 4 });
    expect(json.content).toBe(["     3|line 3", "     4|line 4", "     5|line 5", "     6|line 6"].join("\n"));
    expect(json.truncated).toBe(true);
    expect(json.hint).toBe("Use offset=7 to continue reading (showing 3-6 of 10 lines)");
    const last = await read({ path: "ten.txt", offset: 7, limit: 4 });
    expect(last.json.truncated).toBe(false);
    expect(last.json.content?.split("\n").at(-1)).toBe("    10|line 10");
  });

  test("offset past the end says so instead of returning silence", async () => {
    const { json, failed } = await read({ path: "ten.txt", offset: 50 });
    expect(failed).toBeUndefined();
    expect(json.content).toBe("");
    expect(json.hint).toContain("past the end");
  });

  test("limit is capped at 2000 lines", async () => {
    const { json } = await read({ path: "long.txt", limit: 5000 });
    expect(json.content?.split("\n")).toHaveLength(2000);
    expect(json.hint).toBe("Use offset=2001 to continue reading (showing 1-2000 of 2500 lines)");
  });

  test("CRLF endings are not shown; an empty file has no lines", async () => {
    const crlf = await read({ path: "crlf.txt" });
    expect(crlf.json.content).toBe("     1|a\n     2|b");
    const empty = await read({ path: "empty.txt" });
    expect(empty.json).toMatchObject({ content: "", total_lines: 0, truncated: false });
  });

  test("the ~100 KB character cap truncates with the same hint", async () => {
    const { json } = await read({ path: "big.txt", limit: 2000 });
    expect(json.total_lines).toBe(1500);
    expect(json.truncated).toBe(true);
    expect((json.content ?? "").length).toBeLessThanOrEqual(100_000);
    const shown = json.content?.split("\n").length ?? 0;
    expect(shown).toBeGreaterThan(400);
    expect(json.hint).toBe(`Use offset=${shown + 1} to continue reading (showing 1-${shown} of 1500 lines)`);
  });

  test("binary files are refused: NUL bytes and known extensions", async () => {
    const nul = await read({ path: "nul.txt" });
    expect(nul.failed).toBe(true);
    expect(nul.json.error).toMatch(/^Binary file .* not shown/);
    const png = await read({ path: "pic.png" });
    expect(png.failed).toBe(true);
    expect(png.json.error).toMatch(/^Binary file .*pic\.png.* not shown/);
  });

  test("a missing file is an error with similar names from the same directory", async () => {
    const { json, failed } = await read({ path: "config.yml" });
    expect(failed).toBe(true);
    expect(json.error).toBe(`File not found: ${join(dir, "config.yml")}`);
    expect(json.similar_files).toEqual([join(dir, "Config.yml"), join(dir, "config.yaml")]);
    expect(json.similar_files).not.toContain(join(dir, "unrelated.md"));
    const nothing = await read({ path: "zzzzzzzz-nothing-like-it.bin2" });
    expect(nothing.json.similar_files).toBeUndefined();
  });

  test("a directory is an error the model can act on", async () => {
    const { json, failed } = await read({ path: "sub" });
    expect(failed).toBe(true);
    expect(json.error).toBe(`Is a directory: ${join(dir, "sub")}`);
  });

  test("reads through ctx.fs (the editor buffer), resolving against the session cwd", async () => {
    const seen: string[] = [];
    const buffer: FileSystem = {
      readText: (p) => {
        seen.push(p);
        return Promise.resolve("unsaved\n");
      },
      writeText: () => Promise.reject(new Error("no writes")),
    };
    const { json } = await read({ path: "ten.txt" }, buffer);
    expect(seen).toEqual([join(dir, "ten.txt")]);
    expect(json.content).toBe("     1|unsaved");
  });

  test("title, kind and locations", () => {
    expect(readFileTool.kind).toBe("read");
    expect(readFileTool.title({ path: "a.txt" } as never)).toBe("read: a.txt");
    expect(readFileTool.locations({ path: "a.txt", offset: 5 } as never, "/w")).toEqual([{ path: "/w/a.txt", line: 5 }]);
    expect(readFileTool.locations({ path: "/abs/b.txt" } as never, "/w")).toEqual([{ path: "/abs/b.txt", line: 1 }]);
    expect(readFileTool.startContent?.({ path: "a.txt" } as never)).toBeUndefined();
  });
});
