import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { searchFiles, searchFilesTool, type SearchArgs, type SearchBackend } from "../../src/tools/search-files.ts";
import { findRg } from "../../src/tools/search-rg.ts";

const rg = findRg();
let root: string;
const signal = new AbortController().signal;

function put(rel: string, content: string | Uint8Array): void {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

const shape = z.object({
  total_count: z.number().optional(),
  matches: z.array(z.object({ path: z.string(), line: z.number(), content: z.string() }).passthrough()).optional(),
  files: z.array(z.string()).optional(),
  counts: z.array(z.object({ path: z.string(), count: z.number() })).optional(),
  truncated: z.boolean().optional(),
  hint: z.string().optional(),
  error: z.string().optional(),
});

async function search(args: SearchArgs, backend: SearchBackend = "builtin", cwd = root) {
  const r = await searchFiles(args, cwd, signal, { backend });
  return { ...r, json: shape.parse(JSON.parse(r.output)) };
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "search-files-"));
  mkdirSync(join(root, ".git", "info"), { recursive: true });
  writeFileSync(join(root, ".git", "info", "exclude"), "excluded.txt\n");
  put(".gitignore", "build/\n*.log\n");
  put("src/app.ts", "import x from 'y';\nconst TODO = 1;\n// todo: lower\nexport function main() {}\n");
  put("src/util.ts", "export const a = 1;\nexport const b = 2;\nexport const c = 3;\nTODO here\nexport const d = 4;\n");
  put("src/nested/.gitignore", "secret.ts\n!keep.log\n");
  put("src/nested/secret.ts", "TODO secret\n");
  put("src/nested/keep.log", "TODO kept by negation\n");
  put("src/nested/deep.ts", "TODO deep\n");
  put("app.log", "TODO ignored log\n");
  put("build/out.js", "TODO built\n");
  put("excluded.txt", "TODO excluded\n");
  put(".hidden/h.ts", "TODO hidden\n");
  put(".env", "TODO=hidden file\n");
  put("bin.dat", new Uint8Array([84, 79, 68, 79, 0, 1, 2]));
  put("crlf.txt", "TODO one\r\nTODO two$\r\n");
  put("README.md", "# Title\nNothing to see.\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("search_files content search (built-in)", () => {
  test("regex over contents, sorted by path then line, paths relative to the root", async () => {
    const { json } = await search({ pattern: "TODO" });
    expect(json.matches?.map((m) => `${m.path}:${m.line}`)).toEqual([
      "crlf.txt:1",
      "crlf.txt:2",
      "src/app.ts:2",
      "src/nested/deep.ts:1",
      "src/nested/keep.log:1",
      "src/util.ts:4",
    ]);
    expect(json.total_count).toBe(6);
    expect(json.truncated).toBe(false);
    expect(json.matches?.[0]?.content).toBe("TODO one");
  });

  test("skips hidden, .gitignore'd (nested too), .git/info/exclude'd and binary files", async () => {
    const { json } = await search({ pattern: "TODO" });
    const paths = new Set(json.matches?.map((m) => m.path));
    for (const skipped of ["app.log", "build/out.js", "excluded.txt", ".hidden/h.ts", ".env", "bin.dat", "src/nested/secret.ts"]) {
      expect(paths.has(skipped)).toBe(false);
    }
    expect(paths.has("src/nested/keep.log")).toBe(true); // re-included by a nested negation
  });

  test("case_sensitive=false and file_glob", async () => {
    const { json } = await search({ pattern: "todo", case_sensitive: false, file_glob: "*.ts" });
    // As with rg -g, a file matching the glob is searched even when .gitignore'd (secret.ts); ignored dirs stay pruned.
    expect(json.matches?.map((m) => `${m.path}:${m.line}`)).toEqual([
      "src/app.ts:2",
      "src/app.ts:3",
      "src/nested/deep.ts:1",
      "src/nested/secret.ts:1",
      "src/util.ts:4",
    ]);
    const excluded = await search({ pattern: "TODO", file_glob: "!*.txt" });
    expect(excluded.json.matches?.some((m) => m.path.endsWith(".txt"))).toBe(false);
  });

  test("$ anchors at the end of CRLF lines", async () => {
    const { json } = await search({ pattern: "two\\$$", path: "crlf.txt" });
    expect(json.matches).toEqual([{ path: "crlf.txt", line: 2, content: "TODO two$" }]);
  });

  test("context lines before and after each match", async () => {
    const { json } = await search({ pattern: "TODO here", context: 2 });
    expect(json.matches).toEqual([
      {
        path: "src/util.ts",
        line: 4,
        content: "TODO here",
        context_before: ["export const b = 2;", "export const c = 3;"],
        context_after: ["export const d = 4;"],
      },
    ]);
  });

  test("paging with offset/limit", async () => {
    const first = await search({ pattern: "TODO", limit: 4 });
    expect(first.json.matches).toHaveLength(4);
    expect(first.json.truncated).toBe(true);
    expect(first.json.hint).toContain("offset=4");
    const rest = await search({ pattern: "TODO", limit: 4, offset: 4 });
    expect(rest.json.matches?.map((m) => m.path)).toEqual(["src/nested/keep.log", "src/util.ts"]);
    expect(rest.json.truncated).toBe(false);
    expect(rest.json.total_count).toBe(6);
  });

  test("output modes: files_with_matches and count", async () => {
    const files = await search({ pattern: "TODO", output_mode: "files_with_matches" });
    expect(files.json.files).toEqual(["crlf.txt", "src/app.ts", "src/nested/deep.ts", "src/nested/keep.log", "src/util.ts"]);
    const counts = await search({ pattern: "TODO", output_mode: "count" });
    expect(counts.json.counts?.[0]).toEqual({ path: "crlf.txt", count: 2 });
  });

  test("a sub-path and a single file as the root", async () => {
    const sub = await search({ pattern: "TODO", path: "src/nested" });
    expect(sub.json.matches?.map((m) => m.path)).toEqual(["deep.ts", "keep.log"]);
    const file = await search({ pattern: "TODO", path: "src/nested/secret.ts" });
    expect(file.json.matches?.map((m) => m.path)).toEqual(["secret.ts"]); // explicit paths are searched even if ignored
  });

  test("an ignored directory given explicitly is still searched (as rg does)", async () => {
    const { json } = await search({ pattern: "TODO", path: "build" });
    expect(json.matches?.map((m) => m.path)).toEqual(["out.js"]);
  });

  test("invalid regex and missing path are model-readable errors", async () => {
    const bad = await search({ pattern: "foo(" });
    expect(bad.failed).toBe(true);
    expect(bad.json.error).toStartWith("Invalid regex pattern 'foo(':");
    const missing = await search({ pattern: "x", path: "nope" });
    expect(missing.failed).toBe(true);
    expect(missing.json.error).toBe(`Path not found: ${join(root, "nope")}`);
  });
});

describe("search_files file-name search (built-in)", () => {
  test("glob, regex and plain text", async () => {
    expect((await search({ pattern: "*.ts", target: "files" })).json.files).toEqual(["src/app.ts", "src/nested/deep.ts", "src/util.ts"]);
    expect((await search({ pattern: "^(app|util)\\.ts$", target: "files" })).json.files).toEqual(["src/app.ts", "src/util.ts"]);
    expect((await search({ pattern: "readme", target: "files" })).json.files).toEqual(["README.md"]);
    expect((await search({ pattern: "src/*.ts", target: "files" })).json.files).toEqual(["src/app.ts", "src/util.ts"]);
  });

  test("paging and total_count", async () => {
    const { json } = await search({ pattern: "", target: "files", limit: 2, offset: 1 });
    expect(json.total_count).toBe(7);
    expect(json.files).toEqual(["bin.dat", "crlf.txt"]); // file listing does not look inside files
    expect(json.truncated).toBe(true);
  });
});

describe("search_files tool shape", () => {
  test("title, kind, start content, locations", () => {
    const args = { pattern: "TODO", path: "src" };
    expect(searchFilesTool.kind).toBe("search");
    expect(searchFilesTool.title(args as never)).toBe("search: TODO");
    expect(searchFilesTool.startContent?.(args as never)).toEqual([{ type: "text", text: "Searching for 'TODO' (content) in src" }]);
    expect(searchFilesTool.locations(args as never, "/w")).toEqual([{ path: "/w/src" }]);
  });
});

/** A generated tree mixing everything the two backends must agree on. */
function generate(base: string): void {
  mkdirSync(join(base, ".git", "info"), { recursive: true });
  writeFileSync(join(base, ".git", "info", "exclude"), "*.excl\n");
  writeFileSync(join(base, ".gitignore"), "gen_3/\n*.tmp\n!keep.tmp\n");
  for (let d = 0; d < 8; d++) {
    const dir = join(base, `gen_${d}`, d % 2 ? "inner" : "");
    mkdirSync(dir, { recursive: true });
    if (d === 5) writeFileSync(join(dir, ".gitignore"), "*.md\n");
    for (let f = 0; f < 15; f++) {
      const ext = ["ts", "md", "tmp", "excl", "py"][f % 5];
      const lines = Array.from({ length: 30 }, (_, l) => ((l + f + d) % 7 === 0 ? `needle ${d}-${f}-${l} Needle` : `filler ${l} ${"x".repeat(l)}`));
      writeFileSync(join(dir, `f${f}.${ext}`), `${lines.join(f % 3 ? "\n" : "\r\n")}\n`);
    }
    writeFileSync(join(dir, "keep.tmp"), "needle kept\n");
    writeFileSync(join(dir, ".dot.ts"), "needle hidden\n");
    writeFileSync(join(dir, "late-nul.txt"), `needle early\n${"pad\n".repeat(20000)}\0needle after\n`);
  }
}

describe.skipIf(!rg)("rg and built-in produce identical output", () => {
  let gen: string;
  beforeAll(() => {
    gen = mkdtempSync(join(tmpdir(), "search-parity-"));
    generate(gen);
  });
  afterAll(() => rmSync(gen, { recursive: true, force: true }));

  const cases: SearchArgs[] = [
    { pattern: "needle", limit: 1000 },
    { pattern: "needle \\d+-\\d+", case_sensitive: false, limit: 1000 },
    { pattern: "^needle.*Needle$", limit: 1000 },
    { pattern: "needle", context: 2, limit: 30, offset: 5 },
    { pattern: "needle", file_glob: "*.ts", limit: 1000 },
    { pattern: "needle", file_glob: "!*.md", output_mode: "count", limit: 1000 },
    { pattern: "needle", path: "gen_1", output_mode: "files_with_matches" },
    { pattern: "needle", path: "gen_3" },
    { pattern: "(?<=needle )\\d", limit: 1000 },
    { pattern: "*.ts", target: "files", limit: 1000 },
    { pattern: "", target: "files", limit: 1000 },
    { pattern: "", target: "files", file_glob: "*.tmp", limit: 1000 },
  ];
  for (const args of cases) {
    test(JSON.stringify(args), async () => {
      const a = await searchFiles(args, gen, signal, { backend: "builtin" });
      const b = await searchFiles(args, gen, signal, { backend: "rg" });
      expect(b.output).toBe(a.output);
      expect(JSON.parse(a.output)).not.toHaveProperty("error");
    });
  }
});
