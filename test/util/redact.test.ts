import { describe, expect, test } from "bun:test";
import { mask, redact } from "../../src/util/redact.ts";

describe("redact", () => {
  test("masks key shapes anywhere in the text, bearer tokens, and secret env values", () => {
    expect(redact("key sk-or-v1-abcdefghijklmnop1234 end", [])).toBe("key *** end");
    expect(redact("Authorization: Bearer abcdefghijklmnopqrstuv", [])).toBe("Authorization: Bearer ***");
    expect(redact("the value hunter2-long-secret here", ["hunter2-long-secret"])).toBe("the value *** here");
    expect(redact("AIzaSyA1234567890abcdefghijklmn", [])).toBe("***");
  });
  test("mask keeps only a hint", () => {
    expect(mask("sk-or-v1-abcdefghijklmnop")).toBe("sk-o…op");
    expect(mask("short")).toBe("***");
  });
});
