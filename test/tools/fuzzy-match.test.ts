import { describe, expect, test } from "bun:test";
import { closestSnippets, findMatches, fuzzyFindAndReplace, noMatchHint, STRATEGY_NAMES } from "../../src/tools/fuzzy-match.ts";
import { quickRatio, ratio, realQuickRatio, similarAtLeast } from "../../src/tools/similarity.ts";

describe("similarity (difflib SequenceMatcher semantics)", () => {
  // Expected values computed with CPython 3.11 difflib.
  test.each([
    ["abcd", "bcde", 0.75],
    ["private Thread currentThread;", "private volatile Thread currentThread;", 0.8656716417910447],
    ["alpha = compute(1)", "beta = compute(2)", 0.7428571428571429],
    ["beta = compte(2)", "beta = compute(2)", 0.9696969696969697],
    ["", "", 1],
    ["abc", "", 0],
    // b ≥ 200 chars: every character is "popular" (autojunk), so nothing matches.
    ["a".repeat(10) + "b".repeat(300), "b".repeat(150) + "a".repeat(5) + "c".repeat(100), 0],
  ])("ratio(%p, %p) = %p", (a, b, expected) => {
    expect(ratio(a, b)).toBeCloseTo(expected, 12);
    expect(quickRatio(a, b)).toBeGreaterThanOrEqual(ratio(a, b) - 1e-12);
    expect(realQuickRatio(a, b)).toBeGreaterThanOrEqual(quickRatio(a, b) - 1e-12);
  });

  test("similarAtLeast agrees with ratio", () => {
    expect(similarAtLeast("beta = compte(2)", "beta = compute(2)", 0.8)).toBe(true);
    expect(similarAtLeast("alpha = compute(1)", "beta = compute(2)", 0.8)).toBe(false);
  });
});

describe("fuzzyFindAndReplace strategies (each case is solved by that strategy alone: earlier ones fail)", () => {
  const cases: { strategy: string; content: string; old: string; new: string; expected: string }[] = [
    { strategy: "exact", content: "a = 1\nb = 2\n", old: "b = 2", new: "b = 3", expected: "a = 1\nb = 3\n" },
    {
      strategy: "line_trimmed",
      content: "def f():\n    x = 1\n    y = 2\n",
      old: "x = 1  \n  y = 2",
      new: "x = 10\ny = 20",
      expected: "def f():\n    x = 10\n    y = 20\n",
    },
    { strategy: "whitespace_normalized", content: "call(a,   b)\nnext\n", old: "call(a, b)", new: "call(a, c)", expected: "call(a, c)\nnext\n" },
    {
      strategy: "escape_normalized",
      content: "line one\nline two\n",
      old: "line one\\nline two",
      new: "line 1\nline 2",
      expected: "line 1\nline 2\n",
    },
    {
      strategy: "unicode_normalized",
      content: "print(\u201chello\u201d)  # \u2014 greet\n",
      old: 'print("hello")  # -- greet',
      new: 'print("bye")  # -- greet',
      expected: 'print("bye")  # -- greet\n',
    },
    {
      strategy: "block_anchor",
      content: "function f() {\n  const a = 1;\n  const b = 2;\n  return a + b;\n}\n",
      old: "function f() {\n  const a = 1;\n  const b = 3;\n  return a + b;\n}",
      new: "function f() {\n  return 42;\n}",
      expected: "function f() {\n  return 42;\n}\n",
    },
    {
      strategy: "context_aware",
      content: "header()\nalpha = compute(1)\nbeta = compute(2)\nsomething else entirely\nfooter()\n",
      old: "alpha = compute(1)\nbeta = compte(2)\nxyz",
      new: "replaced()",
      expected: "header()\nreplaced()\nfooter()\n",
    },
  ];
  test.each(cases)("$strategy", (c) => {
    const r = fuzzyFindAndReplace(c.content, c.old, c.new, false);
    expect(r).toEqual({ content: c.expected, count: 1, strategy: c.strategy, error: null });
    // Independently: every earlier strategy finds nothing on this input.
    for (const earlier of STRATEGY_NAMES.slice(0, STRATEGY_NAMES.indexOf(c.strategy))) {
      expect(findMatches(earlier, c.content, c.old)).toEqual([]);
    }
  });

  test("the nine strategies run in Hermes' order", () => {
    expect(STRATEGY_NAMES).toEqual([
      "exact",
      "line_trimmed",
      "whitespace_normalized",
      "indentation_flexible",
      "escape_normalized",
      "trimmed_boundary",
      "unicode_normalized",
      "block_anchor",
      "context_aware",
    ]);
  });

  // These two are shadowed by line_trimmed in the chain (as in Hermes), so they are tested directly.
  test("indentation_flexible matches left-trimmed lines only", () => {
    const content = "if x:\n      go()\n    done()\n";
    expect(findMatches("indentation_flexible", content, "  go()\ndone()")).toEqual([[6, 27]]);
    expect(findMatches("indentation_flexible", content, "go() \ndone()")).toEqual([]);
  });

  test("trimmed_boundary trims only the first and last line", () => {
    const content = "  start\n    middle\n  end\n";
    expect(findMatches("trimmed_boundary", content, "start\n    middle\nend  ")).toEqual([[0, 24]]);
    expect(findMatches("trimmed_boundary", content, "start\nmiddle\nend")).toEqual([]);
  });

  test("block_anchor thresholds: 0.50 with one candidate, 0.70 with several", () => {
    const old = "begin\nalpha beta gamma\nend";
    // Middle ratio ≈ 0.6: accepted alone, rejected when another candidate exists.
    const lone = "begin\nalpha beta zzzzzz\nend\n";
    expect(ratio("alpha beta zzzzzz", "alpha beta gamma")).toBeGreaterThan(0.5);
    expect(ratio("alpha beta zzzzzz", "alpha beta gamma")).toBeLessThan(0.7);
    expect(findMatches("block_anchor", lone, old)).toEqual([[0, 27]]);
    const two = `${lone}begin\nalpha beta gamm\nend\n`;
    expect(findMatches("block_anchor", two, old)).toEqual([[28, 53]]);
    // A completely different middle is rejected even alone.
    expect(findMatches("block_anchor", "begin\n0123456789\nend\n", old)).toEqual([]);
  });

  test("block_anchor compares anchors after unicode normalisation", () => {
    expect(findMatches("block_anchor", "say \u201chi\u201d\nmiddle line\nend\n", 'say "hi"\nmiddle lime\nend')).toEqual([[0, 24]]);
  });

  test("context_aware needs at least half the lines similar (≥ 0.80)", () => {
    const content = "one = first()\ntwo = second()\nthree = third()\nfour = fourth()\n";
    expect(findMatches("context_aware", content, "one = first()\ntwo = secnd()\nXXXXX\nYYYYY")).toEqual([[0, 60]]);
    expect(findMatches("context_aware", content, "one = first()\nQQQQQ\nXXXXX\nYYYYY")).toEqual([]);
  });

  test("whitespace_normalized absorbs a trailing collapsed run but not a word boundary", () => {
    const content = "x  =  1;   y = 2";
    expect(fuzzyFindAndReplace(content, "x = 1; ", "x = 9; ", false).content).toBe("x = 9; y = 2");
    expect(fuzzyFindAndReplace(content, "x = 1;", "x = 9;", false).content).toBe("x = 9;   y = 2");
  });

  test("unicode_normalized maps positions back across expanding characters", () => {
    const content = "a \u2014 b \u2026 c\ntail";
    const r = fuzzyFindAndReplace(content, "b ... c", "B", false);
    expect(r).toMatchObject({ content: "a \u2014 B\ntail", strategy: "unicode_normalized" });
  });
});

describe("fuzzyFindAndReplace guards and errors", () => {
  test.each([
    ["", "x", "old_string cannot be empty"],
    ["same", "same", "old_string and new_string are identical"],
  ])("old=%p new=%p → %p", (old, replacement, error) => {
    expect(fuzzyFindAndReplace("same text", old, replacement, false)).toEqual({ content: "same text", count: 0, strategy: null, error });
  });

  test("no match", () => {
    expect(fuzzyFindAndReplace("abc\n", "zzz", "y", false)).toEqual({
      content: "abc\n",
      count: 0,
      strategy: null,
      error: "Could not find a match for old_string in the file",
    });
  });

  test("several matches without replace_all is an error naming the count", () => {
    const r = fuzzyFindAndReplace("x = 1\nx = 1\nx = 1\n", "x = 1", "x = 2", false);
    expect(r.error).toBe("Found 3 matches for old_string. Provide more context to make it unique, or use replace_all=True.");
    expect(r.count).toBe(0);
  });

  test("replace_all replaces every occurrence", () => {
    expect(fuzzyFindAndReplace("x = 1\ny\nx = 1\n", "x = 1", "x = 2", true)).toEqual({
      content: "x = 2\ny\nx = 2\n",
      count: 2,
      strategy: "exact",
      error: null,
    });
  });

  test("replace_all under a fuzzy strategy re-indents each match to its own region", () => {
    const content = "a:\n  v = 1\nb:\n      v = 1\n";
    const r = fuzzyFindAndReplace(content, "v = 1 ", "v = 2", true);
    expect(r).toMatchObject({ content: "a:\n  v = 2\nb:\n      v = 2\n", count: 2, strategy: "line_trimmed" });
  });

  test("overlapping exact occurrences count for uniqueness; replace_all keeps str.replace semantics", () => {
    expect(fuzzyFindAndReplace("aaa", "aa", "X", false).error).toStartWith("Found 2 matches");
    expect(fuzzyFindAndReplace("aaa", "aa", "X", true)).toMatchObject({ content: "Xa", count: 1 });
  });

  test("escape drift under a fuzzy strategy is refused", () => {
    const content = "def f():\n    msg = 'it is'\n    return msg\n";
    const r = fuzzyFindAndReplace(content, "def f():\n    msg = \\'it is\\'\n    return msg", "def f():\n    msg = \\'it was\\'\n    return msg", false);
    expect(r.count).toBe(0);
    expect(r.content).toBe(content);
    expect(r.error).toStartWith(`Escape-drift detected: old_string and new_string contain the literal sequence "\\\\'" but the matched region`);
    expect(r.error).toContain(`without backslash-escaping "'" characters.`);
  });

  test("escaped quotes that really are in the file are kept", () => {
    const content = "  s = 'it\\'s'\n";
    const r = fuzzyFindAndReplace(content, "s = 'it\\'s'", "s = 'it\\'s ok'", false);
    expect(r).toMatchObject({ content: "  s = 'it\\'s ok'\n", strategy: "exact" });
    const fuzzy = fuzzyFindAndReplace("x:\n  s = 'it\\'s'\n", "s = 'it\\'s' ", "s = 'it\\'s ok'", false);
    expect(fuzzy).toMatchObject({ content: "x:\n  s = 'it\\'s ok'\n", strategy: "line_trimmed" });
  });

  test("literal \\t in new_string becomes a tab only where the region has tabs", () => {
    const tabbed = fuzzyFindAndReplace("if x:\n\tfoo()\n", "if x:\n  foo()", "if x:\n\\tbar()", false);
    expect(tabbed).toMatchObject({ content: "if x:\n\tbar()\n", strategy: "line_trimmed" });
    const literal = fuzzyFindAndReplace('sep = "\\t"\n', 'sep = "\\t"', 'sep = "\\t\\t"', false);
    expect(literal.content).toBe('sep = "\\t\\t"\n');
  });

  test("literal \\r becomes CR only in a CRLF region", () => {
    const r = fuzzyFindAndReplace("a\r\nb\r\n", "a\nb", "a\\r\nc", false);
    expect(r.strategy).toBe("line_trimmed");
    expect(r.content).toBe("a\r\nc\r\n");
    expect(fuzzyFindAndReplace("a\nb\n", "a\nb", "a\\r\nc", false).content).toBe("a\\r\nc\n");
  });

  test("a line-based match in a CRLF file keeps CRLF endings", () => {
    const r = fuzzyFindAndReplace("x\r\n  a\r\n  b\r\ny\r\n", "a\nb", "a\nB\nC", false);
    expect(r).toMatchObject({ content: "x\r\n  a\r\n  B\r\n  C\r\ny\r\n", strategy: "line_trimmed" });
  });

  test("re-indentation anchors the model's indent to the file's", () => {
    const content = "class A:\n    def f(self):\n        return 1\n";
    const r = fuzzyFindAndReplace(content, "  def f(self):\n      return 1", "  def f(self):\n      return 2\n  # done", false);
    expect(r).toMatchObject({ content: "class A:\n    def f(self):\n        return 2\n    # done\n", strategy: "line_trimmed" });
  });

  test("exact matches are never re-indented", () => {
    expect(fuzzyFindAndReplace("    x = 1\n", "x = 1", "y = 2\n  z = 3", false).content).toBe("    y = 2\n  z = 3\n");
  });
});

describe("closestSnippets", () => {
  const content = ["import os", "", "def load(path):", "    with open(path) as f:", "        return f.read()", "", "def save(path, data):", "    pass"].join("\n");

  test("numbers lines with %4d| and separates snippets with ---", () => {
    const out = closestSnippets(content, "def load(paths):\n    with open(paths) as fh:");
    const first = out.split("\n---\n")[0];
    expect(first).toBe(["   1| import os", "   2| ", "   3| def load(path):", "   4|     with open(path) as f:", "   5|         return f.read()", "   6| "].join("\n"));
    expect(out.split("\n---\n").length).toBeGreaterThan(1);
    expect(out.split("\n---\n").length).toBeLessThanOrEqual(3);
  });

  test("nothing close → empty, and noMatchHint adds the heading", () => {
    expect(closestSnippets(content, "zzzzzzzzzzzzzzzzzzzzzz")).toBe("");
    expect(noMatchHint(content, "zzzzzzzzzzzzzzzzzzzzzz")).toBe("");
    expect(noMatchHint(content, "def save(path, dat):")).toStartWith("\n\nDid you mean one of these sections?\n   5| ");
  });
});

describe("performance", () => {
  const lines = Array.from({ length: 20_000 }, (_, i) => (i % 40 === 0 ? `def fn_${i}(arg):` : `    value_${i} = transform(arg, ${i * 7})`));
  const content = `${lines.join("\n")}\n`;

  test("exact, line_trimmed and block_anchor replaces in a 20,000-line file stay fast", () => {
    const cases: [string, string][] = [
      ["exact", "    value_12345 = transform(arg, 86415)"],
      ["line_trimmed", "value_12345 = transform(arg, 86415)\n  value_12346 = transform(arg, 86422)"],
      ["block_anchor", "    value_12345 = transform(arg, 86415)\n    value_12346 = transform(arg, 99999)\n    value_12347 = transform(arg, 86429)"],
    ];
    for (const [strategy, old] of cases) {
      const started = performance.now();
      const r = fuzzyFindAndReplace(content, old, "changed()", false);
      const elapsed = performance.now() - started;
      expect(r.strategy).toBe(strategy);
      // Generous bound for slow CI; a quadratic scan would take seconds.
      expect(elapsed).toBeLessThan(250);
    }
  });
});
