import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_RESOURCE_BYTES, toUserInput } from "../../src/protocol/content.ts";
import { tempDir } from "../helpers/harness.ts";

describe("prompt blocks → model input (hermes-behaviour §10)", () => {
  test("text only stays a string (slash commands keep working)", () => {
    expect(toUserInput([{ type: "text", text: "/help" }])).toEqual({ text: "/help", content: "/help" });
  });

  test("text + image → multimodal parts with a data URL", () => {
    const r = toUserInput([
      { type: "text", text: "look" },
      { type: "image", mimeType: "image/png", data: "aGVsbG8=" },
    ]);
    expect(r.content).toEqual([
      { type: "text", text: "look" },
      { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } },
    ]);
  });

  test("resource_link to a text file inlines it with the exact header", () => {
    const dir = tempDir();
    const path = join(dir, "notes.md");
    writeFileSync(path, "# Notes\n\nAttached file body");
    const uri = `file://${path}`;
    const r = toUserInput([
      { type: "text", text: "Please read this file" },
      { type: "resource_link", uri, name: "notes.md", title: "Project notes" },
    ]);
    expect(r.content).toBe(`Please read this file\n[Attached file: Project notes (notes.md)]\nURI: ${uri}\n\n# Notes\n\nAttached file body`);
  });

  test("embedded text resource", () => {
    const r = toUserInput([{ type: "resource", resource: { uri: "file:///workspace/todo.txt", text: "first\nsecond" } }]);
    expect(r.content).toBe("[Attached file: todo.txt]\nURI: file:///workspace/todo.txt\n\nfirst\nsecond");
  });

  test("resource_link to an image (mime guessed from the suffix) and an embedded PNG blob", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "shot.jpg"), Buffer.from([0xff, 0xd8, 0xff]));
    const link = toUserInput([{ type: "resource_link", uri: `file://${dir}/shot.jpg`, name: "shot.jpg" }]);
    expect(JSON.stringify(link.content)).toContain("[Attached image: shot.jpg]");
    expect(JSON.stringify(link.content)).toContain("data:image/jpeg;base64,");
    const blob = toUserInput([{ type: "resource", resource: { uri: "file:///x/embed.png", mimeType: "image/png", blob: "aGVsbG8=" } }]);
    expect(blob.content).toEqual([
      { type: "text", text: "[Attached image: embed.png]\nURI: file:///x/embed.png" },
      { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } },
    ]);
  });

  test("big files are truncated to 512 KiB with a note; binary files are omitted; non-file URIs are links only", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "big.txt"), "a".repeat(MAX_RESOURCE_BYTES + 10));
    const big = toUserInput([{ type: "resource_link", uri: `file://${dir}/big.txt`, name: "big.txt" }]);
    expect(String(big.content)).toContain(`(truncated to ${MAX_RESOURCE_BYTES} of ${MAX_RESOURCE_BYTES + 10} bytes)`);
    writeFileSync(join(dir, "bin.dat"), Buffer.from([1, 0, 2, 0]));
    const bin = toUserInput([{ type: "resource_link", uri: `file://${dir}/bin.dat`, name: "bin.dat" }]);
    expect(String(bin.content)).toContain("[Binary file omitted: 4 bytes, mime=unknown]");
    const web = toUserInput([{ type: "resource_link", uri: "https://example.com/x", name: "x" }]);
    expect(String(web.content)).toContain("[Resource link only; Hermes cannot read non-file ACP resource URIs directly.]");
    const missing = toUserInput([{ type: "resource_link", uri: `file://${dir}/nope.txt`, name: "nope.txt" }]);
    expect(String(missing.content)).toContain("[Could not read attached file:");
  });

  test("audio is refused with a clear note", () => {
    const r = toUserInput([{ type: "audio", mimeType: "audio/wav", data: "AAAA" }]);
    expect(String(r.content)).toContain("cannot process audio");
  });
});
