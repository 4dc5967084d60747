// Runs the real agent in-process over real NDJSON framing, with its own HERMES_HOME.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAcpAgent } from "../../src/protocol/agent.ts";
import { Services } from "../../src/app/services.ts";
import { linesOf, RpcPeer } from "./rpc-peer.ts";

export type Harness = {
  peer: RpcPeer;
  home: string;
  services: Services;
  env: Record<string, string | undefined>;
  close(): Promise<void>;
};

export function tempDir(prefix = "hermes-acp-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** config.yaml pointing at a fake OpenAI-compatible server (a `custom` endpoint needs no key). */
export function fakeProviderConfig(baseUrl: string, extra = ""): string {
  return `model:\n  provider: custom\n  base_url: ${baseUrl}\n  default: fake-model\n  context_length: 32000\n${extra}`;
}

export function writeHome(home: string, files: { config?: string; env?: string }) {
  mkdirSync(home, { recursive: true });
  if (files.config !== undefined) writeFileSync(join(home, "config.yaml"), files.config);
  if (files.env !== undefined) writeFileSync(join(home, ".env"), files.env);
}

export async function startHarness(opts: { config?: string; env?: Record<string, string>; home?: string } = {}): Promise<Harness> {
  const home = opts.home ?? join(tempDir(), "hermes");
  writeHome(home, { ...(opts.config !== undefined ? { config: opts.config } : {}) });
  const env: Record<string, string | undefined> = {
    ...process.env,
    HERMES_HOME: home,
    HERMES_ACP_MAX_RETRIES: "2",
    HERMES_ACP_RETRY_BASE_MS: "10",
    // The picker's background refresh would interleave config_option_update with what tests assert; models.test turns it on.
    HERMES_ACP_MODEL_REFRESH: "off",
    ...opts.env,
  };
  const services = await new Services(env).load();
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const fromAgent = new TransformStream<Uint8Array, Uint8Array>();
  const agentWriter = fromAgent.writable.getWriter();
  const running = runAcpAgent(toAgent.readable, (bytes) => void agentWriter.write(bytes), services);
  const writer = toAgent.writable.getWriter();
  const encoder = new TextEncoder();
  const peer = new RpcPeer((line) => void writer.write(encoder.encode(`${line}\n`)), linesOf(fromAgent.readable));
  return {
    peer,
    home,
    services,
    env,
    async close() {
      await writer.close().catch(() => undefined);
      await running.catch(() => undefined);
      await agentWriter.close().catch(() => undefined);
      services.close();
    },
  };
}

export const INIT = { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "test", version: "1" } };
