// Shared bits of the reliability tests: the agent command to spawn, session helpers, process checks.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import type { Json, RpcPeer } from "../helpers/rpc-peer.ts";

export const ROOT = join(import.meta.dir, "../..");
const BINARY = join(ROOT, "dist/hermes-acp");

/** The compiled binary when it has been built, else the source entry point (as CI's test job runs it). */
export function agentCommand(): string[] {
  return existsSync(BINARY) ? [BINARY] : ["bun", "run", "--silent", "start"];
}

/** The environment for a spawned agent: the test's own, with an isolated HERMES_HOME. */
export function agentEnv(home: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, HERMES_HOME: home, HERMES_ACP_LOG_LEVEL: "info", ...extra };
}

export const textPrompt = (sessionId: string, text: string) => ({ sessionId, prompt: [{ type: "text", text }] });

/** All agent_message_chunk text of a session, concatenated. */
export function agentText(peer: RpcPeer, sessionId: string): string {
  return peer.updates(sessionId)
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => {
      const c = u.content as Json | undefined;
      return typeof c?.text === "string" ? c.text : "";
    })
    .join("");
}

/** PRAGMA integrity_check of a state.db, opened read-only the way an outside reader would. */
export function integrityCheck(dbPath: string): string {
  const db = new Database(dbPath, { readonly: true });
  try {
    const rows = db.query("PRAGMA integrity_check").values();
    return rows.map((r) => String(r[0])).join("; ");
  } finally {
    db.close();
  }
}

/** True while some process of group `pgid` exists and is not a zombie (zombies hold no resources). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the parenthesised command name: state, ppid, pgrp, …
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(rest[2]) === pgid && rest[0] !== "Z") return true;
  }
  return false;
}

/** Waits until `pred` holds or `ms` pass; returns whether it held. */
export async function until(pred: () => boolean, ms: number, stepMs = 10): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (pred()) return true;
    await Bun.sleep(stepMs);
  }
  return pred();
}

/** SIGKILL to a whole process group; a group that is already gone is fine. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ESRCH: nothing left.
  }
}
