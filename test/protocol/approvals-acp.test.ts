import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";

import { join } from "node:path";
import { fakeProviderConfig, INIT, startHarness, tempDir, type Harness } from "../helpers/harness.ts";
import { NO_ANSWER, type Json } from "../helpers/rpc-peer.ts";
import { reply } from "../helpers/fake-llm-server.ts";
import { fakeLlmSuite } from "../helpers/suite.ts";

const suite = fakeLlmSuite();

async function start(opts: { config?: string; env?: Record<string, string> } = {}) {
  const h = await startHarness({ config: opts.config ?? fakeProviderConfig(suite.llm.url), env: opts.env ?? {} });
  suite.track(h);
  await h.peer.call("initialize", INIT);
  return h;
}

async function newSession(h: Harness) {
  const cwd = tempDir();
  const { sessionId } = (await h.peer.call("session/new", { cwd, mcpServers: [] })) as { sessionId: string };
  return { sessionId, cwd };
}

const prompt = (h: Harness, sessionId: string) => h.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });

/** Answers every permission request with the given option id (or outcome), recording the requests. */
function answerWith(h: Harness, answer: string | "cancelled" | "garbage" | "never") {
  const asked: Json[] = [];
  h.peer.onRequest("session/request_permission", (p) => {
    asked.push(p);
    if (answer === "never") return NO_ANSWER;
    if (answer === "cancelled") return { outcome: { outcome: "cancelled" } };
    if (answer === "garbage") return { whatever: 42 };
    return { outcome: { outcome: "selected", optionId: answer } };
  });
  return asked;
}

const lastToolResult = () => String(((suite.llm.requests.at(-1)!.messages as Json[]).at(-1) as Json).content);

describe("dangerous commands", () => {
  const cases: [string, "ran" | "blocked", "asks-again" | "no-ask-again" | "-"][] = [
    ["allow_once", "ran", "asks-again"],
    ["allow_session", "ran", "no-ask-again"],
    ["allow_always", "ran", "no-ask-again"],
    ["deny", "blocked", "asks-again"],
    ["deny_always", "blocked", "no-ask-again"],
    ["bogus-option", "blocked", "-"],
    ["garbage", "blocked", "-"],
  ];
  for (const [answer, outcome, second] of cases) {
    test(`answer ${answer} → ${outcome}`, async () => {
      const h = await start();
      const { sessionId, cwd } = await newSession(h);
      mkdirSync(join(cwd, "build"));
      const asked = answerWith(h, answer);
      suite.llm.enqueue(reply().toolCall({ id: "c1", name: "terminal", args: { command: "rm -r build" } }), reply().text("ok"));
      expect((await prompt(h, sessionId)).result).toEqual({ stopReason: "end_turn" });
      expect(asked).toHaveLength(1);
      const tc = asked[0]!.toolCall as Json;
      expect(tc).toMatchObject({ toolCallId: "c1", kind: "execute", title: "recursive delete: rm -r build" });
      expect(JSON.stringify(tc.content)).toContain("$ rm -r build");
      expect((asked[0]!.options as Json[]).map((o) => o.optionId)).toEqual(["allow_once", "allow_session", "allow_always", "deny", "deny_always"]);
      expect(existsSync(join(cwd, "build"))).toBe(outcome === "blocked");
      if (outcome === "blocked") expect(lastToolResult()).toContain("BLOCKED");
      if (answer === "allow_always") expect(readFileSync(join(h.home, "config.yaml"), "utf8")).toContain("command_allowlist");
      if (second === "-") return;
      mkdirSync(join(cwd, "build"), { recursive: true });
      suite.llm.enqueue(reply().toolCall({ id: "c2", name: "terminal", args: { command: "rm -r build" } }), reply().text("ok"));
      await prompt(h, sessionId);
      expect(asked).toHaveLength(second === "asks-again" ? 2 : 1);
    });
  }

  test("a client that never answers: the prompt times out as a denial and the turn ends normally", async () => {
    const h = await start({ config: fakeProviderConfig(suite.llm.url, "approvals:\n  timeout: 0.3\n") });
    const { sessionId, cwd } = await newSession(h);
    mkdirSync(join(cwd, "build"));
    answerWith(h, "never");
    suite.llm.enqueue(reply().toolCall({ id: "c1", name: "terminal", args: { command: "rm -r build" } }), reply().text("ok"));
    expect((await prompt(h, sessionId)).result).toEqual({ stopReason: "end_turn" });
    expect(existsSync(join(cwd, "build"))).toBe(true);
    expect(lastToolResult()).toContain("BLOCKED");
  });

  test("hardline commands never run, even in yolo mode, and are not even asked", async () => {
    const h = await start({ env: { HERMES_YOLO_MODE: "1" } });
    const { sessionId } = await newSession(h);
    const asked = answerWith(h, "allow_once");
    suite.llm.enqueue(reply().toolCall({ id: "c1", name: "terminal", args: { command: "rm -rf /" } }), reply().text("ok"));
    await prompt(h, sessionId);
    expect(asked).toHaveLength(0);
    expect(lastToolResult()).toContain("BLOCKED (hardline)");
  });
});

describe("edits", () => {
  test("each answer for an edit: allow once, allow for session, deny, cancelled, bogus", async () => {
    for (const [answer, written] of [["allow_once", true], ["allow_session", true], ["deny", false], ["bogus", false]] as const) {
      const h = await start();
      const { sessionId, cwd } = await newSession(h);
      writeFileSync(join(cwd, "f.txt"), "v1\n");
      const asked = answerWith(h, answer);
      suite.llm.enqueue(reply().toolCall({ id: "e1", name: "write_file", args: { path: "f.txt", content: "v2\n" } }), reply().text("ok"));
      await prompt(h, sessionId);
      expect(asked).toHaveLength(1);
      expect((asked[0]!.options as Json[]).map((o) => o.optionId)).toEqual(["allow_once", "allow_session", "deny"]);
      expect(readFileSync(join(cwd, "f.txt"), "utf8")).toBe(written ? "v2\n" : "v1\n");
      if (!written) expect(lastToolResult()).toContain("not modified");
      suite.llm.enqueue(reply().toolCall({ id: "e2", name: "write_file", args: { path: "g.txt", content: "x\n" } }), reply().text("ok"));
      await prompt(h, sessionId);
      expect(asked).toHaveLength(answer === "allow_session" ? 1 : 2);
    }
  });

  test("cancelled outcome cancels the turn; the file stays untouched", async () => {
    const h = await start();
    const { sessionId, cwd } = await newSession(h);
    writeFileSync(join(cwd, "f.txt"), "v1\n");
    answerWith(h, "cancelled");
    suite.llm.enqueue(reply().toolCall({ id: "e1", name: "write_file", args: { path: "f.txt", content: "v2\n" } }));
    expect((await prompt(h, sessionId)).result).toEqual({ stopReason: "cancelled" });
    expect(readFileSync(join(cwd, "f.txt"), "utf8")).toBe("v1\n");
  });

  test("a V4A patch touching three files shows three diffs in one request and writes nothing when denied", async () => {
    const h = await start();
    const { sessionId, cwd } = await newSession(h);
    for (const f of ["a", "b", "c"]) writeFileSync(join(cwd, `${f}.txt`), `${f} old\n`);
    const asked = answerWith(h, "deny");
    const patch = ["*** Begin Patch", ...["a", "b", "c"].flatMap((f) => [`*** Update File: ${f}.txt`, "@@", `-${f} old`, `+${f} new`]), "*** End Patch"].join("\n");
    suite.llm.enqueue(reply().toolCall({ id: "v1", name: "patch", args: { mode: "patch", patch } }), reply().text("ok"));
    await prompt(h, sessionId);
    expect(asked).toHaveLength(1);
    const diffs = ((asked[0]!.toolCall as Json).content as Json[]).filter((c) => c.type === "diff");
    expect(diffs.map((d) => d.path)).toEqual(["a", "b", "c"].map((f) => join(cwd, `${f}.txt`)));
    for (const f of ["a", "b", "c"]) expect(readFileSync(join(cwd, `${f}.txt`), "utf8")).toBe(`${f} old\n`);
  });

  const modes = ["default", "accept_edits", "dont_ask"] as const;
  // [label, path builder, expected ask per mode]
  const targets: [string, (cwd: string) => string, Record<(typeof modes)[number], boolean>][] = [
    ["workspace file", (cwd) => join(cwd, "w.txt"), { default: true, accept_edits: false, dont_ask: false }],
    ["temp file", () => join(tempDir("hermes-acp-tmp-"), "t.txt"), { default: true, accept_edits: false, dont_ask: false }],
    ["file outside cwd", () => join(tempDir(), "..", "..", "var", "tmp-outside-hermes-test.txt"), { default: true, accept_edits: true, dont_ask: false }],
    [
      "symlink escaping the cwd",
      (cwd) => {
        const outside = join("/var", `hermes-outside-${crypto.randomUUID()}`);
        mkdirSync(outside, { recursive: true });
        symlinkSync(outside, join(cwd, "link"));
        return join(cwd, "link", "x.txt");
      },
      { default: true, accept_edits: true, dont_ask: false },
    ],
    ["sensitive file", (cwd) => join(cwd, ".env"), { default: true, accept_edits: true, dont_ask: true }],
  ];
  for (const mode of modes) {
    for (const [label, pathOf, asks] of targets) {
      test(`mode ${mode} × ${label} → ${asks[mode] ? "asks" : "auto-allowed"}`, async () => {
        const h = await start();
        const { sessionId, cwd } = await newSession(h);
        await h.peer.call("session/set_mode", { sessionId, modeId: mode });
        const path = pathOf(cwd);
        const asked = answerWith(h, "allow_once");
        suite.llm.enqueue(reply().toolCall({ id: "m1", name: "write_file", args: { path, content: "x\n" } }), reply().text("ok"));
        await prompt(h, sessionId);
        expect(asked.length).toBe(asks[mode] ? 1 : 0);
        expect(readFileSync(path, "utf8")).toBe("x\n");
      });
    }
  }

  test("two concurrent sessions in different modes never see each other's approvals", async () => {
    const h = await start();
    const a = await newSession(h);
    const b = await newSession(h);
    await h.peer.call("session/set_mode", { sessionId: a.sessionId, modeId: "dont_ask" });
    const asked = answerWith(h, "allow_session");
    suite.llm.enqueue(
      reply().toolCall({ id: "a1", name: "write_file", args: { path: join(a.cwd, "x"), content: "1" } }).delay(50),
      reply().toolCall({ id: "b1", name: "write_file", args: { path: join(b.cwd, "y"), content: "1" } }).delay(50),
      reply().text("ok"),
      reply().text("ok"),
    );
    await Promise.all([prompt(h, a.sessionId), prompt(h, b.sessionId)]);
    expect(asked.map((p) => p.sessionId)).toEqual([b.sessionId]);
    // b's "allow for session" does not leak into a third session in default mode.
    const c = await newSession(h);
    suite.llm.enqueue(reply().toolCall({ id: "c1", name: "write_file", args: { path: join(c.cwd, "z"), content: "1" } }), reply().text("ok"));
    await prompt(h, c.sessionId);
    expect(asked.map((p) => p.sessionId)).toEqual([b.sessionId, c.sessionId]);
  });
});

describe("configured policies", () => {
  test("approvals.mode: off allows commands and edits without asking, except hardline commands and sensitive paths", async () => {
    const h = await start({ config: fakeProviderConfig(suite.llm.url, "approvals:\n  mode: off\n") });
    const { sessionId, cwd } = await newSession(h);
    mkdirSync(join(cwd, "build"));
    const asked = answerWith(h, "allow_once");
    suite.llm.enqueue(
      reply().toolCall({ id: "o1", name: "terminal", args: { command: "rm -r build" } }),
      reply().toolCall({ id: "o2", name: "write_file", args: { path: "w.txt", content: "x" } }),
      reply().toolCall({ id: "o3", name: "write_file", args: { path: ".env", content: "SECRET=1" } }),
      reply().toolCall({ id: "o4", name: "terminal", args: { command: "rm -rf /" } }),
      reply().text("ok"),
    );
    await prompt(h, sessionId);
    expect(existsSync(join(cwd, "build"))).toBe(false);
    expect(readFileSync(join(cwd, "w.txt"), "utf8")).toBe("x");
    expect(asked.map((a) => (a.toolCall as Json).toolCallId)).toEqual(["o3"]);
    expect(lastToolResult()).toContain("BLOCKED (hardline)");
  });

  test("acp.default_mode sets the mode of new sessions", async () => {
    const h = await start({ config: fakeProviderConfig(suite.llm.url, "acp:\n  default_mode: accept_edits\n") });
    const r = await h.peer.call("session/new", { cwd: tempDir(), mcpServers: [] });
    expect((r.modes as Json).currentModeId).toBe("accept_edits");
  });
});
