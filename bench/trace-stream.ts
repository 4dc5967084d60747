// Temporary: where the time of one streamed prompt goes (HERMES_ACP_TRACE marks vs client-side times).
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { benchEnv, benchHome, ensureBinary } from "./agent-process.ts";
import { startStreamServer } from "./pipeline.bench.ts";
const binary = await ensureBinary();
const server = await startStreamServer(10_000);
const home = benchHome(server.url);
const errFile = `${tmpdir()}/trace-${process.pid}.log`;
const proc = Bun.spawn([binary], { stdin: "pipe", stdout: "pipe", stderr: Bun.file(errFile), env: { ...benchEnv(home), HERMES_ACP_TRACE: "1" } });
const wall = () => performance.timeOrigin + performance.now();
const events: [number, string][] = [];
let buf = "";
const waiters = new Map<number, (m: any) => void>();
let firstChunkSeen = false;
(async () => {
  const dec = new TextDecoder();
  for await (const c of proc.stdout) {
    const at = wall();
    buf += dec.decode(c, { stream: true });
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const m = JSON.parse(buf.slice(0, nl)); buf = buf.slice(nl + 1);
      if (m.method === "session/update" && m.params.update.sessionUpdate === "agent_message_chunk") {
        if (!firstChunkSeen) { firstChunkSeen = true; events.push([at, "CLIENT first chunk"]); }
        events.push([at, `CLIENT chunk ${m.params.update.content.text.length}`]);
      }
      if (m.id !== undefined && waiters.has(m.id)) { events.push([at, `CLIENT response ${m.id}`]); waiters.get(m.id)!(m); }
    }
  }
})();
let id = 0;
const call = (method: string, params: unknown) => new Promise<any>((resolve) => { const i = id++; waiters.set(i, resolve); events.push([wall(), `CLIENT send ${method}`]); proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: i, method, params }) + "\n"); proc.stdin.flush(); });
await call("initialize", { protocolVersion: 1 });
const s = (await call("session/new", { cwd: tmpdir(), mcpServers: [] })).result;
for (let i = 0; i < 16; i++) { const ns = process.env.FRESH ? (await call("session/new", { cwd: tmpdir(), mcpServers: [] })).result : s; events.length = 0; firstChunkSeen = false; await call("session/prompt", { sessionId: ns.sessionId, prompt: [{ type: "text", text: "go" }] }); if (i < 15) { const { readPlain } = await import("./pipeline.bench.ts"); await readPlain(server.url); } }
const last = [...events];
proc.stdin.end(); await proc.exited; await server.stop();
const start = last[0]![0];
const traces = readFileSync(errFile, "utf8").split("\n").filter((l) => l.startsWith("trace")).map((l) => { const [, , w, ...rest] = l.split(" "); return [Number(w), "agent " + rest.join(" ")] as [number, string]; }).filter(([w]) => w >= start - 1);
const arrivals = server.arrivals.filter((a) => a >= start).map((a) => [a, "SERVER request arrives"] as [number, string]);
for (const [w, label] of [...last, ...traces, ...arrivals].sort((a, b) => a[0] - b[0])) console.log((w - start).toFixed(2).padStart(7), label);
// plain for comparison
const { readPlain } = await import("./pipeline.bench.ts");
