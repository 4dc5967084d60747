import type { Services } from "../app/services.ts";
import type { EventSink } from "../agent/events.ts";
import type { McpAttachment } from "../mcp/attachments.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { AnyTool } from "../tools/types.ts";
import { log } from "../util/log.ts";

/**
 * A session's MCP servers (config.yaml's and the client's), connecting in the background so
 * session/new answers at once; turns wait for them. Servers that fail are notices, never errors.
 */
export class SessionMcp {
  private attachment: Promise<McpAttachment | undefined> = Promise.resolve(undefined);
  private registryCache: { mcpTools: AnyTool[]; registry: ToolRegistry } | undefined;
  /** Set once the session has asked for its servers (a resume without a list keeps them). */
  attached = false;

  constructor(
    private readonly sessionId: string,
    private readonly services: Services,
    private readonly sink: EventSink,
  ) {}

  /** Connects `clientServers` plus the configured ones; a later call replaces the set. */
  attach(clientServers: unknown, cwd: string): void {
    this.attached = true;
    const cfg = this.services.config();
    const previous = this.attachment;
    this.attachment = (async () => {
      const { sessionSpecs } = await import("../mcp/server-spec.ts");
      const { specs, problems } = sessionSpecs(cfg.ok ? cfg.config : undefined, clientServers, cwd);
      if (specs.length === 0 && problems.length === 0) {
        await (await previous)?.release();
        return undefined;
      }
      // The MCP SDK loads only for sessions that have servers.
      const { McpAttachments } = await import("../mcp/attachments.ts");
      const attachment = await McpAttachments.attach(this.sessionId, specs, { problems });
      for (const s of attachment.status()) {
        if (s.state !== "failed") continue;
        log.warn(`MCP server '${s.name}' is unavailable: ${s.detail ?? "failed"}`);
        void this.sink.emit({ type: "notice", severity: "warning", title: `MCP server ${s.name} unavailable`, description: s.detail });
      }
      return attachment;
    })().catch((e) => {
      log.warn(`MCP setup for session ${this.sessionId} failed`, e);
      return undefined;
    });
  }

  /** The built-in tools plus the servers' tools (rebuilt only when a server's list changed). */
  async registry(builtin: ToolRegistry): Promise<ToolRegistry> {
    const mcpTools = (await this.attachment)?.tools() ?? [];
    if (mcpTools.length === 0) return builtin;
    if (this.registryCache?.mcpTools !== mcpTools) {
      const { ToolRegistry } = await import("../tools/registry.ts");
      this.registryCache = { mcpTools, registry: new ToolRegistry([...builtin.list(), ...mcpTools]) };
    }
    return this.registryCache.registry;
  }

  async statusLines(): Promise<string[]> {
    return (await this.attachment)?.statusLines() ?? [];
  }

  release(): void {
    void this.attachment.then((m) => m?.release());
  }
}
