import { afterAll, describe, expect, test } from "bun:test";
import { SessionStore } from "../../src/session/store.ts";
import { lineageBase, nextTitleInLineage, numberedTitle, sanitizeTitle, uniqueTitle } from "../../src/session/titles.ts";
import { cleanupTempDirs, freshDbPath } from "./helpers.ts";

afterAll(cleanupTempDirs);

describe("sanitizeTitle (Hermes sanitize_title)", () => {
  test.each([
    ["  Fix   the\tbug \n", "Fix the bug"],
    ["a\u0000b\u0007c\u007f", "abc"],
    ["zero\u200bwidth\ufeff", "zerowidth"],
    ["bidi \u202eevil\u202c \u2066iso\u2069", "bidi evil iso"],
    ["line\u2028sep", "linesep"],
    ["nel\u0085space", "nel space"],
    ["", null],
    ["  \u200b \n ", null],
  ])("%j -> %j", (input, expected) => {
    expect(sanitizeTitle(input)).toBe(expected);
  });

  test("null/undefined -> null; long titles cut to 100 code points", () => {
    expect(sanitizeTitle(null)).toBeNull();
    expect(sanitizeTitle(undefined)).toBeNull();
    expect(sanitizeTitle("x".repeat(150))).toBe("x".repeat(100));
    const emoji = "😀".repeat(120);
    expect(Array.from(sanitizeTitle(emoji)!)).toHaveLength(100);
  });
});

describe("lineage numbering", () => {
  test("base, next number, length cap", () => {
    expect(lineageBase("Refactor #3")).toBe("Refactor");
    expect(lineageBase("Refactor")).toBe("Refactor");
    expect(nextTitleInLineage("Refactor", [])).toBe("Refactor");
    expect(nextTitleInLineage("Refactor", ["Refactor"])).toBe("Refactor #2");
    expect(nextTitleInLineage("Refactor #2", ["Refactor", "Refactor #2", "Refactor #7", "Refactoring #9"])).toBe("Refactor #8");
    const long = numberedTitle("y".repeat(100), 12);
    expect(long).toHaveLength(100);
    expect(long.endsWith(" #12")).toBe(true);
    const taken = new Set(["T", "T #2"]);
    expect(uniqueTitle("T", (t) => taken.has(t))).toBe("T #3");
    expect(uniqueTitle("U", (t) => taken.has(t))).toBe("U");
  });
});

describe("SessionStore titles", () => {
  test("setTitle sanitises, keeps titles unique, clears on empty, ignores unknown ids", () => {
    const store = SessionStore.open(freshDbPath());
    for (const id of ["a", "b", "c"]) store.createSession({ id, source: "acp" });
    expect(store.setTitle("a", " Plan\u200b the  work ")).toBe("Plan the work");
    expect(store.setTitle("a", "Plan the work")).toBe("Plan the work"); // its own title is not a clash
    expect(store.setTitle("b", "Plan the work")).toBe("Plan the work #2");
    expect(store.setTitle("c", "Plan the work")).toBe("Plan the work #3");
    expect(store.getSession("b")?.title).toBe("Plan the work #2");
    expect(store.setTitle("c", "   ")).toBeNull();
    expect(store.getSession("c")?.title).toBeNull();
    expect(store.setTitle("missing", "x")).toBeNull();
    store.createSession({ id: "d", source: "acp", title: "Plan the work" });
    expect(store.getSession("d")?.title).toBe("Plan the work #3");
    store.close();
  });

  test("continuations get the next lineage number, skipping numbers already taken", () => {
    const store = SessionStore.open(freshDbPath());
    store.createSession({ id: "root", source: "acp", title: "Store work" });
    store.createSession({ id: "other", source: "cli", title: "Store work #4" });
    store.rotateForCompression("root", "next", { source: "acp" });
    expect(store.getSession("next")?.title).toBe("Store work #5");
    store.close();
  });
});
