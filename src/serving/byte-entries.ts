// The edge-cached bytes of a file's original or thumbnail, under a key made from the file id alone, carrying
// their file's access record in their own headers (serving/access.ts, AccessRecord), so an anonymous view that
// hits one is decided by that one lookup (or one more, the owner's record, past an owner's first files).
// The carried record obeys the access records' bound: it decides for ACCESS_RECORD_SECONDS after it was read
// from D1's primary, and every change that affects access deletes the entry with the record. An entry whose
// record is older, or that has none, still holds good bytes: the slow way decides, and the entry is stored
// again; a hot one is stored again once its record has lived two thirds of its time. Every write is guarded
// (platform/edge-records.ts, writeThenVerify), and stores bytes read from R2 after its record was read, so
// an original the analysis rewrote in place cannot live on. More: docs/edge-records.md.
import { shardDbOf } from "../platform/moved-ids";
import { decodeRecord, encodeRecord, matchEntry, putEntry, writeThenVerify } from "../platform/edge-records";
import { accessRecord, loadFile, sameServed, servedFields, type AccessRecord, type ServedFile } from "./access";
import { edgeCacheKey, EDGE_CACHE_SECONDS, type Variant } from "./edge-cache";
import { servedType } from "./headers";

/** What decided a view, as an entry carries it. */
export type EntryRecord = AccessRecord<ServedFile>;

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

function encodeHeader(record: EntryRecord): string | undefined {
  const text = encodeURIComponent(encodeRecord({ ...record, file: servedFields(record.file) }));
  return text.length <= MAX_RECORD_CHARS ? text : undefined;
}

function decodeHeader(header: string | null): EntryRecord | undefined {
  if (!header) return undefined;
  try {
    const record = decodeRecord<EntryRecord>(decodeURIComponent(header));
    return record && typeof record.at === "number" && typeof record.file?.id === "string" ? record : undefined;
  } catch {
    return undefined; // unreadable: decide the slow way
  }
}

/** The entry of a file's original or thumbnail, if this data centre has one. */
export async function readByteEntry(env: Pick<Env, "CDN_URL">, fileId: string, variant: Variant): Promise<ByteEntry | undefined> {
  const response = await matchEntry(edgeCacheKey(env, fileId, variant));
  if (!response) return undefined;
  const objectKey = response.headers.get(OBJECT_HEADER);
  const recordHeader = response.headers.get(RECORD_HEADER);
  const record = recordHeader === TOO_LONG ? undefined : decodeHeader(recordHeader);
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
  if (entry.record) headers.set(RECORD_HEADER, encodeHeader(entry.record) ?? TOO_LONG);
  return putEntry(edgeCacheKey(env, fileId, variant), new Response(entry.body, { headers }));
}

export type EntryWrite = { body: ReadableStream; meta: EntryMeta; objectKey: string; record?: EntryRecord };

/**
 * Stores an entry (after a response, from R2's bytes), then checks the row its request was decided from
 * (`decidedBy`; the record it carries, if any) against D1's primary: a change that landed meanwhile, whose
 * delete came too early to see the entry, deletes it now. Entries without a record are checked too: their
 * bytes may be an original the analysis has since rewritten in place.
 */
export async function fillByteEntry(env: Env, fileId: string, variant: Variant, write: EntryWrite & { decidedBy: ServedFile }): Promise<void> {
  const key = edgeCacheKey(env, fileId, variant);
  const owner = write.record?.owner;
  await writeThenVerify([key], () => storeByteEntry(env, fileId, variant, write), async () => {
    const current = await loadFile(shardDbOf(env, "file", fileId), fileId);
    const sameOwner = !owner || (current?.ownerGoneAt?.getTime() ?? null) === (owner.goneAt?.getTime() ?? null);
    return current && sameServed(current.file, write.decidedBy) && sameOwner ? [] : [key];
  });
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
      const loaded = await loadFile(shardDbOf(env, "file", fileId), fileId);
      if (loaded?.file.state === "finalized") record = accessRecord(loaded, at, true);
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
