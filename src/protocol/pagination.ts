import { DomainError } from "../session/errors.ts";
import { LIST_PAGE_SIZE } from "../session/manager.ts";

/** Opaque cursors: the id of the last item already returned, base64url-encoded. */
export function paginate<T extends { sessionId: string }>(
  items: T[],
  cursor: string | null,
  pageSize = LIST_PAGE_SIZE,
): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor) {
    let after: string;
    try {
      after = Buffer.from(cursor, "base64url").toString("utf8");
    } catch {
      after = "";
    }
    const index = items.findIndex((i) => i.sessionId === after);
    if (!after || index < 0) throw new DomainError("INVALID_CURSOR", `Invalid or expired cursor: ${cursor}`);
    start = index + 1;
  }
  const page = items.slice(start, start + pageSize);
  const more = start + pageSize < items.length;
  const last = page[page.length - 1];
  return { items: page, ...(more && last ? { nextCursor: Buffer.from(last.sessionId, "utf8").toString("base64url") } : {}) };
}
