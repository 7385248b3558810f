// The serving kinds of edge-cached state (caches.default, per data centre), written and forgotten through
// platform/edge-records.ts:
//   - access records (access-records.ts): what the access decision needs about a file, so a hit is
//     answered with no D1 query and no Durable Object call; the owner's state is auth's record
//     (auth/principal-records.ts, ownerStates);
//   - the bytes of whole objects (originals and thumbnails), keyed by the file, carrying the file's access
//     record in their headers (byte-entries.ts): deleting them is part of every invalidation;
//   - variants (variants.ts) of either, keyed by the source object and the variant's descriptor; only the
//     plain ladder is cached, a finite set, so a purge names every key it can have.
import type { FileRow } from "../db/schema";
import { edgeKey, forget, type EdgeEnv } from "../platform/edge-records";
import { fileRecords } from "./access-records";
import { cacheableDescriptors, thumbType, transformableType } from "./variants";
import { servedType } from "./headers";

export type Variant = "original" | "thumb";

/** The entry of a file's original or thumbnail (byte-entries.ts): keyed by the file alone, so one lookup finds it. */
export function edgeCacheKey(env: Pick<Env, "CDN_URL">, fileId: string, variant: Variant): string {
  return edgeKey(env, `files/${fileId}/${variant}`);
}

/** A variant of the original or of the thumbnail (`descriptor` from planVariant, e.g. `w640.webp`). */
export function variantCacheKey(env: Pick<Env, "CDN_URL">, fileId: string, source: Variant, objectKey: string, descriptor: string): string {
  return edgeKey(env, `files/${fileId}/${source}/${descriptor}?k=${encodeURIComponent(objectKey)}`);
}

export const fileAccessKey = fileRecords.key;

/** How long an entry of bytes may stay in the edge cache (objects under a key never change). */
export const EDGE_CACHE_SECONDS = 7 * 24 * 3600;

/** What a file's id alone names: its access record and the entries of its original and thumbnail (they carry it). */
export function fileRecordKeys(env: Pick<Env, "CDN_URL">, fileId: string): string[] {
  return [fileAccessKey(env, fileId), edgeCacheKey(env, fileId, "original"), edgeCacheKey(env, fileId, "thumb")];
}

/** Forgets the records and byte entries of files (owner-state.ts, for the files that carry their owner's state). */
export function forgetFileAccess(env: EdgeEnv, fileIds: string[]): Promise<void> {
  return forget(env, fileIds.flatMap((id) => fileRecordKeys(env, id)));
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

export type PurgedFile = Pick<FileRow, "id" | "storeKey" | "thumbKey" | "mime">;
