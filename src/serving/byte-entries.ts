// The edge-cached bytes of a file's original or thumbnail, under a key made from the file id alone, carrying
// what the access decision needs about the file in their own headers (and, for an owner's first files, the
// owner's state: owner-state.ts). An anonymous view that hits such an entry is decided by that one lookup, or
// by one more (the owner's record) for the other files: the record and the bytes arrive together.
//
// The record in an entry obeys the same bound as the file's own access record (access-records.ts): it
// decides for ACCESS_RECORD_SECONDS after it was read from D1's primary (`at`), and every change that
// affects access deletes the entry with the record (edge-cache.ts, forgetFileAccess and
// purgeFileFromEdgeCache). An entry whose record is older, or that has none (filled for a Bearer
// viewer, whose answer came from a replica), still holds good bytes: the decision is then made the
// slow way, and the entry is stored again with the fresher record. A hot entry does not wait for that: once
// its record has lived two thirds of its time, a view stores it again after the response.
//
// A write can land after a change deleted the entry (the bytes take a while to stream into the cache):
// every write is followed by a read of D1's primary, and an entry whose request was decided from a row that
// no longer matches is deleted. A write stores bytes read from R2 after its record was read (never
// bytes read back from the cache), so an object rewritten in place (the analysis scrubs GPS from the
// original) cannot live on in an entry.
import type { FileRow } from "../db/schema";
import { createDb } from "../platform/db";
import { loadFile } from "../files/access";
import { defaultCache, edgeCacheKey, edgeCacheMatch, edgeCachePut, EDGE_CACHE_SECONDS, type Variant } from "./edge-cache";
import { servedType } from "./headers";
import { carriesOwnerState } from "./owner-state";

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
  "ownerOrdinal",
] as const satisfies readonly (keyof FileRow)[];

export type ServedFile = Pick<FileRow, (typeof SERVED_FIELDS)[number]>;

const DATE_FIELDS = ["expiresAt", "deletedAt", "hiddenAt", "bannedAt", "quarantinedAt", "purgedAt"] as const;

/**
 * What decided, and when it was read from D1's primary (epoch ms); for the files that carry it
 * (owner-state.ts), the owner's state read with it, so that the entry alone decides.
 */
export type EntryRecord = { file: ServedFile; at: number; owner?: { goneAt: Date | null } };

/** The record of a file and its owner's state read together at `at`: the owner's travels when the file carries it. */
export function entryRecord(loaded: { file: ServedFile; ownerGoneAt: Date | null }, at: number, ownerReadWithFile: boolean): EntryRecord {
  const record: EntryRecord = { file: loaded.file, at };
  if (ownerReadWithFile && carriesOwnerState(loaded.file)) record.owner = { goneAt: loaded.ownerGoneAt };
  return record;
}

/** The owner's state an entry's record carries, if it may decide with it (else the owner's record decides). */
export function carriedOwnerGoneAt(record: EntryRecord): Date | null | undefined {
  return record.owner && carriesOwnerState(record.file) ? record.owner.goneAt : undefined;
}

export type ByteEntry = {
  /** The cached response: its body is the object's bytes. */
  response: Response;
  /** The R2 object the bytes are (a regenerated thumbnail has a new key: an entry of the old one is a miss). */
  objectKey: string;
  record?: EntryRecord;
  /** Its file's record is too long to carry (a long hotlink allow-list): storing it again would not help. */
  tooLong?: boolean;
  /** Set once the response went to the client (serve.ts cancels the body of an entry it looked up but did not use). */
  taken?: boolean;
};

const OBJECT_HEADER = "x-edge-object";
const RECORD_HEADER = "x-edge-record";
const TOO_LONG = "too-long";
/** Hotlink allow-lists can be long; a record past this size is not carried (that file takes the slow way). */
const MAX_RECORD_CHARS = 8192;

/** The served fields as plain JSON values (dates as epoch ms). */
function servedFields(served: ServedFile): Record<string, unknown> {
  const file: Record<string, unknown> = {};
  for (const k of SERVED_FIELDS) file[k] = served[k];
  for (const k of DATE_FIELDS) file[k] = served[k]?.getTime() ?? null;
  return file;
}

/** Whether two reads of a file agree on everything serving decides from. */
export function sameServed(a: ServedFile, b: ServedFile): boolean {
  return JSON.stringify(servedFields(a)) === JSON.stringify(servedFields(b));
}

function encodeRecord(record: EntryRecord): string | undefined {
  const owner = record.owner && { goneAt: record.owner.goneAt?.getTime() ?? null };
  const text = encodeURIComponent(JSON.stringify({ v: 1, at: record.at, file: servedFields(record.file), owner }));
  return text.length <= MAX_RECORD_CHARS ? text : undefined;
}

function decodeRecord(header: string | null): EntryRecord | undefined {
  if (!header) return undefined;
  try {
    const parsed = JSON.parse(decodeURIComponent(header)) as { v: number; at: number; file: Record<string, unknown>; owner?: { goneAt: number | null } };
    if (parsed?.v !== 1 || typeof parsed.at !== "number") return undefined;
    const file = parsed.file;
    for (const k of DATE_FIELDS) file[k] = typeof file[k] === "number" ? new Date(file[k] as number) : null;
    const record: EntryRecord = { file: file as ServedFile, at: parsed.at };
    if (parsed.owner) record.owner = { goneAt: typeof parsed.owner.goneAt === "number" ? new Date(parsed.owner.goneAt) : null };
    return record;
  } catch {
    return undefined; // unreadable: decide the slow way
  }
}

/** The entry of a file's original or thumbnail, if this data centre has one. */
export async function readByteEntry(env: Pick<Env, "CDN_URL">, fileId: string, variant: Variant): Promise<ByteEntry | undefined> {
  const response = await edgeCacheMatch(edgeCacheKey(env, fileId, variant));
  if (!response) return undefined;
  const objectKey = response.headers.get(OBJECT_HEADER);
  const recordHeader = response.headers.get(RECORD_HEADER);
  const record = recordHeader === TOO_LONG ? undefined : decodeRecord(recordHeader);
  if (!objectKey || (record && record.file.id !== fileId)) {
    await response.body?.cancel();
    return undefined;
  }
  return { response, objectKey: decodeURIComponent(objectKey), record, tooLong: recordHeader === TOO_LONG };
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
  if (entry.record) headers.set(RECORD_HEADER, encodeRecord(entry.record) ?? TOO_LONG);
  return edgeCachePut(edgeCacheKey(env, fileId, variant), new Response(entry.body, { headers }));
}

export type EntryWrite = { body: ReadableStream; meta: EntryMeta; objectKey: string; record?: EntryRecord };

/**
 * Stores an entry (after a response, from R2's bytes), then checks the row its request was decided from
 * (`decidedBy`; the record it carries, if any) against D1's primary: a change that landed meanwhile, whose
 * delete came too early to see the entry, deletes it now. Entries without a record are checked too: their
 * bytes may be an original the analysis has since rewritten in place.
 */
export async function fillByteEntry(env: Env, fileId: string, variant: Variant, write: EntryWrite & { decidedBy: ServedFile }): Promise<void> {
  await storeByteEntry(env, fileId, variant, write);
  await dropIfChanged(env, fileId, variant, write.decidedBy, write.record?.owner);
}

async function dropIfChanged(env: Env, fileId: string, variant: Variant, decidedBy: ServedFile, owner: EntryRecord["owner"]): Promise<void> {
  let current;
  try {
    current = await loadFile(createDb(env.DB), fileId);
  } catch {
    current = undefined; // not verified: not kept
  }
  const sameOwner = !owner || (current?.ownerGoneAt?.getTime() ?? null) === (owner.goneAt?.getTime() ?? null);
  if (current && sameServed(current.file, decidedBy) && sameOwner) return;
  await defaultCache()?.delete(edgeCacheKey(env, fileId, variant)).catch(() => false);
}

/**
 * Entries this isolate is storing again right now (and since when): one write per entry at a time, not one
 * per concurrent view. A claim older than a minute is void: its waitUntil may have been cut off.
 */
const refreshing = new Map<string, number>();
const CLAIM_MS = 60_000;

/**
 * Whether a view served from `entry` should store it again, and with what: the record it was decided from
 * when that is fresher than the one the entry carries; none (refreshByteEntry reads one) when the entry's
 * record has lived two thirds of `seconds`. Claims the entry for this isolate; refreshByteEntry releases it.
 */
export function claimRefresh(
  fileId: string,
  variant: Variant,
  entry: ByteEntry,
  decidedFrom: EntryRecord | undefined,
  seconds: number,
  now: number,
): { record?: EntryRecord } | undefined {
  const carried = entry.record?.at;
  const fresher = decidedFrom !== undefined && (carried === undefined || decidedFrom.at > carried);
  const ageing = carried !== undefined && now - carried >= (seconds * 1000 * 2) / 3;
  if (entry.tooLong) return undefined;
  const key = `${fileId}/${variant}`;
  const claimedAt = refreshing.get(key);
  if (!(fresher || ageing) || seconds === 0 || (claimedAt !== undefined && now - claimedAt < CLAIM_MS)) return undefined;
  refreshing.set(key, now);
  // The record the view was decided from, unless it too has lived two thirds of its time: then a new one.
  return fresher && now - decidedFrom.at < (seconds * 1000 * 2) / 3 ? { record: decidedFrom } : {};
}

/**
 * Stores a claimed entry again (run it after the response): with `record` when the view was decided from a
 * fresher one, else with one read now from D1's primary; then the object's bytes from R2, then the check.
 */
export async function refreshByteEntry(env: Env, fileId: string, variant: Variant, objectKey: string, given?: EntryRecord): Promise<void> {
  const claimedAt = refreshing.get(`${fileId}/${variant}`);
  try {
    let record = given;
    if (!record) {
      const at = Date.now(); // before the read: a record is never younger than what it says
      const loaded = await loadFile(createDb(env.DB), fileId);
      if (loaded?.file.state === "finalized") record = entryRecord(loaded, at, true);
    }
    if (!record) return;
    const object = await env.BUCKET.get(objectKey);
    if (!object) return;
    const meta = { type: servedType(object.httpMetadata?.contentType), size: object.size, etag: object.httpEtag };
    await fillByteEntry(env, fileId, variant, { body: object.body, meta, objectKey, record, decidedBy: record.file });
  } catch (err) {
    console.error("byte entry refresh failed", err);
  } finally {
    if (refreshing.get(`${fileId}/${variant}`) === claimedAt) refreshing.delete(`${fileId}/${variant}`);
  }
}
