import type * as acp from "@agentclientprotocol/sdk";
import type { FileSystem } from "../tools/types.ts";
import { diskFileSystem } from "../tools/disk-fs.ts";
import type { ClientCaps } from "../protocol/initialize.ts";

/** An editor that never answers must not hold a turn forever. */
const CLIENT_FS_TIMEOUT_MS = 30_000;

/**
 * Reads and writes through the editor when it offers that (so unsaved buffers are seen and
 * edits land in open editors); falls back to the disk for what the client does not offer.
 */
export function acpFileSystem(client: acp.AgentContext, sessionId: string, caps: ClientCaps): FileSystem {
  const canRead = caps.readTextFile;
  const canWrite = caps.writeTextFile;
  return {
    async readText(path) {
      if (canRead) {
        try {
          const r = await client.request("fs/read_text_file", { sessionId, path }, { cancellationSignal: AbortSignal.timeout(CLIENT_FS_TIMEOUT_MS) });
          if (typeof r.content === "string") return r.content;
        } catch {
          // Clients refuse files they do not track; the disk answers with a clear error or the text.
        }
      }
      return diskFileSystem.readText(path);
    },
    async writeText(path, content) {
      if (!canWrite) return diskFileSystem.writeText(path, content);
      try {
        await client.request("fs/write_text_file", { sessionId, path, content }, { cancellationSignal: AbortSignal.timeout(CLIENT_FS_TIMEOUT_MS) });
      } catch (e) {
        throw new Error(`The editor did not write ${path}: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
  };
}
