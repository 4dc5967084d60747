import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";
import { loadTranscript, runTranscript, saveTranscript } from "../helpers/transcript.ts";

const dir = join(import.meta.dir, "cases");
let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm.stop());

describe("recorded JSON-RPC transcripts", () => {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
    test(file.replace(/\.json$/, ""), async () => {
      const path = join(dir, file);
      const t = loadTranscript(path);
      const actual = await runTranscript(t, llm);
      if (process.env.UPDATE_TRANSCRIPTS === "1" || !t.expected) {
        saveTranscript(path, { ...t, expected: actual });
        if (!t.expected) throw new Error(`${file} had no expected frames; recorded them — review and commit`);
      } else {
        expect(actual).toEqual(t.expected);
      }
    });
  }
});
