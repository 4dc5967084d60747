// "Always allow" for a dangerous command writes its pattern into config.yaml's `command_allowlist`, the list
// Hermes reads too. The file is the user's (and Hermes'): edit it through the `yaml` Document API so every
// other key and comment survives, and replace it atomically so a crash never leaves half a config.
import { readFile, realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { isMap, isScalar, isSeq, parseDocument } from "yaml";
import { writeFileAtomically } from "../util/atomic-write.ts";

const NEW_FILE_MODE = 0o600;

// Two approvals answered at once must not race on read-modify-write; chain writes per file.
const pending = new Map<string, Promise<void>>();

export async function addToCommandAllowlist(configPath: string, pattern: string): Promise<void> {
  const entry = pattern.trim();
  if (!entry) throw new Error("Cannot add an empty pattern to command_allowlist.");
  // Queue synchronously (keyed by the path as given) so concurrent calls land in call order.
  const key = resolve(configPath);
  const previous = pending.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(async () => addEntry(await followSymlink(key), entry));
  pending.set(key, next);
  try {
    await next;
  } finally {
    if (pending.get(key) === next) pending.delete(key);
  }
}

/** Write through a symlinked config.yaml (dotfile managers) instead of replacing the link with a file. */
async function followSymlink(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

async function addEntry(path: string, entry: string): Promise<void> {
  const existing = await readExisting(path);
  const doc = parseDocument(existing?.text ?? "");
  const syntaxError = doc.errors[0];
  if (syntaxError) {
    const line = syntaxError.linePos?.[0]?.line;
    throw new Error(
      `Cannot add "${entry}" to command_allowlist: ${path} is not valid YAML${line ? ` (line ${line})` : ""}. Fix the file first.`,
    );
  }
  // An empty or comment-only file has no contents; Document.set then creates the top-level mapping.
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new Error(`Cannot add "${entry}" to command_allowlist: ${path} is not a mapping of settings.`);
  }

  const current = doc.get("command_allowlist", true);
  if (isSeq(current)) {
    const present = current.items.some((item) => (isScalar(item) ? String(item.value) : String(item)) === entry);
    if (present) return;
    current.add(doc.createNode(entry));
  } else if (current === undefined || (isScalar(current) && (current.value === null || current.value === ""))) {
    doc.set("command_allowlist", doc.createNode([entry]));
  } else if (isScalar(current)) {
    // A single pattern written as a plain value: keep it and turn the key into a list.
    const old = String(current.value);
    if (old === entry) return;
    doc.set("command_allowlist", doc.createNode([old, entry]));
  } else {
    throw new Error(`Cannot add "${entry}" to command_allowlist in ${path}: the key holds a mapping, not a list.`);
  }

  await writeFileAtomically(path, doc.toString({ lineWidth: 0, flowCollectionPadding: false }), existing?.mode ?? NEW_FILE_MODE);
}

async function readExisting(path: string): Promise<{ text: string; mode: number } | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    return { text, mode: info.mode & 0o777 };
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT") return undefined;
    throw error;
  }
}

