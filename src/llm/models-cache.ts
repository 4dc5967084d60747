// The model picker's memory of what each provider listed last time (HERMES_HOME/models-cache.json), so the
// picker can be built instantly and survive an endpoint that is down. It never holds keys: entries are keyed
// by provider id plus a hash of the endpoint, and only model ids and their public metadata are stored.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { writeFileAtomically } from "../util/atomic-write.ts";
import { lazy } from "../util/lazy.ts";

const cacheEntrySchema = lazy(() =>
  z.object({
    /** endpointKey(baseUrl, apiMode): a changed base_url must not reuse another server's list. */
    endpoint: z.string(),
    /** Epoch milliseconds of the successful fetch. */
    fetchedAt: z.number(),
    models: z.array(
      z.object({
        model: z.string().min(1),
        label: z.string().optional(),
        contextLength: z.number().int().positive().optional(),
        reasoning: z.boolean().optional(),
        /** Unix seconds, when the provider says; used to keep the newest when a long list is capped. */
        created: z.number().optional(),
      }),
    ),
  }),
);
export type CacheEntry = z.infer<ReturnType<typeof cacheEntrySchema>>;
export type CachedModel = CacheEntry["models"][number];

/** Provider id (`openrouter`, `custom:work`, …) → its last listing. */
export type ModelsCache = Record<string, CacheEntry>;

const fileSchema = lazy(() => z.object({ version: z.literal(1), providers: z.record(z.string(), z.unknown()) }));

const FILE_MODE = 0o600;

/** A stable, non-reversible name for an endpoint (the URL itself may carry a token in its query). */
export function endpointKey(baseUrl: string, apiMode: string): string {
  return createHash("sha256").update(`${apiMode} ${baseUrl.trim().replace(/\/+$/, "")}`).digest("hex").slice(0, 16);
}

/** The cache as stored; missing, unreadable or corrupt files (or entries) read as empty. Never throws. */
export function readModelsCache(path: string): ModelsCache {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
  const file = fileSchema().safeParse(raw);
  if (!file.success) return {};
  const out: ModelsCache = {};
  for (const [provider, value] of Object.entries(file.data.providers)) {
    const entry = cacheEntrySchema().safeParse(value);
    if (entry.success) out[provider] = entry.data;
  }
  return out;
}

/**
 * Merges `updates` into the file (re-read just before writing, so other providers' entries survive) and
 * replaces it atomically with mode 0600. Returns false instead of throwing: a cache that cannot be written
 * only costs a refetch next time.
 */
export async function writeModelsCache(path: string, updates: ModelsCache): Promise<boolean> {
  if (Object.keys(updates).length === 0) return true;
  const providers = { ...readModelsCache(path), ...updates };
  const text = `${JSON.stringify({ version: 1, providers }, null, 1)}\n`;
  try {
    await writeFileAtomically(path, text, FILE_MODE);
    return true;
  } catch {
    return false;
  }
}
