import { test } from "bun:test";
import { fakeProviderConfig, INIT, startHarness } from "../helpers/harness.ts";
import { startFakeLlm } from "../helpers/fake-llm-server.ts";

test("probe", async () => {
  const llm = await startFakeLlm();
  const h = await startHarness({ config: fakeProviderConfig(llm.url) });
  await h.peer.call("initialize", INIT);
  const more = [
    "[".repeat(100000),
    `{"jsonrpc":"2.0","id":"c1","method":"session/list","params":${"{\"a\":".repeat(50000)}1${"}".repeat(50000)}}`,
    `{"jsonrpc":"2.0","id":"c2","method":"session/list","params":{}}\r`,
    `\uFEFF{"jsonrpc":"2.0","id":"c3","method":"session/list","params":{}}`,
    `{"jsonrpc":"2.0","id":"c4","method":"${"x".repeat(100000)}","params":{}}`,
    `{"jsonrpc":"2.0","id":"c5","method":"session/new","params":{"cwd":"/tmp/\\u0000\\ud800","mcpServers":[]}}`,
    `{"jsonrpc":"2.0","id":"c6","method":"session/list","params":{},"id":"c6b"}`,
    `{"jsonrpc":"2.0","id":"c7","method":"session/new","params":{"cwd":"${"a".repeat(2_000_000)}","mcpServers":[]}}`,
    `{"jsonrpc":"2.0","id":"c8","method":"initialize","params":{"protocolVersion":1}`,
    `{"jsonrpc":"2.0","id":"c9","method":"initialize"}`,
    `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1}}`,
    `{"jsonrpc":"2.0","id":"c10","method":"session/list","params":{}, "x": "initialize"}`,
    `{"jsonrpc":"2.0","id":"c11","method":"session/list","params":{"cwd":"${"b".repeat(40_000_000)}"}}`,
    `{"jsonrpc":"2.0","id":"c12","method":"session/list","params":{}}`,
  ];
  for (const l of more) h.peer.sendRaw(l);
  await Bun.sleep(3000);
  for (const m of h.peer.received) console.error(JSON.stringify(m).slice(0, 300));
  await h.close();
  await llm.stop();
});
