// The keys of serving's edge-cached state (kinds in platform/edge/edge-records.ts, EDGE_KINDS; docs/edge-records.md):
// a file's access record, its owner's state, the bytes of its original and thumbnail (carrying the access record),
// and its cached variants (only the plain ladder: a purge names every key a file's entries can have).
import type { FileRow } from "../db/schema";
import { edgeKey, forget, type EdgeEnv } from "../platform/edge/edge-records";
import { cacheableDescriptors, thumbType, transformableType } from "./variants";
import { servedType } from "./answers";
import { entryKey, EDGE_CACHE_SECONDS, type Variant } from "./records";

export { EDGE_CACHE_SECONDS, type Variant };

/** The entry of a file's original or thumbnail (records.ts). */
export const edgeCacheKey = entryKey;

/** A variant of the original or of the thumbnail (`descriptor` from planVariant, e.g. `w640.webp`). */
export function variantCacheKey(env: Env, fileId: string, source: Variant, objectKey: string, descriptor: string): string {
  return edgeKey(env, "fileBytes", `${fileId}/${source}/${descriptor}?k=${encodeURIComponent(objectKey)}`);
}

/** A file's access record (records.ts). */
export const fileAccessKey = (env: Env, fileId: string) => edgeKey(env, "fileAccess", fileId);

/** What a file's id alone names: its access record and the entries of its original and thumbnail (they carry it). */
export function fileRecordKeys(env: Env, fileId: string): string[] {
  return [fileAccessKey(env, fileId), edgeCacheKey(env, fileId, "original"), edgeCacheKey(env, fileId, "thumb")];
}

/** Forgets the records and byte entries of files (owner-state.ts, for the files that carry their owner's state). */
export function forgetFileAccess(env: EdgeEnv, fileIds: string[]): Promise<void> {
  return forget(env, fileIds.flatMap((id) => fileRecordKeys(env, id)));
}

/** Every key a file's entries can have: its access record, its original and thumbnail, and their cached variants. */
export function fileCacheKeys(env: Env, file: PurgedFile): string[] {
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
