import type * as acp from "@agentclientprotocol/sdk";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { extname } from "node:path";
import type { ContentPart, MessageContent } from "../agent/messages.ts";
import { pathFromFileUri } from "../session/cwd.ts";

/** hermes-behaviour §10.2: attachments are inlined up to 512 KiB. */
export const MAX_RESOURCE_BYTES = 524288;

export type UserInput = {
  /** The typed text (text blocks joined), used for slash commands, titles and queue notes. */
  text: string;
  /** What the model receives: a string when every part is text, else multimodal parts. */
  content: MessageContent;
};

const IMAGE_MIME_BY_EXT: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".svg": "image/svg+xml",
};

const TEXT_MIMES = new Set([
  "application/json",
  "application/javascript",
  "application/typescript",
  "application/xml",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/sql",
]);

function isTextMime(mime: string | null | undefined): boolean {
  if (!mime) return false;
  const m = mime.split(";")[0]!.trim().toLowerCase();
  return m.startsWith("text/") || TEXT_MIMES.has(m);
}

function lastSegment(uri: string): string {
  const path = pathFromFileUri(uri) ?? uri;
  const seg = path.split(/[\\/]/).filter(Boolean).pop();
  return seg ?? "";
}

function displayName(opts: { title?: string | null; name?: string | null; uri?: string }): string {
  const { title, name, uri } = opts;
  if (title && name && title !== name) return `${title} (${name})`;
  return title || name || (uri ? lastSegment(uri) || uri : "") || "resource";
}

function imageMime(mime: string | null | undefined, path: string): string | null {
  if (mime?.startsWith("image/")) return mime;
  return IMAGE_MIME_BY_EXT[extname(path).toLowerCase()] ?? null;
}

function attachedFile(display: string, uri: string, body: string, note?: string): ContentPart {
  return { type: "text", text: `[Attached file: ${display}]${note ? ` (${note})` : ""}\nURI: ${uri}\n\n${body}` };
}

/** Bytes as text: binary (NUL and not text-like) → null; else UTF-8 (BOM stripped) with latin-1 fallback. */
function decodeText(bytes: Uint8Array, mime: string | null | undefined): string | null {
  if (bytes.includes(0) && !isTextMime(mime)) return null;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    return new TextDecoder("latin1").decode(bytes);
  }
}

/** Reads at most `max` bytes without loading a huge file whole. */
function readHead(path: string, max: number): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const buf = new Uint8Array(max);
    const n = readSync(fd, buf, 0, max, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function resourceLinkParts(block: acp.ResourceLink): ContentPart[] {
  const { uri } = block;
  if (!uri) return [];
  const display = displayName({ title: block.title, name: block.name, uri });
  const path = pathFromFileUri(uri);
  if (!path) {
    return [attachedFile(display, uri, "[Resource link only; Hermes cannot read non-file ACP resource URIs directly.]")];
  }
  const mimeImage = imageMime(block.mimeType, path);
  if (mimeImage) {
    try {
      const size = statSync(path).size;
      if (size > MAX_RESOURCE_BYTES) {
        return [attachedFile(display, uri, `[Image too large to inline: ${size} bytes, cap=${MAX_RESOURCE_BYTES}]`)];
      }
      const data = readFileSync(path).toString("base64");
      return [
        { type: "text", text: `[Attached image: ${display}]\nURI: ${uri}` },
        { type: "image_url", image_url: { url: `data:${mimeImage};base64,${data}` } },
      ];
    } catch (e) {
      return [attachedFile(display, uri, `[Could not read attached image: ${errorText(e)}]`)];
    }
  }
  try {
    const size = statSync(path).size;
    const bytes = readHead(path, MAX_RESOURCE_BYTES);
    const text = decodeText(bytes, block.mimeType);
    if (text === null) {
      return [attachedFile(display, uri, `[Binary file omitted: ${size} bytes, mime=${block.mimeType || "unknown"}]`)];
    }
    const note = size > MAX_RESOURCE_BYTES ? `truncated to ${MAX_RESOURCE_BYTES} of ${size} bytes` : undefined;
    return [attachedFile(display, uri, text, note)];
  } catch (e) {
    return [attachedFile(display, uri, `[Could not read attached file: ${errorText(e)}]`)];
  }
}

function decodeBase64Strict(data: string): Uint8Array {
  if (/^[A-Za-z0-9+/]*={0,2}$/.test(data.replace(/\s/g, "")) && data.replace(/\s/g, "").length % 4 === 0) {
    return new Uint8Array(Buffer.from(data, "base64"));
  }
  return new TextEncoder().encode(data);
}

function embeddedParts(block: acp.EmbeddedResource): ContentPart[] {
  const res = block.resource;
  const uri = res.uri ?? "";
  if ("text" in res && typeof res.text === "string") {
    return [{ type: "text", text: `[Attached file: ${lastSegment(uri) || uri || "resource"}]\nURI: ${uri}\n\n${res.text}` }];
  }
  if (!("blob" in res) || typeof res.blob !== "string") return [];
  const bytes = decodeBase64Strict(res.blob);
  const display = lastSegment(uri) || "resource";
  const mime = res.mimeType;
  if (mime?.startsWith("image/") || imageMime(mime, uri)) {
    if (bytes.length > MAX_RESOURCE_BYTES) {
      return [{ type: "text", text: `[Embedded image too large to inline: ${bytes.length} bytes, cap=${MAX_RESOURCE_BYTES}]` }];
    }
    const m = imageMime(mime, uri) ?? "image/png";
    return [
      { type: "text", text: `[Attached image: ${display}]${uri ? `\nURI: ${uri}` : ""}` },
      { type: "image_url", image_url: { url: `data:${m};base64,${Buffer.from(bytes).toString("base64")}` } },
    ];
  }
  const text = decodeText(bytes.subarray(0, MAX_RESOURCE_BYTES), mime);
  if (text === null) {
    return [{ type: "text", text: `[Binary embedded file omitted: ${bytes.length} bytes, mime=${mime || "unknown"}]` }];
  }
  const tail = bytes.length > MAX_RESOURCE_BYTES ? `\n\n[Truncated to ${MAX_RESOURCE_BYTES} of ${bytes.length} bytes]` : "";
  return [{ type: "text", text: `[Attached file: ${display}]\nURI: ${uri}\n\n${text}${tail}` }];
}

/** Converts ACP prompt blocks to what the model receives (hermes-behaviour §10.1–§10.3). */
export function toUserInput(blocks: acp.ContentBlock[]): UserInput {
  const texts: string[] = [];
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        if (block.text) parts.push({ type: "text", text: block.text });
        break;
      case "image": {
        const url = block.data
          ? block.data.startsWith("data:")
            ? block.data
            : `data:${block.mimeType || "image/png"};base64,${block.data}`
          : block.uri;
        if (url) parts.push({ type: "image_url", image_url: { url } });
        break;
      }
      case "resource_link":
        parts.push(...resourceLinkParts(block));
        break;
      case "resource":
        parts.push(...embeddedParts(block));
        break;
      case "audio":
        parts.push({ type: "text", text: "[Audio attachment omitted: Hermes cannot process audio input.]" });
        break;
    }
  }
  const text = texts.join("\n").trim();
  if (parts.length === 0) return { text, content: texts.join("\n") };
  if (parts.every((p) => p.type === "text")) {
    return { text, content: parts.map((p) => (p.type === "text" ? p.text : "")).join("\n") };
  }
  return { text, content: parts };
}

