// Spawns the agent as an editor would (a child process speaking NDJSON on stdio).
import { linesOf, RpcPeer } from "./rpc-peer.ts";

export type SpawnedAgent = {
  peer: RpcPeer;
  proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  stderr(): Promise<string>;
  closeStdin(): void;
};

export function spawnAgent(cmd: string[], env: Record<string, string | undefined>, cwd?: string): SpawnedAgent {
  const proc = Bun.spawn(cmd, { stdin: "pipe", stdout: "pipe", stderr: "pipe", env, ...(cwd ? { cwd } : {}) });
  const peer = new RpcPeer((line) => {
    proc.stdin.write(`${line}\n`);
    proc.stdin.flush();
  }, linesOf(proc.stdout));
  let stderrText: Promise<string> | undefined;
  return {
    peer,
    proc,
    stderr: () => (stderrText ??= new Response(proc.stderr).text()),
    closeStdin: () => void proc.stdin.end(),
  };
}

/** Runs a command to completion without blocking this process (a fake server in the test must keep answering). */
export async function runCommand(cmd: string[], opts: { env: Record<string, string | undefined>; cwd?: string }): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(cmd, { env: opts.env, ...(opts.cwd ? { cwd: opts.cwd } : {}), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { exitCode, stdout, stderr };
}
