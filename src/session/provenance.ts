// `_meta.hermes.sessionProvenance` (hermes-behaviour §16): derived from parent links and end reasons.
import type { SessionRow } from "./store.ts";

const MAX_WALK = 100;

export type Provenance = {
  acpSessionId: string;
  currentHermesSessionId: string;
  rootHermesSessionId: string;
  parentHermesSessionId: string | null;
  sessionKind: "root" | "continuation";
  compressionDepth: number;
  previousHermesSessionId?: string;
  reason?: "compression";
  creatorKind?: "compression";
};

/** The only store capability provenance needs (a SessionStore satisfies it). */
export type SessionReader = { getSession(id: string): SessionRow | null };

/** null when the current Hermes row is missing (the caller omits `_meta`). */
export function sessionProvenance(
  store: SessionReader,
  acpSessionId: string,
  currentHermesId: string,
  previousHermesId?: string,
): Provenance | null {
  const row = store.getSession(currentHermesId);
  if (!row) return null;
  const parentId = row.parentSessionId;

  // Delegate and branch parents still lead to the root, but only compression parents add depth.
  let rootId = currentHermesId;
  let compressionDepth = 0;
  const seen = new Set([currentHermesId]);
  let cursor = parentId;
  for (let step = 0; step < MAX_WALK; step++) {
    if (!cursor || seen.has(cursor)) break;
    seen.add(cursor);
    const ancestor = store.getSession(cursor);
    if (!ancestor) break;
    rootId = cursor;
    if (ancestor.endReason === "compression") compressionDepth += 1;
    cursor = ancestor.parentSessionId;
  }

  // Looked up on its own, as Hermes does, so a self-parented row is judged by its own end reason.
  const immediateParent = parentId ? store.getSession(parentId) : null;
  const provenance: Provenance = {
    acpSessionId,
    currentHermesSessionId: currentHermesId,
    rootHermesSessionId: rootId,
    parentHermesSessionId: parentId,
    sessionKind: immediateParent?.endReason === "compression" ? "continuation" : "root",
    compressionDepth,
  };
  if (previousHermesId) provenance.previousHermesSessionId = previousHermesId;
  if (previousHermesId && previousHermesId !== currentHermesId) {
    provenance.reason = "compression";
    provenance.creatorKind = "compression";
  }
  return provenance;
}
