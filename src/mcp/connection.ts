// One live MCP client: connects once, lists the tools, runs calls, and records why it stopped working.
// It never throws out of connecting: a server that cannot start is a status, not a session failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Tool as McpToolDef } from "@modelcontextprotocol/sdk/types.js";
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

class ConnectTimeoutError extends Error {}

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
  #transport: Transport | undefined;
  #closing = false;

  constructor(
    readonly key: string,
    readonly spec: McpServerSpec,
  ) {
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
    // Stray stdout lines and dropped SSE streams land here; calls report their own failures.
    this.#client.onerror = (error) => log.debug(`MCP server '${spec.name}': ${error.message}`);
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
      timer = setTimeout(() => reject(new ConnectTimeoutError()), connectTimeoutMs);
    });
    try {
      await Promise.race([this.#handshake(), timeout]);
      if (this.#state.state === "connecting") {
        this.#state = { state: "connected" };
        if (this.#transport instanceof GroupStdioTransport) this.#transport.clearStderrTail();
        log.info(`MCP server '${this.spec.name}' connected: ${this.#tools.length} tool(s)`);
      }
    } catch (e) {
      if (this.#transport instanceof GroupStdioTransport && !(e instanceof ConnectTimeoutError)) {
        await this.#transport.settle(STARTUP_EXIT_WAIT_MS);
      }
      this.#fail(this.#explainStartFailure(e));
      await this.#transport?.close().catch(() => undefined);
    } finally {
      clearTimeout(timer);
    }
  }

  async #handshake(): Promise<void> {
    const options = { timeout: this.spec.connectTimeoutMs };
    const transport = await createTransport(this.spec);
    this.#transport = transport;
    if (this.#closing) throw new Error("closed while connecting");
    await this.#client.connect(transport, options);
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
    const timedOut = e instanceof ConnectTimeoutError || (e instanceof McpError && e.code === ErrorCode.RequestTimeout);
    const why = timedOut ? `no answer within ${this.spec.connectTimeoutMs / 1000} s` : errorText(e);
    if (!(t instanceof GroupStdioTransport)) return `${describeSpec(this.spec)}: ${why}`;
    if (t.pid === undefined) return `could not start '${describeSpec(this.spec)}': ${why}`;
    const stderr = lastLines(t.stderrTail);
    const exit = timedOut ? undefined : t.exitDescription;
    if (exit) return `exited during startup (${exit})${stderr ? `: ${stderr}` : ""}`;
    return `${why}${stderr ? ` (stderr: ${stderr})` : ""}`;
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
      if (!(t instanceof GroupStdioTransport)) return this.#fail("the server closed the connection");
      const exit = t.exitDescription;
      const stderr = lastLines(t.stderrTail, 2);
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
    await this.#transport?.close().catch(() => undefined);
  }
}

/** HTTP and SSE client code (and the eventsource package) load only when a remote server is used. */
async function createTransport(spec: McpServerSpec): Promise<Transport> {
  switch (spec.transport) {
    case "stdio":
      return new GroupStdioTransport(spec);
    case "http": {
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
      return new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers } });
    }
    case "sse": {
      const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
      return new SSEClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers } });
    }
  }
}
