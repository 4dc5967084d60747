import type * as acp from "@agentclientprotocol/sdk";
import type { CommandResult, RunOptions, Shell } from "../tools/types.ts";

/** Runs commands in the editor's terminal (`terminal/*`), so the user watches the output live. */
export function acpShell(client: acp.AgentContext, sessionId: string): Shell {
  return {
    async run(command: string, options: RunOptions): Promise<CommandResult> {
      const isWindows = process.platform === "win32";
      const terminal = await client.createTerminal({
        sessionId,
        command: isWindows ? "cmd.exe" : "/bin/sh",
        args: isWindows ? ["/d", "/s", "/c", command] : ["-c", command],
        cwd: options.cwd,
        outputByteLimit: options.outputLimit,
        ...(options.env ? { env: Object.entries(options.env).map(([name, value]) => ({ name, value })) } : {}),
      }, { cancellationSignal: AbortSignal.any([options.signal, AbortSignal.timeout(30_000)]) });
      options.onStart?.({ terminalId: terminal.id });
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      try {
        const outcome = await Promise.race([
          terminal.waitForExit().then((exit) => ({ kind: "exit" as const, exit })),
          new Promise<{ kind: "timeout" }>((resolve) => {
            timer = setTimeout(() => resolve({ kind: "timeout" }), options.timeoutMs);
          }),
          new Promise<{ kind: "abort" }>((resolve) => {
            onAbort = () => resolve({ kind: "abort" });
            if (options.signal.aborted) onAbort();
            else options.signal.addEventListener("abort", onAbort, { once: true });
          }),
        ]);
        if (outcome.kind !== "exit") await terminal.kill().catch(() => undefined);
        if (outcome.kind === "abort") {
          const err = new Error("aborted");
          err.name = "AbortError";
          throw err;
        }
        const out = await terminal.currentOutput();
        const exit = outcome.kind === "exit" ? outcome.exit : out.exitStatus;
        return {
          output: out.output,
          exitCode: exit?.exitCode ?? null,
          signal: exit?.signal ?? null,
          timedOut: outcome.kind === "timeout",
          truncated: out.truncated,
        };
      } finally {
        if (timer) clearTimeout(timer);
        if (onAbort) options.signal.removeEventListener("abort", onAbort);
        await terminal.release().catch(() => undefined);
      }
    },
  };
}
