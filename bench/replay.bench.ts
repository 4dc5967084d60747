// session/load replay of a 2,000-message session with 500 tool calls on the compiled binary: request → response
// (every replayed update is sent before the response). Fresh process per run, timed after the app has loaded,
// so only the load call is measured. Target < 150 ms. Run: bun bench/replay.bench.ts
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "../src/agent/messages.ts";
import { replayEvents } from "../src/session/replay.ts";
import { SessionStore } from "../src/session/store.ts";
import { AgentProcess, benchEnv, benchHome, ensureBinary } from "./agent-process.ts";
import { median, ms, type BenchRow } from "./types.ts";

const CYCLES = 500; // user → assistant(tool call) → tool → assistant: 4 messages, 1 tool call
const RUNS = Number(process.env.BENCH_REPLAY_RUNS ?? 11);
const TARGET_MS = 150;

function toolCall(i: number, cwd: string): { name: string; args: Record<string, unknown>; result: string } {
  switch (i % 3) {
    case 0: {
      const lines = Array.from({ length: 60 }, (_, l) => `${String(l + 1).padStart(6)}|    const value_${l} = compute(input, ${l * i});`);
      return {
        name: "read_file",
        args: { path: `${cwd}/src/module_${i}.ts`, offset: 1, limit: 60 },
        result: JSON.stringify({ content: lines.join("\n"), total_lines: 240, file_size: 9_800, truncated: true, hint: "Use offset=61 to continue reading (showing 1-60 of 240 lines)" }),
      };
    }
    case 1:
      return {
        name: "terminal",
        args: { command: `bun test test/module_${i}.test.ts` },
        result: JSON.stringify({ output: `bun test v1.4.5\n\ntest/module_${i}.test.ts:\n${"✓ computes the value [0.12ms]\n".repeat(20)}\n 20 pass\n 0 fail\nRan 20 tests across 1 file. [41.00ms]`, exit_code: 0 }),
      };
    default:
      return {
        name: "search_files",
        args: { pattern: `compute\\(input, ${i}`, path: "src" },
        result: JSON.stringify({
          total_count: 12,
          matches: Array.from({ length: 12 }, (_, m) => ({ path: `src/module_${m * 7 + i}.ts`, line: m * 13 + 4, content: `    const value_${m} = compute(input, ${i});` })),
          truncated: false,
        }),
      };
  }
}

/** One ACP session of 4 × CYCLES messages in a fresh state.db under `home`; returns its id and cwd. */
export function buildReplaySession(home: string): { sessionId: string; cwd: string } {
  const cwd = mkdtempSync(join(tmpdir(), "hermes-replay-cwd-"));
  const store = SessionStore.open(join(home, "state.db"));
  try {
    const sessionId = crypto.randomUUID();
    store.createSession({ id: sessionId, source: "acp", model: "fake-model", modelConfig: { cwd, acp_mode: "default", acp_options: {} }, title: "replay bench" });
    const messages: ChatMessage[] = [];
    for (let i = 0; i < CYCLES; i++) {
      const call = toolCall(i, cwd);
      const id = `call_${i.toString(36).padStart(8, "0")}`;
      messages.push({ role: "user", content: `Step ${i}: look at module_${i} and tell me whether compute() is called with the right arguments.` });
      messages.push({
        role: "assistant",
        content: i % 2 === 0 ? `Let me check module_${i}.` : null,
        tool_calls: [{ id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }],
        finish_reason: "tool_calls",
      });
      messages.push({ role: "tool", content: call.result, tool_call_id: id, tool_name: call.name });
      messages.push({ role: "assistant", content: `module_${i} looks right: ${"every call passes the input first and the scale second; ".repeat(3)}`, finish_reason: "stop" });
    }
    store.appendMessages(sessionId, messages);
    return { sessionId, cwd };
  } finally {
    store.close();
  }
}

export async function benchReplay(runs = RUNS): Promise<BenchRow[]> {
  const binary = await ensureBinary();
  const home = benchHome();
  const { sessionId, cwd } = buildReplaySession(home);
  try {
    // In-process floor: read the rows and build the events, no JSON-RPC.
    const store = SessionStore.open(join(home, "state.db"));
    const floor: number[] = [];
    let events = 0;
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      const items = store.loadMessages(sessionId).map((m) => ({ message: m.message, messageId: String(m.rowId) }));
      events = [...replayEvents(items, cwd)].length;
      floor.push(performance.now() - t0);
    }
    store.close();
    const times: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const agent = new AgentProcess([binary], benchEnv(home));
      try {
        await agent.ready();
        let updates = 0;
        agent.onMessage = (msg) => void (msg.method === "session/update" && updates++);
        const r = await agent.call("session/load", { sessionId, cwd, mcpServers: [] });
        if (updates < events) throw new Error(`session/load answered after ${updates} of ${events} replayed updates`);
        if (i > 0) times.push(r.__at - r.__sentAt); // the first run warms the page cache
      } finally {
        await agent.close();
      }
    }
    const t = median(times);
    return [
      {
        name: `session/load replay: ${(CYCLES * 4).toLocaleString("en")} messages, ${CYCLES} tool calls → ${events.toLocaleString("en")} updates (binary, median of ${runs})`,
        measured: ms(t),
        baseline: `${ms(median(floor.slice(1)))} in-process load + replayEvents`,
        target: `< ${TARGET_MS} ms`,
        met: t < TARGET_MS,
      },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { printTable } = await import("./table.ts");
  printTable(await benchReplay());
}
