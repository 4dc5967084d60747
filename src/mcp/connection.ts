// One live MCP client: connects once, lists the tools, runs calls, and records why it stopped working.
// It never throws out of connecting: a server that cannot start is a status, not a session failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, type CallToolResult, type Tool as McpToolDef } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../util/log.ts";
import { VERSION } from "../version.ts";
import { describeSpec, type McpServerSpec } from "./server-spec.ts";
import { GroupStdioTransport } from "./stdio-transport.ts";

export type { McpToolDef };

export type ConnectionState =
  | { state: "connecting" }
  | { state: "connected" }
  | { state: "failed"; reason: string }
  | { state: "closed" };

const MAX_TOOL_PAGES = 50;
/** How long a failed start waits for the exit status and last stderr lines that explain it. */
const STARTUP_EXIT_WAIT_MS = 500;

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function lastLines(text: string, max = 3): string {
  return text.split(/\r?\n/).filter((l) => l.trim()).slice(-max).join(" | ");
}

export class McpConnection {
  readonly ready: Promise<void>;
  /** Called once when the server stops working on its own (crash, startup failure), not on close(). */
  onDead: (() => void) | undefined;
  #state: ConnectionState = { state: "connecting" };
  #tools: McpToolDef[] = [];
  readonly #client: Client;
  readonly #transport: Transport;
  #closing = false;

  constructor(
    readonly key: string,
    readonly spec: McpServerSpec,
  ) {
    this.#transport = createTransport(spec);
    this.#client = new Client(
      { name: "hermes-acp", version: VERSION },
      {
        capabilities: {},
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (error) log.warn(`MCP server '${spec.name}': refreshing its tool list failed: ${error.message}`);
              else if (tools) this.#tools = tools;
            },
          },
        },
      },
    );
    this.#client.onclose = () => this.#onClosed();
    this.ready = this.#connect();
  }

  get status(): ConnectionState {
    return this.#state;
  }

  get tools(): readonly McpToolDef[] {
    return this.#tools;
  }

  /** The stdio server's process (group leader) id, when it runs locally. */
  get pid(): number | undefined {
    return this.#transport instanceof GroupStdioTransport ? this.#transport.pid : undefined;
  }

  async #connect(): Promise<void> {
    const { connectTimeoutMs } = this.spec;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${connectTimeoutMs / 1000} s`)), connectTimeoutMs);
    });
    try {
      await Promise.race([this.#handshake(), timeout]);
      if (this.#state.state === "connecting") {
        this.#state = { state: "connected" };
        if (this.#transport instanceof GroupStdioTransport) this.#transport.clearStderrTail();
        log.info(`MCP server '${this.spec.name}' connected: ${this.#tools.length} tool(s)`);
      }
    } catch (e) {
      if (this.#transport instanceof GroupStdioTransport) await this.#transport.settle(STARTUP_EXIT_WAIT_MS);
      this.#fail(this.#explainStartFailure(e));
      await this.#transport.close().catch(() => undefined);
    } finally {
      clearTimeout(timer);
    }
  }

  async #handshake(): Promise<void> {
    const options = { timeout: this.spec.connectTimeoutMs };
    await this.#client.connect(this.#transport, options);
    const tools: McpToolDef[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await this.#client.listTools(cursor ? { cursor } : {}, options);
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    this.#tools = tools;
  }

  #explainStartFailure(e: unknown): string {
    const t = this.#transport;
    if (t instanceof GroupStdioTransport) {
      if (t.pid === undefined) return `could not start '${this.spec.transport === "stdio" ? this.spec.command : ""}': ${errorText(e)}`;
      const exit = t.exitDescription;
      const stderr = lastLines(t.stderrTail);
      if (exit) return `exited during startup (${exit})${stderr ? `: ${stderr}` : ""}`;
      return `${errorText(e)}${stderr ? ` (stderr: ${stderr})` : ""}`;
    }
    return `${describeSpec(this.spec)}: ${errorText(e)}`;
  }

  #fail(reason: string): void {
    if (this.#state.state === "failed" || this.#state.state === "closed") return;
    this.#state = { state: "failed", reason };
    log.warn(`MCP server '${this.spec.name}' failed: ${reason}`);
    this.onDead?.();
  }

  #onClosed(): void {
    if (this.#closing) return;
    const t = this.#transport;
    if (this.#state.state === "connected") {
      const exit = t instanceof GroupStdioTransport ? t.exitDescription : undefined;
      const stderr = t instanceof GroupStdioTransport ? lastLines(t.stderrTail, 2) : "";
      this.#fail(`server stopped${exit ? ` (${exit})` : ""}${stderr ? `: ${stderr}` : ""}`);
    }
  }

  /** Runs one tool. Rejects on transport errors, timeouts and cancellation; the caller words them. */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const result = await this.#client.callTool({ name, arguments: args }, undefined, {
      signal,
      timeout: this.spec.callTimeoutMs,
    });
    const parsed = CallToolResultSchema.safeParse(result);
    if (parsed.success) return parsed.data;
    // Servers from before 2024-11 answer `{toolResult}`; present it as text.
    return { content: [{ type: "text", text: JSON.stringify("toolResult" in result ? result.toolResult : result) }] };
  }

  /** Closes the client and (stdio) kills the server's process group. Idempotent. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    if (this.#state.state !== "failed") this.#state = { state: "closed" };
    try {
      await this.#client.close();
    } catch (e) {
      log.debug(`closing MCP server '${this.spec.name}' raised`, e);
    }
    await this.#transport.close().catch(() => undefined);
  }
}

function createTransport(spec: McpServerSpec): Transport {
  switch (spec.transport) {
    case "stdio":
      return new GroupStdioTransport(spec);
    case "http":
      return new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers } });
    case "sse":
      return new SSEClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers } });
  }
}
