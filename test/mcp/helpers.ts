// Fakes shared by the MCP tests: a tool context with a recording approver, and the fixture server spec.
import { join } from "node:path";
import type { ApprovalOutcome, Approver, ToolContext } from "../../src/tools/types.ts";
import { DEFAULT_CALL_TIMEOUT_MS, type McpServerSpec, type StdioServerSpec } from "../../src/mcp/server-spec.ts";

export const ECHO_SERVER = join(import.meta.dir, "..", "fixtures", "mcp-echo-server.ts");

export function echoSpec(name = "echo", extra: Partial<StdioServerSpec> = {}): StdioServerSpec {
  return {
    name,
    transport: "stdio",
    command: process.execPath,
    args: [ECHO_SERVER],
    env: {},
    connectTimeoutMs: 5000,
    callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
    ...extra,
  };
}

export function remoteSpec(transport: "http" | "sse", url: string, headers: Record<string, string> = {}): McpServerSpec {
  return { name: `echo-${transport}`, transport, url, headers, connectTimeoutMs: 5000, callTimeoutMs: 5000 };
}

export class RecordingApprover implements Approver {
  readonly commands: string[] = [];
  constructor(private readonly answer: ApprovalOutcome = { approved: true }) {}
  async approveEdit(): Promise<ApprovalOutcome> {
    return { approved: false, reason: "not expected" };
  }
  async approveCommand(command: string): Promise<ApprovalOutcome> {
    this.commands.push(command);
    return this.answer;
  }
}

export function fakeContext(approver: Approver = new RecordingApprover(), signal = new AbortController().signal): ToolContext {
  return {
    sessionId: "s1",
    toolCallId: "call_1",
    cwd: "/tmp",
    signal,
    fs: {
      readText: async () => "",
      writeText: async () => undefined,
    },
    shell: {
      run: async () => ({ output: "", exitCode: 0, timedOut: false, truncated: false }),
    },
    approver,
    state: new Map(),
    progress: async () => undefined,
  };
}


export async function waitFor(check: () => boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await Bun.sleep(20);
  }
  return check();
}

export { pidAlive } from "../helpers/processes.ts";
