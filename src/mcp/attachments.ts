// The session layer's whole view of MCP: attach a session to its servers, get their tools and status,
// release them. Servers that fail are statuses, never errors: a broken server must not break a session.
import type { AnyTool } from "../tools/types.ts";
import type { McpConnection } from "./connection.ts";
import { mcpPool, type McpPool } from "./pool.ts";
export { sessionSpecs } from "./server-spec.ts";
import { describeSpec, sessionSpecs, specKey, specsFromAcp, specsFromConfig, type McpServerSpec, type SpecProblem } from "./server-spec.ts";
import { toolsFromConnections } from "./tools.ts";

export { MCP_CAPABILITIES } from "./capabilities.ts";

export type McpServerStatus = {
  name: string;
  state: "connecting" | "connected" | "failed" | "closed";
  /** Why it failed, or where it runs. */
  detail?: string;
  tools: number;
};

type Attached = { name: string; spec: McpServerSpec; connection: McpConnection };

/** The attachment that currently speaks for each session (a newer attach supersedes an older one). */
const current = new Map<string, McpAttachment>();

export class McpAttachment {
  #released = false;
  #cache: { key: string; tools: AnyTool[] } | undefined;

  constructor(
    readonly sessionId: string,
    private readonly servers: readonly Attached[],
    private readonly problems: readonly SpecProblem[],
    private readonly pool: McpPool,
  ) {}

  /** The MCP tools to offer this session's model now; rebuilt only when a server's tool list changed. */
  tools(): AnyTool[] {
    if (this.#released) return [];
    const key = this.servers.map((s) => `${s.connection.tools.length}:${s.connection.tools.map((t) => t.name).join(",")}`).join("|");
    if (this.#cache?.key !== key) this.#cache = { key, tools: toolsFromConnections(this.servers) };
    return this.#cache.tools;
  }

  status(): McpServerStatus[] {
    const out: McpServerStatus[] = this.servers.map(({ name, spec, connection }) => {
      const s = connection.status;
      return { name, state: s.state, detail: s.state === "failed" ? s.reason : describeSpec(spec), tools: connection.tools.length };
    });
    for (const p of this.problems) out.push({ name: p.name, state: "failed", detail: `invalid settings: ${p.error}`, tools: 0 });
    return out;
  }

  /** One line per server for `/tools`. */
  statusLines(): string[] {
    return this.status().map((s) => {
      const icon = s.state === "connected" ? "✓" : s.state === "failed" ? "✗" : "…";
      const tools = s.state === "connected" ? `, ${s.tools} tool${s.tools === 1 ? "" : "s"}` : "";
      return `${icon} ${s.name}: ${s.state}${tools}${s.detail ? ` — ${s.detail}` : ""}`;
    });
  }

  /** Lets go of this session's servers; the last session to leave a server closes it. Idempotent. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    if (current.get(this.sessionId) !== this) return;
    current.delete(this.sessionId);
    await this.pool.release(this.sessionId);
  }
}

export class McpAttachments {
  /**
   * Connects (or joins) every server in `servers` for `sessionId`, in parallel; resolves when each is
   * connected or failed (bounded by its connect timeout, 10 s by default). Never rejects. Attaching a
   * session again replaces its previous attachment: servers no longer listed are released.
   */
  static async attach(
    sessionId: string,
    servers: readonly McpServerSpec[],
    options: { problems?: readonly SpecProblem[]; pool?: McpPool } = {},
  ): Promise<McpAttachment> {
    const pool = options.pool ?? mcpPool;
    const attached = await Promise.all(
      servers.map(async (spec): Promise<Attached> => ({ name: spec.name, spec, connection: await pool.acquire(spec, sessionId) })),
    );
    const attachment = new McpAttachment(sessionId, attached, options.problems ?? [], pool);
    current.set(sessionId, attachment);
    await pool.release(sessionId, new Set(servers.map(specKey)));
    return attachment;
  }

  static specsFromAcp = specsFromAcp;
  static specsFromConfig = specsFromConfig;
  static sessionSpecs = sessionSpecs;

  /** At agent exit: closes every MCP connection (stdio process groups included). */
  static closeAll(pool: McpPool = mcpPool): Promise<void> {
    current.clear();
    return pool.closeAll();
  }
}
