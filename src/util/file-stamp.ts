import { statSync } from "node:fs";

/** Changes whenever the file is replaced or rewritten (mtime in ns-backed ms, size, inode); "absent" when missing. */
export function fileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return "absent";
  }
}
