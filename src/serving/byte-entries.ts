// The edge-cached bytes of a file's original or thumbnail, under a key made from the file id alone, carrying
// what the access decision needs about the file in their own headers. An anonymous view that hits such an
// entry looks up one thing more (its owner's record) instead of two (the file's record, then the bytes):
// the record and the bytes arrive in one cache lookup.
//
// The record in an entry obeys the same bound as the file's own access record (access-records.ts): it
// decides for ACCESS_RECORD_SECONDS after it was read from D1's primary (`at`), and every change that
// affects access deletes the entry with the record (edge-cache.ts, forgetFileAccess and
// purgeFileFromEdgeCache). An entry whose record is older, or that has none (filled for a Bearer
// viewer, whose answer came from a replica), still holds good bytes: the decision is then made the
// slow way, and the entry is stored again with the fresher record. A hot entry does not wait for that: once
// its record has lived two thirds of its time, a view stores it again with a record read from the primary
// after the response, so the views of a busy image keep deciding from the entry.
import type { FileRow } from "../db/schema";
import { createDb } from "../platform/db";
import { loadFile } from "../files/access";
import { edgeCacheKey, edgeCacheMatch, edgeCachePut, EDGE_CACHE_SECONDS, type Variant } from "./edge-cache";

/** The fields byte serving reads: the read rules, the hotlink policy, the objects and their headers. */
export const SERVED_FIELDS = [
  "id",
  "userId",
  "filename",
  "mime",
  "bytes",
  "width",
  "height",
  "sha256",
  "storeKey",
  "storeEtag",
  "thumbKey",
  "visibility",
  "state",
  "analysis",
  "hotlinkPolicy",
  "hotlinkDomains",
  "ageRestricted",
  "ageRestrictedOverride",
  "expiresAt",
  "deletedAt",
  "hiddenAt",
  "bannedAt",
  "quarantinedAt",
  "purgedAt",
] as const satisfies readonly (keyof FileRow)[];

export type ServedFile = Pick<FileRow, (typeof SERVED_FIELDS)[number]>;

const DATE_FIELDS = ["expiresAt", "deletedAt", "hiddenAt", "bannedAt", "quarantinedAt", "purgedAt"] as const;

/** What decided, and when it was read from D1's primary (epoch ms). */
export type EntryRecord = { file: ServedFile; at: number };

export type ByteEntry = {
  /** The cached response: its body is the object's bytes. */
  response: Response;
  /** The R2 object the bytes are (a regenerated thumbnail has a new key: an entry of the old one is a miss). */
  objectKey: string;
  record?: EntryRecord;
  /** Set once the response went to the client (serve.ts cancels the body of an entry it looked up but did not use). */
  taken?: boolean;
};

const OBJECT_HEADER = "x-edge-object";
const RECORD_HEADER = "x-edge-record";
/** Hotlink allow-lists can be long; a record past this size is not carried (that file takes the slow way). */
const MAX_RECORD_CHARS = 8192;

function encodeRecord(record: EntryRecord): string | undefined {
  const file: Record<string, unknown> = {};
  for (const k of SERVED_FIELDS) file[k] = record.file[k];
  for (const k of DATE_FIELDS) file[k] = record.file[k]?.getTime() ?? null;
  const text = encodeURIComponent(JSON.stringify({ v: 1, at: record.at, file }));
  return text.length <= MAX_RECORD_CHARS ? text : undefined;
}

function decodeRecord(header: string | null): EntryRecord | undefined {
  if (!header) return undefined;
  try {
    const parsed = JSON.parse(decodeURIComponent(header)) as { v: number; at: number; file: Record<string, unknown> };
    if (parsed?.v !== 1 || typeof parsed.at !== "number") return undefined;
    const file = parsed.file;
    for (const k of DATE_FIELDS) file[k] = typeof file[k] === "number" ? new Date(file[k] as number) : null;
    return { file: file as ServedFile, at: parsed.at };
  } catch {
    return undefined; // unreadable: decide the slow way
  }
}

/** The entry of a file's original or thumbnail, if this data centre has one. */
export async function readByteEntry(env: Pick<Env, "CDN_URL">, fileId: string, variant: Variant): Promise<ByteEntry | undefined> {
  const response = await edgeCacheMatch(edgeCacheKey(env, fileId, variant));
  if (!response) return undefined;
  const objectKey = response.headers.get(OBJECT_HEADER);
  if (!objectKey) {
    await response.body?.cancel();
    return undefined;
  }
  return { response, objectKey: decodeURIComponent(objectKey), record: decodeRecord(response.headers.get(RECORD_HEADER)) };
}

/** The entry's record while it may still decide (`seconds` = ACCESS_RECORD_SECONDS; 0 = records off). */
export function freshRecord(entry: ByteEntry | undefined, seconds: number, now: number): EntryRecord | undefined {
  const record = entry?.record;
  return record && now - record.at < seconds * 1000 ? record : undefined;
}

export type EntryMeta = { type: string; size: number; etag: string };

/** Stores `body` (the object's whole bytes) as the entry of `variant`, with `record` when one may travel with it. */
export function storeByteEntry(
  env: Pick<Env, "CDN_URL">,
  fileId: string,
  variant: Variant,
  entry: EntryWrite,
): Promise<void> {
  const headers = new Headers({
    "Content-Type": entry.meta.type,
    "Content-Length": String(entry.meta.size),
    ETag: entry.meta.etag,
    "Cache-Control": `public, max-age=${EDGE_CACHE_SECONDS}`,
    [OBJECT_HEADER]: encodeURIComponent(entry.objectKey),
  });
  const record = entry.record && encodeRecord(entry.record);
  if (record) headers.set(RECORD_HEADER, record);
  return edgeCachePut(edgeCacheKey(env, fileId, variant), new Response(entry.body, { headers }));
}

export type EntryWrite = { body: ReadableStream; meta: EntryMeta; objectKey: string; record?: EntryRecord };

/** Entries this isolate is storing again right now: one write per entry at a time, not one per concurrent view. */
const refreshing = new Set<string>();

/**
 * Whether a view served from `entry` should store it again: when it was decided from a fresher record than
 * the entry carries, or when the entry's record has lived two thirds of `seconds` (the new one is then read
 * from D1's primary after the response). Claims the entry for this isolate; refreshByteEntry releases it.
 */
export function claimRefresh(fileId: string, variant: Variant, entry: ByteEntry, decidedFrom: EntryRecord | undefined, seconds: number, now: number): boolean {
  const carried = entry.record?.at;
  const due = decidedFrom ? carried === undefined || decidedFrom.at > carried : carried !== undefined && now - carried >= (seconds * 1000 * 2) / 3;
  const key = `${fileId}/${variant}`;
  if (!due || seconds === 0 || refreshing.has(key)) return false;
  refreshing.add(key);
  return true;
}

/** Stores a claimed entry again, with `write.record` or one read now from D1's primary (run it after the response). */
export async function refreshByteEntry(env: Env, fileId: string, variant: Variant, write: EntryWrite): Promise<void> {
  try {
    let record = write.record;
    if (!record) {
      const at = Date.now(); // before the read: a record is never younger than what it says
      const loaded = await loadFile(createDb(env.DB), fileId);
      if (loaded?.file.state === "finalized") record = { file: loaded.file, at };
    }
    if (record) await storeByteEntry(env, fileId, variant, { ...write, record });
    else await write.body.cancel();
  } catch (err) {
    console.error("byte entry refresh failed", err);
    await write.body.cancel().catch(() => {});
  } finally {
    refreshing.delete(`${fileId}/${variant}`);
  }
}
