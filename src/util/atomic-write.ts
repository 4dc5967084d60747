import { randomBytes } from "node:crypto";
import { chmod, mkdir, realpath, rename, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Replaces a file through a temp file and a rename in the same directory, so no reader ever sees it
 * half-written. A symlinked target (dotfile managers) is written through, not replaced by a file; the
 * directory is created (0700) when missing; `mode` is applied whatever the umask.
 */
export async function writeFileAtomically(path: string, content: string, mode: number): Promise<void> {
  const target = await realpath(path).catch(() => path);
  const dir = dirname(target);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    await writeFile(temp, content, { mode, flag: "wx" });
    await chmod(temp, mode);
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
