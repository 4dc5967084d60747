import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { FileSystem } from "./types.ts";

function errnoCode(e: unknown): string | undefined {
  return e instanceof Error && "code" in e && typeof e.code === "string" ? e.code : undefined;
}

/** Rewords Node's errors (`ENOENT: no such file…, open '/x'`) into what the model can act on. */
function modelError(e: unknown, path: string, verb: "read" | "write"): Error {
  switch (errnoCode(e)) {
    case "ENOENT":
      return new Error(`File not found: ${path}`);
    case "EISDIR":
      return new Error(`Is a directory: ${path}`);
    case "EACCES":
    case "EPERM":
      return new Error(`Permission denied: ${path}`);
    case "ENOTDIR":
      return new Error(`Not a directory: a parent of ${path} is a file`);
    default:
      return new Error(`Failed to ${verb} ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The local disk, used when the client offers no fs capability. Undecodable bytes become U+FFFD; a BOM is kept so writes round-trip. */
export const diskFileSystem: FileSystem = {
  async readText(absPath: string): Promise<string> {
    try {
      const info = await stat(absPath);
      if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
      return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readFile(absPath));
    } catch (e) {
      throw modelError(e, absPath, "read");
    }
  },
  async writeText(absPath: string, content: string): Promise<void> {
    try {
      await mkdir(dirname(absPath), { recursive: true });
      await writeFile(absPath, content, "utf8");
    } catch (e) {
      throw modelError(e, absPath, "write");
    }
  },
};
