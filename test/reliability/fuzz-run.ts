// Drives a fuzz run against any RpcPeer (in-process or spawned) and checks the answers owed:
// every request exactly one response with its id, every malformed line exactly one error with id null,
// notifications and stray responses nothing, and every line on the wire a JSON-RPC 2.0 object.
import type { Json, RpcPeer } from "../helpers/rpc-peer.ts";
import type { FuzzCase, FuzzGenerator } from "./fuzz-gen.ts";

export type FuzzReport = {
  sent: number;
  byLabel: Record<string, number>;
  /** Ids (JSON-encoded) whose response count differs from what was owed: owed, got. */
  idMismatches: { id: string; owed: number; got: number; sample: string }[];
  nullOwed: number;
  nullGot: number;
  /** Wire lines that are not JSON-RPC 2.0 objects. */
  impure: string[];
  ms: number;
};

const isResponse = (m: Json) => "id" in m && ("result" in m || "error" in m) && !("method" in m);

/** Lines on the wire that are not a JSON-RPC 2.0 message (request, notification or response). */
export function impureLines(lines: string[]): string[] {
  const bad: string[] = [];
  for (const line of lines) {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      bad.push(line.slice(0, 200));
      continue;
    }
    const ok =
      typeof v === "object" && v !== null && !Array.isArray(v) && "jsonrpc" in v && v.jsonrpc === "2.0" && ("method" in v || ("id" in v && ("result" in v || "error" in v)));
    if (!ok) bad.push(line.slice(0, 200));
  }
  return bad;
}

/**
 * Sends `count` generated lines in bursts of `burst`, waiting after each burst until every owed
 * id-response has arrived (or `burstTimeoutMs` passes), then settles and tallies.
 */
export async function runFuzz(peer: RpcPeer, gen: FuzzGenerator, opts: { count: number; burst: number; burstTimeoutMs?: number; settleMs?: number }): Promise<FuzzReport> {
  const t0 = performance.now();
  const owed = new Map<string, { n: number; sample: string }>();
  const got = new Map<string, number>();
  const byLabel: Record<string, number> = {};
  let nullOwed = 0;
  // Only what arrives from here on is tallied: earlier traffic belongs to the caller.
  let scanned = peer.received.length;
  let nullGot = 0;
  const ownIds = new Set<string>();

  const scan = () => {
    for (; scanned < peer.received.length; scanned++) {
      const m = peer.received[scanned]!;
      if (!isResponse(m)) continue;
      if (m.id === null) nullGot++;
      else got.set(JSON.stringify(m.id), (got.get(JSON.stringify(m.id)) ?? 0) + 1);
    }
  };
  // Responses to the peer's own calls (made before or between bursts) are not part of the tally.
  for (const m of peer.sent) if ("id" in m) ownIds.add(JSON.stringify(m.id));

  const owedSatisfied = (ids: string[]) => ids.every((id) => (got.get(id) ?? 0) >= (owed.get(id)?.n ?? 0));

  let sent = 0;
  while (sent < opts.count) {
    const burstIds: string[] = [];
    const n = Math.min(opts.burst, opts.count - sent);
    for (let i = 0; i < n; i++) {
      const c: FuzzCase = gen.next();
      byLabel[c.label] = (byLabel[c.label] ?? 0) + 1;
      if (c.expect.kind === "answer") {
        const key = JSON.stringify(c.expect.id);
        const entry = owed.get(key) ?? { n: 0, sample: c.line.slice(0, 160) };
        entry.n++;
        owed.set(key, entry);
        burstIds.push(key);
      } else if (c.expect.kind === "null") nullOwed++;
      peer.sendRaw(c.line);
    }
    sent += n;
    const deadline = performance.now() + (opts.burstTimeoutMs ?? 20_000);
    for (;;) {
      scan();
      if (owedSatisfied(burstIds) || performance.now() > deadline) break;
      await Bun.sleep(5);
    }
  }
  // Late answers (slow turns, stray duplicates) get a moment to show up before the tally.
  const deadline = performance.now() + 20_000;
  for (;;) {
    scan();
    if ((nullGot >= nullOwed && owedSatisfied([...owed.keys()])) || performance.now() > deadline) break;
    await Bun.sleep(10);
  }
  await Bun.sleep(opts.settleMs ?? 200);
  scan();

  const idMismatches: FuzzReport["idMismatches"] = [];
  for (const [id, { n, sample }] of owed) if ((got.get(id) ?? 0) !== n) idMismatches.push({ id, owed: n, got: got.get(id) ?? 0, sample });
  for (const [id, n] of got) if (!owed.has(id) && !ownIds.has(id)) idMismatches.push({ id, owed: 0, got: n, sample: "(never sent)" });
  return { sent, byLabel, idMismatches, nullOwed, nullGot, impure: impureLines(peer.rawLines), ms: Math.round(performance.now() - t0) };
}
