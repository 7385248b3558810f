// The Workers Cache API (caches.default), per data centre, holds two kinds of entries for byte links (and the
// principal records of auth/principal-records.ts, which use this file's record helpers and keys' origin):
//   - the bytes of whole objects (originals and thumbnails), keyed by the file and with the file's access
//     record in their headers (byte-entries.ts);
//   - access records (serving/access-records.ts): what the access decision needs about a file and its
//     owner, so a cache hit is answered with no D1 query and no Durable Object call.
// Bytes are only ever served after an access decision; but the entries of originals and thumbnails carry a
// record that may make it, so deleting them is part of every invalidation, like deleting the records.
// Variants (serving/variants.ts) of either are a third kind, keyed by the source object and the variant's
// descriptor; only the plain ladder is cached, a finite set, so a purge names every key it can have.
// Every change that affects access deletes the records here at once (this data centre); elsewhere they
// age out within ACCESS_RECORD_SECONDS, or sooner through the global purge (serving/global-purge.ts).
// Keys are internal URLs under the CDN origin: never a public address, and rebuildable from the row.
import type { FileRow } from "../db/schema";
import { purgeGlobally, type PurgeEnv } from "./global-purge";
import { cacheableDescriptors, thumbType, transformableType } from "./variants";
import { servedType } from "./headers";

export type Variant = "original" | "thumb";

const origin = (env: Pick<Env, "CDN_URL">) => new URL(env.CDN_URL).origin;

/** The entry of a file's original or thumbnail (byte-entries.ts): keyed by the file alone, so one lookup finds it. */
export function edgeCacheKey(env: Pick<Env, "CDN_URL">, fileId: string, variant: Variant): string {
  return `${origin(env)}/__edge-cache/files/${fileId}/${variant}`;
}

/** A variant of the original or of the thumbnail (`descriptor` from planVariant, e.g. `w640.webp`). */
export function variantCacheKey(env: Pick<Env, "CDN_URL">, fileId: string, source: Variant, objectKey: string, descriptor: string): string {
  return `${origin(env)}/__edge-cache/files/${fileId}/${source}/${descriptor}?k=${encodeURIComponent(objectKey)}`;
}

/** An internal key under the CDN origin for a record at `path` (e.g. `principals/users/<id>`). */
export const recordKey = (env: Pick<Env, "CDN_URL">, path: string) => `${origin(env)}/__edge-cache/${path}`;
export const fileAccessKey = (env: Pick<Env, "CDN_URL">, fileId: string) => `${origin(env)}/__edge-cache/access/files/${fileId}`;
export const ownerAccessKey = (env: Pick<Env, "CDN_URL">, userId: string) => `${origin(env)}/__edge-cache/access/owners/${userId}`;

/** How long an entry of bytes may stay in the edge cache (objects under a key never change). */
export const EDGE_CACHE_SECONDS = 7 * 24 * 3600;

export function defaultCache(): Cache | undefined {
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

/** A record (JSON with `v: 1`) from the cache; undefined on a miss or any failure (the caller reads D1). */
export async function readRecord<T extends { v: 1 }>(cache: Cache, key: string): Promise<T | undefined> {
  try {
    const hit = await cache.match(key);
    if (!hit) return undefined;
    const record = (await hit.json()) as T;
    return record?.v === 1 ? record : undefined;
  } catch {
    return undefined; // unreadable or failed: decide from D1
  }
}

/** Stores a record for `seconds`; a failure is logged, never thrown (the record is an optimisation). */
export async function writeRecord(cache: Cache, key: string, record: unknown, seconds: number): Promise<void> {
  try {
    const body = JSON.stringify(record);
    await cache.put(key, new Response(body, { headers: { "content-type": "application/json", "cache-control": `public, max-age=${seconds}` } }));
  } catch (err) {
    console.error("edge record put failed", err);
  }
}

/** Deletes entries here at once and, when global purge is configured, in every data centre. */
export async function forgetEdgeKeys(env: EdgeEnv, keys: string[]): Promise<void> {
  const cache = defaultCache();
  if (cache) await Promise.all(keys.map((k) => cache.delete(k).catch(() => false)));
  await purgeGlobally(env, keys);
}

export type EdgeEnv = Pick<Env, "CDN_URL"> & PurgeEnv;

/**
 * A file's access changed (visibility, hotlink policy, expiry, hidden, restored, analysis landed): the
 * next byte request re-reads it from D1. Await it before answering the change, so the change's author
 * sees the new answer at once. The original's and thumbnail's entries go too: they carry the record.
 */
export function forgetFileAccess(env: EdgeEnv, fileIds: string[]): Promise<void> {
  return forgetEdgeKeys(env, fileIds.flatMap((id) => [fileAccessKey(env, id), edgeCacheKey(env, id, "original"), edgeCacheKey(env, id, "thumb")]));
}

/** Every key a file's entries can have: its access record, its original and thumbnail, and their cached variants. */
export function fileCacheKeys(env: Pick<Env, "CDN_URL">, file: PurgedFile): string[] {
  const keys = [fileAccessKey(env, file.id), edgeCacheKey(env, file.id, "original")];
  // GIF, BMP and other types the engine does not read never get variants (serving/variant-serve.ts).
  const originalType = transformableType(servedType(file.mime));
  if (originalType) keys.push(...cacheableDescriptors("original", originalType).map((d) => variantCacheKey(env, file.id, "original", file.storeKey, d)));
  // The thumbnail's entry whatever the row says: a row read before the analysis landed has no thumbKey yet.
  keys.push(edgeCacheKey(env, file.id, "thumb"));
  if (file.thumbKey) {
    const thumbKey = file.thumbKey;
    keys.push(...cacheableDescriptors("thumb", thumbType(thumbKey)).map((d) => variantCacheKey(env, file.id, "thumb", thumbKey, d)));
  }
  return keys;
}

type PurgedFile = Pick<FileRow, "id" | "storeKey" | "thumbKey" | "mime">;

/**
 * A file is gone (deleted, banned, hidden for review, purged): drops its access record and its bytes
 * (original, thumbnail and their cached variants: at most 30 keys, one purge-by-URL call). Moderation, the files API and
 * the purge job call this.
 */
export function purgeFileFromEdgeCache(env: EdgeEnv, file: PurgedFile): Promise<void> {
  return forgetEdgeKeys(env, fileCacheKeys(env, file));
}
