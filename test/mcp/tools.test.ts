import { describe, expect, test } from "bun:test";
import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { approveMcpToolCall, mcpApprovalCommand, type McpToolApprovalRequest } from "../../src/mcp/approval.ts";
import { formatCallResult, MAX_RESULT_CHARS } from "../../src/mcp/result-format.ts";
import { mcpToolKind, mcpToolName, passThroughSchema } from "../../src/mcp/tools.ts";
import type { ToolKind } from "../../src/agent/events.ts";
import type { ApprovalOutcome } from "../../src/tools/types.ts";
import { RecordingApprover } from "./helpers.ts";

describe("mcpToolName", () => {
  test("Hermes' shape, and over-long names cut to 64 with a stable hash", () => {
    expect(mcpToolName("ai.exa/exa", "search")).toBe("mcp_ai_exa_exa_search");
    const long = mcpToolName("server", "x".repeat(80));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp_server_x+_[0-9a-f]{8}$/);
    expect(mcpToolName("server", "x".repeat(80))).toBe(long);
    expect(mcpToolName("server", `${"x".repeat(79)}y`)).not.toBe(long);
  });
});

describe("mcpToolKind", () => {
  const def = (annotations?: Record<string, boolean>) => ({ name: "t", inputSchema: { type: "object" as const }, annotations });
  test.each<[Record<string, boolean> | undefined, ToolKind]>([
    [undefined, "other"],
    [{ readOnlyHint: true }, "read"],
    [{ readOnlyHint: true, openWorldHint: true }, "fetch"],
    [{ destructiveHint: true }, "edit"],
    [{ destructiveHint: false, openWorldHint: true }, "fetch"],
    [{ idempotentHint: true }, "other"],
  ])("%j → %s", (annotations, kind) => {
    expect(mcpToolKind(def(annotations))).toBe(kind);
  });
});

describe("passThroughSchema", () => {
  test("carries the server's schema to JSON Schema, drops ids, adds missing properties, accepts any object", () => {
    const schema = passThroughSchema({ type: "object", id: "urn:x", $schema: "http://json-schema.org/draft-07/schema#", required: [] });
    const json = z.toJSONSchema(schema, { io: "input" });
    expect(json).toMatchObject({ type: "object", properties: {}, required: [] });
    expect(json).not.toHaveProperty("id");
    // The same `id` twice must not collide in zod's global registry.
    expect(() => passThroughSchema({ type: "object", id: "urn:x" })).not.toThrow();
    expect(schema.safeParse({ anything: [1] }).success).toBe(true);
    expect(schema.safeParse("text").success).toBe(false);
  });
});

describe("formatCallResult", () => {
  test("text, binary placeholders, resource links, structured content", () => {
    const result: CallToolResult = {
      content: [
        { type: "text", text: "hello" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///b.bin", mimeType: "application/octet-stream", blob: "AAAAAA==" } },
        { type: "resource_link", name: "doc", uri: "https://x/doc" },
      ],
    };
    expect(formatCallResult(result)).toBe(
      "hello\n[audio: audio/wav, 3 bytes]\n[resource file:///b.bin (application/octet-stream), 4 bytes of binary data]\n[resource link: doc https://x/doc]",
    );
    expect(formatCallResult({ content: [], structuredContent: { n: 1 } })).toBe('{"n":1}');
  });

  test("caps runaway output", () => {
    const out = formatCallResult({ content: [{ type: "text", text: "z".repeat(MAX_RESULT_CHARS + 10) }] });
    expect(out).toEndWith(`\n... (${MAX_RESULT_CHARS + 10} chars total, truncated)`);
  });
});

describe("approveMcpToolCall", () => {
  const request: McpToolApprovalRequest = { server: "gh", tool: "create_issue", toolName: "mcp_gh_create_issue", args: { title: "t" }, destructive: false };
  const signal = new AbortController().signal;

  test("falls back to a command-style approveCommand", async () => {
    const approver = new RecordingApprover();
    expect(await approveMcpToolCall(approver, request, "c1", signal)).toEqual({ approved: true });
    expect(approver.commands).toEqual(['gh/create_issue {"title":"t"}']);
    expect(mcpApprovalCommand({ ...request, args: { body: "b".repeat(1000) } })).toHaveLength("gh/create_issue ".length + 500);
  });

  test("uses approveMcpTool when the approver offers it", async () => {
    const seen: McpToolApprovalRequest[] = [];
    const approver = Object.assign(new RecordingApprover(), {
      async approveMcpTool(req: McpToolApprovalRequest): Promise<ApprovalOutcome> {
        seen.push(req);
        return { approved: false, reason: "nope" };
      },
    });
    expect(await approveMcpToolCall(approver, request, "c1", signal)).toEqual({ approved: false, reason: "nope" });
    expect(seen).toEqual([request]);
    expect(approver.commands).toEqual([]);
  });
});
