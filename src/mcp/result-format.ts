// MCP tool results → the text the model reads. The ToolResult port is text-only, so images, audio and
// binary resources become short placeholders naming what was returned.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Results beyond this are cut: a runaway server must not flood the context. */
export const MAX_RESULT_CHARS = 100_000;

type Block = CallToolResult["content"][number];

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function formatBlock(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource": {
      const r = block.resource;
      if ("text" in r) return `[resource ${r.uri}]\n${r.text}`;
      return `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}, ${base64Bytes(r.blob)} bytes of binary data]`;
    }
    case "resource_link":
      return `[resource link: ${block.name} ${block.uri}]`;
    default:
      return "";
  }
}

export function formatCallResult(result: CallToolResult): string {
  const parts = result.content.map(formatBlock).filter((part) => part !== "");
  // Tools with an output schema may put everything in structuredContent.
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join("\n");
  if (text.length <= MAX_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_RESULT_CHARS)}\n... (${text.length} chars total, truncated)`;
}
