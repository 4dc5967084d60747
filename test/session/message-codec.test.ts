import { describe, expect, test } from "bun:test";
import type { ChatMessage } from "../../src/agent/messages.ts";
import {
  decodeContent,
  decodeToolCalls,
  encodeContent,
  fromMessageRow,
  JSON_CONTENT_PREFIX,
  storedMessageRow,
  type StoredMessageRow,
  toMessageRow,
} from "../../src/session/message-codec.ts";

const row = (over: Partial<StoredMessageRow>): StoredMessageRow => ({
  id: 1, role: "user", content: null, tool_call_id: null, tool_calls: null, tool_name: null,
  timestamp: 1, finish_reason: null, reasoning: null, reasoning_content: null, ...over,
});

describe("content encoding (state-db-schema §4)", () => {
  test("strings as-is, structures behind the NUL sentinel, null stays null", () => {
    expect(encodeContent("plain")).toBe("plain");
    expect(encodeContent(null)).toBeNull();
    expect(encodeContent([{ type: "text", text: "x" }])).toBe(`\u0000json:[{"type":"text","text":"x"}]`);
    expect(encodeContent({ a: 1 })).toBe(`${JSON_CONTENT_PREFIX}{"a":1}`);
    // Python's json.dumps spacing decodes just the same
    expect(decodeContent('\u0000json:[{"type": "text", "text": "x"}]')).toEqual([{ type: "text", text: "x" }]);
    expect(decodeContent("json:[1]")).toBe("json:[1]");
  });

  test("every ChatMessage variant round-trips through a row", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: [{ type: "text", text: "t" }, { type: "image_url", image_url: { url: "u" } }] },
      { role: "assistant", content: "a", reasoning: "r", reasoning_content: "rc", finish_reason: "stop" },
      { role: "assistant", content: null, tool_calls: [{ id: "1", type: "function", function: { name: "n", arguments: "{}" } }] },
      { role: "tool", content: "out", tool_call_id: "1", tool_name: "n" },
    ];
    for (const m of messages) {
      const r = toMessageRow(m);
      expect(fromMessageRow(row({ ...r }))).toEqual(m);
    }
    expect(toMessageRow({ role: "assistant", content: "x", tool_calls: [] }).tool_calls).toBeNull();
  });

  test("degrades gracefully on odd rows", () => {
    expect(fromMessageRow(row({ role: "session_meta" }))).toBeNull();
    expect(fromMessageRow(row({ role: "assistant", content: '\u0000json:[{"type":"text","text":"hi"}]' }))).toEqual({ role: "assistant", content: "hi" });
    expect(fromMessageRow(row({ role: "user", content: '\u0000json:[{"type":"input_audio"},{"type":"text","text":"k"}]' }))).toEqual({
      role: "user",
      content: [{ type: "text", text: "k" }],
    });
    expect(fromMessageRow(row({ role: "tool", content: '\u0000json:{"ok":true}' }))).toEqual({ role: "tool", content: '{"ok":true}', tool_call_id: "", tool_name: "" });
    expect(decodeToolCalls("not json")).toEqual([]);
    expect(decodeToolCalls('{"id":"x"}')).toEqual([]);
    expect(decodeToolCalls('[{"id":"x","type":"function","function":{"name":"n","arguments":{"a":1}}}]')).toEqual([
      { id: "x", type: "function", function: { name: "n", arguments: '{"a":1}' } },
    ]);
    // Each entry on its own: odd arguments become {}, a type other than function is read as one, extras dropped.
    expect(
      decodeToolCalls('[{"id":"a","type":"tool","function":{"name":"n","arguments":[1]},"x":1},{"id":2,"function":{"name":"n"}},{"id":"c","function":{"name":"m"}}]'),
    ).toEqual([
      { id: "a", type: "function", function: { name: "n", arguments: "{}" } },
      { id: "c", type: "function", function: { name: "m", arguments: "{}" } },
    ]);
  });

  test("a stored row: text columns of another type read as null; a row without id, role or time is skipped", () => {
    const raw = { ...row({ content: "hi" }), tool_name: 7, reasoning: new Uint8Array([1]), extra: "ignored" };
    expect(storedMessageRow(raw)).toEqual(row({ content: "hi" }));
    expect(storedMessageRow({ ...row({}), id: "1" })).toBeNull();
    expect(storedMessageRow({ ...row({}), role: null })).toBeNull();
    expect(storedMessageRow({ ...row({}), timestamp: undefined })).toBeNull();
    expect(storedMessageRow(null)).toBeNull();
  });
});
