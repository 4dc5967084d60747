// A client-side terminal implementation for tests: what an editor does for terminal/* requests.
import type { RpcPeer, Json } from "./rpc-peer.ts";

type Term = { proc: Bun.Subprocess<"ignore", "pipe", "pipe">; output: string; exit?: { exitCode: number | null; signal: string | null } };

export function installClientTerminal(peer: RpcPeer): { created: Json[]; released: string[] } {
  const terms = new Map<string, Term>();
  const created: Json[] = [];
  const released: string[] = [];
  let n = 0;
  peer.onRequest("terminal/create", (p) => {
    created.push(p);
    const id = `term_${++n}`;
    const proc = Bun.spawn([String(p.command), ...((p.args as string[]) ?? [])], { cwd: String(p.cwd ?? "/"), stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    const t: Term = { proc, output: "" };
    const pump = async (s: ReadableStream<Uint8Array>) => {
      for await (const c of s) t.output += new TextDecoder().decode(c);
    };
    void Promise.all([pump(proc.stdout), pump(proc.stderr)]).then(async () => {
      const code = await proc.exited;
      t.exit = { exitCode: proc.signalCode ? null : code, signal: proc.signalCode ? String(proc.signalCode) : null };
    });
    terms.set(id, t);
    return { terminalId: id };
  });
  peer.onRequest("terminal/output", (p) => {
    const t = terms.get(String(p.terminalId))!;
    return { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) };
  });
  peer.onRequest("terminal/wait_for_exit", async (p) => {
    const t = terms.get(String(p.terminalId))!;
    while (!t.exit) await Bun.sleep(5);
    return t.exit;
  });
  peer.onRequest("terminal/kill", (p) => {
    terms.get(String(p.terminalId))?.proc.kill("SIGKILL");
    return {};
  });
  peer.onRequest("terminal/release", (p) => {
    terms.get(String(p.terminalId))?.proc.kill("SIGKILL");
    released.push(String(p.terminalId));
    return {};
  });
  return { created, released };
}
