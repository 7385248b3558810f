// The Workers Cache API (caches.default) in front of R2 for whole-object GETs. Access checks always run
// first (one indexed D1 read), so a cached entry is never served to someone who may not see the file;
// the cache only saves the R2 read. Keys are internal URLs (not the public addresses) that name the stored
// object, so a regenerated thumbnail gets a new key, and purgeFileFromEdgeCache can rebuild them from the row.
// caches.default is per data centre: a purge clears the entry where it runs, the rest age out.
import type { FileRow } from "../db/schema";

export type Variant = "original" | "thumb";

export function edgeCacheKey(env: Pick<Env, "CDN_URL">, fileId: string, variant: Variant, objectKey: string): string {
  return `${new URL(env.CDN_URL).origin}/__edge-cache/files/${fileId}/${variant}?k=${encodeURIComponent(objectKey)}`;
}

/** How long an entry may stay in the edge cache (objects under a key never change). */
export const EDGE_CACHE_SECONDS = 7 * 24 * 3600;

function defaultCache(): Cache | undefined {
  return typeof caches === "undefined" ? undefined : (caches as unknown as { default: Cache }).default;
}

export async function edgeCacheMatch(key: string): Promise<Response | undefined> {
  try {
    return (await defaultCache()?.match(key)) ?? undefined;
  } catch {
    return undefined; // the cache is an optimisation: on any failure read from R2
  }
}

export async function edgeCachePut(key: string, response: Response): Promise<void> {
  try {
    await defaultCache()?.put(key, response);
  } catch (err) {
    console.error("edge cache put failed", err);
  }
}

/**
 * Drops a file's bytes (original and thumbnail) from this data centre's cache. Moderation calls this when
 * it hides or bans a file; the files API when a file is deleted; the purge job when objects are removed.
 */
export async function purgeFileFromEdgeCache(env: Pick<Env, "CDN_URL">, file: Pick<FileRow, "id" | "storeKey" | "thumbKey">): Promise<void> {
  const cache = defaultCache();
  if (!cache) return;
  const keys = [edgeCacheKey(env, file.id, "original", file.storeKey)];
  if (file.thumbKey) keys.push(edgeCacheKey(env, file.id, "thumb", file.thumbKey));
  await Promise.all(keys.map((k) => cache.delete(k).catch(() => false)));
}
