import { ndJsonStream } from "@agentclientprotocol/sdk/unstable";

/**
 * The only writer of stdout in serve mode: JSON-RPC frames, one per line.
 * Returns the ACP stream over this process's stdin/stdout.
 */
export function stdioStream() {
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      process.stdout.write(chunk);
    },
  });
  return ndJsonStream(output, Bun.stdin.stream());
}
