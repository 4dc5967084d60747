import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeProviderConfig, INIT, startHarness, tempDir, type Harness } from "../helpers/harness.ts";
import type { Json } from "../helpers/rpc-peer.ts";
import { reply } from "../helpers/fake-llm-server.ts";
import { fakeLlmSuite } from "../helpers/suite.ts";
import { installClientTerminal } from "../helpers/fake-client-terminal.ts";

const suite = fakeLlmSuite();

async function start(clientCapabilities: Json = {}, env: Record<string, string> = {}, extraConfig = "") {
  const h = await startHarness({ config: fakeProviderConfig(suite.llm.url, extraConfig), env });
  suite.track(h);
  await h.peer.call("initialize", { ...INIT, clientCapabilities });
  const cwd = tempDir();
  const { sessionId } = (await h.peer.call("session/new", { cwd, mcpServers: [] })) as { sessionId: string };
  return { h, cwd, sessionId };
}

const run = (h: Harness, sessionId: string, text = "go") => h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
const toolUpdates = (h: Harness, sessionId: string) => h.peer.updates(sessionId).filter((u) => String(u.sessionUpdate).startsWith("tool_call"));

describe("tools through ACP", () => {
  test("read_file reads the editor's unsaved buffer through fs/read_text_file when offered", async () => {
    const { h, cwd, sessionId } = await start({ fs: { readTextFile: true, writeTextFile: true } });
    writeFileSync(join(cwd, "a.ts"), "on disk\n");
    const asked: Json[] = [];
    h.peer.onRequest("fs/read_text_file", (p) => {
      asked.push(p);
      return { content: "unsaved buffer text\n" };
    });
    suite.llm.enqueue(reply().toolCall({ id: "r1", name: "read_file", args: { path: "a.ts" } }), reply().text("ok"));
    await run(h, sessionId);
    expect(asked[0]).toMatchObject({ sessionId, path: join(cwd, "a.ts") });
    const end = toolUpdates(h, sessionId).find((u) => u.status === "completed");
    expect(JSON.stringify(end)).toContain("unsaved buffer text");
    expect(JSON.stringify(end)).not.toContain("on disk");
  });

  test("write_file asks with the real diff, then writes through fs/write_text_file", async () => {
    const { h, cwd, sessionId } = await start({ fs: { readTextFile: false, writeTextFile: true } });
    writeFileSync(join(cwd, "b.txt"), "before\n");
    const writes: Json[] = [];
    h.peer.onRequest("fs/write_text_file", (p) => {
      writes.push(p);
      writeFileSync(String(p.path), String(p.content));
      return {};
    });
    let permission: Json | undefined;
    h.peer.onRequest("session/request_permission", (p) => {
      permission = p;
      return { outcome: { outcome: "selected", optionId: "allow_once" } };
    });
    suite.llm.enqueue(reply().toolCall({ id: "w1", name: "write_file", args: { path: "b.txt", content: "after\n" } }), reply().text("done"));
    await run(h, sessionId);
    const toolCall = permission!.toolCall as Json;
    expect(toolCall).toMatchObject({ toolCallId: "w1", kind: "edit" });
    expect(toolCall.content).toEqual([{ type: "diff", path: join(cwd, "b.txt"), oldText: "before\n", newText: "after\n" }]);
    expect(writes).toEqual([{ sessionId, path: join(cwd, "b.txt"), content: "after\n" }]);
    expect(readFileSync(join(cwd, "b.txt"), "utf8")).toBe("after\n");
    const cards = toolUpdates(h, sessionId);
    expect(cards[0]).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "w1", kind: "edit", title: "write: b.txt", status: "pending" });
    expect(cards.at(-1)).toMatchObject({ status: "completed" });
  });

  test("terminal runs in the editor's terminal and the card embeds it; every terminal is released", async () => {
    const { h, cwd, sessionId } = await start({ terminal: true }, { HERMES_YOLO_MODE: "1" });
    const term = installClientTerminal(h.peer);
    suite.llm.enqueue(reply().toolCall({ id: "t1", name: "terminal", args: { command: "echo hello-from-terminal; pwd" } }), reply().text("ran"));
    await run(h, sessionId);
    expect(term.created[0]).toMatchObject({ sessionId, cwd });
    expect(term.released).toEqual(["term_1"]);
    const cards = toolUpdates(h, sessionId);
    expect(cards.some((u) => JSON.stringify(u.content ?? []).includes('"terminalId":"term_1"'))).toBe(true);
    const toolMsg = (suite.llm.requests.at(-1)!.messages as Json[]).at(-1)!;
    expect(String(toolMsg.content)).toContain("hello-from-terminal");
    expect(String(toolMsg.content)).toContain(cwd);
  });

  test("without an editor terminal, a running command's output reaches its card while it runs", async () => {
    const { h, sessionId } = await start({}, { HERMES_YOLO_MODE: "1" });
    suite.llm.enqueue(reply().toolCall({ id: "live1", name: "terminal", args: { command: "echo tick-1; sleep 1.2; echo tick-2" } }), reply().text("ran"));
    await run(h, sessionId);
    const cards = toolUpdates(h, sessionId).filter((u) => u.toolCallId === "live1");
    const doneAt = cards.findIndex((u) => u.status === "completed");
    const live = cards.slice(0, doneAt).filter((u) => u.sessionUpdate === "tool_call_update" && u.content !== undefined);
    // The first line is shown while the command still sleeps; the second only arrives with the result.
    expect(live.length).toBeGreaterThan(0);
    const shown = ((live[0]!.content as Json[])[0]!.content as Json).text as string;
    expect(shown).toBe("$ echo tick-1; sleep 1.2; echo tick-2\n\n```\ntick-1\n\n```");
    expect(JSON.stringify(cards[doneAt]!.content)).toContain("tick-2");
    expect(cards.slice(doneAt + 1)).toEqual([]);
  });

  test("Hermes' terminal.timeout is the default for commands that name none", async () => {
    const { h, sessionId } = await start({}, { HERMES_YOLO_MODE: "1" }, "terminal:\n  timeout: 0.3\n");
    suite.llm.enqueue(reply().toolCall({ id: "slow1", name: "terminal", args: { command: "sleep 5" } }), reply().text("timed out"));
    const t0 = performance.now();
    await run(h, sessionId);
    expect(performance.now() - t0).toBeLessThan(4000);
    const toolMsg = (suite.llm.requests.at(-1)!.messages as Json[]).at(-1)!;
    expect(String(toolMsg.content)).toContain("Command timed out after 0.3s");
  });

  test("todo updates the plan; search_files, patch and read cards carry kinds, titles and locations", async () => {
    const { h, cwd, sessionId } = await start({}, { HERMES_YOLO_MODE: "1" });
    writeFileSync(join(cwd, "app.py"), "def main():\n    return 1\n");
    suite.llm.enqueue(
      reply().toolCall({ id: "p1", name: "todo", args: { todos: [{ id: "1", content: "Fix main", status: "in_progress" }, { id: "2", content: "Drop it", status: "cancelled" }] } }),
      reply().toolCall({ id: "s1", name: "search_files", args: { pattern: "return 1" } }),
      reply().toolCall({ id: "e1", name: "patch", args: { path: "app.py", old_string: "return 1", new_string: "return 2" } }),
      reply().text("patched"),
    );
    await run(h, sessionId);
    const plan = h.peer.updates(sessionId).find((u) => u.sessionUpdate === "plan");
    expect(plan).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "Fix main", priority: "medium", status: "in_progress" },
        { content: "[cancelled] Drop it", priority: "medium", status: "completed" },
      ],
    });
    const starts = toolUpdates(h, sessionId).filter((u) => u.sessionUpdate === "tool_call");
    expect(starts.map((s) => [s.kind, s.title])).toEqual([
      ["other", "todo (2 items)"],
      ["search", "search: return 1"],
      ["edit", "patch (replace): app.py"],
    ]);
    expect(starts[2]!.locations).toEqual([{ path: join(cwd, "app.py") }]);
    expect(readFileSync(join(cwd, "app.py"), "utf8")).toContain("return 2");
    const patchEnd = toolUpdates(h, sessionId).filter((u) => u.toolCallId === "e1").at(-1)!;
    expect(patchEnd.status).toBe("completed");
    expect(JSON.stringify(patchEnd.content)).toContain('"type":"diff"');
  });

  test("a background terminal command and the process tool: start, wait, log — cards and results through ACP", async () => {
    const { h, sessionId } = await start({}, { HERMES_YOLO_MODE: "1" });
    suite.llm.enqueue(reply().toolCall({ id: "bg1", name: "terminal", args: { command: "echo started; sleep 0.2; echo finished", background: true } }));
    await run(h, sessionId, "start it");
    const started = JSON.parse(String(((suite.llm.requests.at(-1)!.messages as Json[]).at(-1) as Json).content)) as Json;
    const procId = String(started.session_id);
    expect(procId).toStartWith("proc_");
    suite.llm.enqueue(
      reply().toolCall({ id: "pw1", name: "process", args: { action: "wait", session_id: procId, timeout: 5 } }),
      reply().toolCall({ id: "pl1", name: "process", args: { action: "log", session_id: procId } }),
      reply().text("done"),
    );
    await run(h, sessionId, "wait for it");
    const sent = suite.llm.requests.at(-1)!.messages as Json[];
    const result = (id: string) => String(sent.find((m) => m.tool_call_id === id)?.content);
    expect(result("pw1")).toContain("exited");
    expect(result("pl1")).toContain("finished");
    const starts = toolUpdates(h, sessionId).filter((u) => u.sessionUpdate === "tool_call");
    expect(starts.map((u) => [u.toolCallId, u.kind])).toEqual([
      ["bg1", "execute"],
      ["pw1", "execute"],
      ["pl1", "execute"],
    ]);
    expect(toolUpdates(h, sessionId).filter((u) => u.status === "completed").map((u) => u.toolCallId)).toEqual(["bg1", "pw1", "pl1"]);
  });
});
