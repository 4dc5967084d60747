// Each MCP tool as one of our tools: Hermes' name (`mcp_<server>_<tool>`), the server's description and
// JSON schema passed through to the model, and a run() that asks first unless the tool says it is read-only.
import { createHash } from "node:crypto";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ToolKind } from "../agent/events.ts";
import { defineTool, type AnyTool, type ToolResult } from "../tools/types.ts";
import { approveMcpToolCall } from "./approval.ts";
import type { McpConnection, McpToolDef } from "./connection.ts";
import { formatCallResult } from "./result-format.ts";
import { sanitizeMcpName } from "./server-spec.ts";

/** Providers reject longer function names (OpenAI: ^[a-zA-Z0-9_-]{1,64}$). */
const MAX_TOOL_NAME = 64;

/** `mcp_<server>_<tool>`, sanitised as Hermes does; over-long names keep a hash suffix so they stay unique. */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp_${sanitizeMcpName(server)}_${sanitizeMcpName(tool)}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/**
 * ACP kind from the server's hints. Hints are advisory (MCP spec), so they only pick the card's icon,
 * except readOnlyHint, which also skips approval, as the user trusted the server by adding it.
 */
export function mcpToolKind(def: McpToolDef): ToolKind {
  const hints = def.annotations ?? {};
  if (hints.readOnlyHint === true) return hints.openWorldHint === true ? "fetch" : "read";
  if (hints.destructiveHint === true) return "edit";
  if (hints.openWorldHint === true) return "fetch";
  return "other";
}

/** Keys zod's registry would choke on (`id` must be unique there) or that only add noise for providers. */
const DROPPED_SCHEMA_KEYS = new Set(["$schema", "$id", "id"]);

/**
 * The server validates arguments itself, so we accept any object and only carry the server's JSON schema
 * (as zod metadata, which `z.toJSONSchema` merges over the object) to the model.
 */
export function passThroughSchema(inputSchema: McpToolDef["inputSchema"]): z.ZodType<Record<string, unknown>> {
  const meta: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(inputSchema)) if (!DROPPED_SCHEMA_KEYS.has(key)) meta[key] = value;
  meta.type = "object";
  // Hermes' normalisation: providers reject an object schema without properties.
  meta.properties ??= {};
  return z.looseObject({}).meta(meta);
}

function abortError(): Error {
  const error = new Error("MCP tool call cancelled");
  error.name = "AbortError";
  return error;
}

function describeCallError(e: unknown, server: string, tool: string, connection: McpConnection): string {
  const status = connection.status;
  if (status.state === "failed") {
    return `MCP server '${server}' stopped while running '${tool}': ${status.reason}. Its tools cannot be used for now; tell the user.`;
  }
  if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) {
    return `MCP tool '${tool}' on server '${server}' timed out after ${connection.spec.callTimeoutMs / 1000} s. Try smaller input, or tell the user the server is slow.`;
  }
  if (e instanceof McpError && e.code === ErrorCode.InvalidParams) {
    return `MCP tool '${tool}' rejected the arguments: ${e.message}. Fix them to match the tool's schema.`;
  }
  const message = e instanceof Error ? e.message : String(e);
  return `MCP tool '${tool}' on server '${server}' failed: ${message}`;
}

function unavailable(server: string, connection: McpConnection): ToolResult {
  const status = connection.status;
  const why = status.state === "failed" ? status.reason : status.state;
  return {
    output: `MCP server '${server}' is not available (${why}), so its tools cannot run. Do not retry; tell the user.`,
    failed: true,
  };
}

/** One AnyTool for one MCP tool. `server` is the display name the session gave the server. */
export function toolFromMcp(server: string, connection: McpConnection, def: McpToolDef): AnyTool {
  const name = mcpToolName(server, def.name);
  const readOnly = def.annotations?.readOnlyHint === true;
  return defineTool<Record<string, unknown>>({
    name,
    description: def.description?.trim() || def.title || `MCP tool ${def.name} from server ${server}`,
    parameters: passThroughSchema(def.inputSchema),
    kind: mcpToolKind(def),
    // Hermes titles unknown tools with their name.
    title: () => name,
    locations: () => [],
    async run(args, ctx): Promise<ToolResult> {
      if (connection.status.state !== "connected") return unavailable(server, connection);
      if (!readOnly) {
        const request = { server, tool: def.name, toolName: name, args, destructive: def.annotations?.destructiveHint !== false };
        const outcome = await approveMcpToolCall(ctx.approver, request, ctx.toolCallId, ctx.signal);
        if (!outcome.approved) {
          const output = outcome.reason.startsWith("BLOCKED")
            ? outcome.reason
            : `BLOCKED: ${outcome.reason}. The user has NOT consented to this tool call; do not retry it.`;
          return { output, failed: true };
        }
      }
      ctx.signal.throwIfAborted();
      try {
        const result = await connection.callTool(def.name, args, ctx.signal);
        const output = formatCallResult(result);
        if (result.isError === true) {
          return { output: output || `MCP tool '${def.name}' reported an error without details.`, failed: true };
        }
        return { output };
      } catch (e) {
        if (ctx.signal.aborted) throw abortError();
        return { output: describeCallError(e, server, def.name, connection), failed: true };
      }
    },
  });
}

/**
 * The tools of every server, named per `servers` (display name → connection); later duplicates dropped.
 * A server that died after listing keeps its tools, so calls explain the failure instead of "unknown tool".
 */
export function toolsFromConnections(servers: readonly { name: string; connection: McpConnection }[]): AnyTool[] {
  const tools: AnyTool[] = [];
  const seen = new Set<string>();
  for (const { name, connection } of servers) {
    for (const def of connection.tools) {
      const tool = toolFromMcp(name, connection, def);
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      tools.push(tool);
    }
  }
  return tools;
}
