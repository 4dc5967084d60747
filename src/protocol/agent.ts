import type * as acp from "@agentclientprotocol/sdk";
import type { Services } from "../app/services.ts";
import { log } from "../util/log.ts";
import { trace } from "../util/trace.ts";
import { restoreJit } from "../util/jit.ts";
import { initializeResponse } from "./capabilities.ts";
import { runFront } from "./front.ts";
import { clientName, NO_CAPS, readClientCaps, type ClientCaps } from "./initialize.ts";

/**
 * Serves ACP over a byte stream: `initialize` is answered at once by the front; the SDK app
 * (and with it SQLite, config and providers) loads right after, while the editor reads that answer.
 */
export function runAcpAgent(
  input: ReadableStream<Uint8Array>,
  write: (bytes: Uint8Array) => void,
  services: Services,
  /** Runs work after what was written so far is out (stdio-writer's afterFlush); a timer by default. */
  afterFlush: (fn: () => void) => void = (fn) => void setTimeout(fn, 0),
): Promise<void> {
  let caps: ClientCaps = NO_CAPS;
  let client = "unknown client";
  return runFront(input, write, {
    async initialize(params) {
      caps = readClientCaps(params);
      client = `${clientName(params)} (protocol v${String(params.protocolVersion)})`;
      return initializeResponse(await services.detectProviderEarly());
    },
    async connect(messages, send) {
      // Yield once so the initialize answer (queued in the same turn) reaches stdout before loading starts.
      await new Promise((resolve) => setImmediate(resolve));
      log.info(`Initialize from ${client}`);
      // Schemas here are parsed a handful of times each: zod's JIT (code generation on first parse)
      // costs more than it saves, and it ran on the session/new critical path.
      const { z } = await import("zod");
      z.config({ jitless: true });
      const [{ createAgentApp }] = await Promise.all([import("./server.ts"), services.load()]);
      trace("app loaded");
      // The SDK reads and writes message objects; the front turns lines into objects and back.
      const stream: acp.Stream = { readable: messages as acp.Stream["readable"], writable: new WritableStream({ write: send }) };
      const connection = createAgentApp({ services, caps: () => caps, afterResponse: afterFlush }).connect(stream);
      // Whatever the client does next, the startup burst is over within a second.
      setTimeout(restoreJit, 1000).unref();
      // Editors usually pause between initialize and session/new: use it to parse config.yaml and open
      // state.db. A session/new already waiting is dispatched first (timers run after pending I/O).
      setTimeout(() => {
        try {
          services.detectProvider();
          services.store();
        } catch {
          // Reported properly by the request that needs them.
        }
        // The card display code that session/load's replay needs (~15 ms to load).
        void import("../session/replay.ts");
      }, 0);
      return connection;
    },
  });
}
