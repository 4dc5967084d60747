// The shared frame of tests that drive the agent against the fake LLM: one server per file, and every
// harness started by a test closed after it.
import { afterAll, afterEach, beforeAll } from "bun:test";
import { startFakeLlm, type FakeLlmServer } from "./fake-llm-server.ts";
import type { Harness } from "./harness.ts";

export type LlmSuite = { readonly llm: FakeLlmServer; track(h: Harness): Harness };

export function fakeLlmSuite(): LlmSuite {
  let llm: FakeLlmServer | undefined;
  let harnesses: Harness[] = [];
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm?.stop());
  afterEach(async () => {
    for (const h of harnesses) await h.close();
    harnesses = [];
  });
  return {
    get llm() {
      if (!llm) throw new Error("the fake LLM starts in beforeAll");
      return llm;
    },
    track(h) {
      harnesses.push(h);
      return h;
    },
  };
}
