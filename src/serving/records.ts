// What serving keeps at the edge about a file (docs/edge-records.md): its access record, its owner's state, and the
// bytes of its original and thumbnail carrying the access record in a header. Here: their shapes and keys, and the
// guarded fills that write them after a response from D1's primary. The lookups are lookups.ts.
import { eq } from "drizzle-orm";
import { owners, type FileRow } from "../db/schema";
import { shardHandle } from "../platform/data/db";
import { routedShard, shardDbOf } from "../platform/data/moved-ids";
import { shardBinding } from "../platform/data/shards";
import { decodeRecord, edgeKey, encodeRecord, matchEdge, namespace, putEntry, writeThenVerify } from "../platform/edge/edge-records";
import { loadFile, type LoadedFile } from "./access";
import { SERVING } from "../config";

export type Variant = "original" | "thumb";

/** The fields byte serving decides from: the read rules, the hotlink policy, the objects and their headers. */
export const SERVED_FIELDS = [
  "id", "userId", "filename", "mime", "bytes", "width", "height", "sha256", "storeKey", "storeEtag", "thumbKey", "visibility",
  "state", "analysis", "hotlinkPolicy", "hotlinkDomains", "ageRestricted", "ageRestrictedOverride", "expiresAt", "deletedAt",
  "hiddenAt", "bannedAt", "quarantinedAt", "purgedAt", "ownerOrdinal",
  // Keys the file's signed links (signed-links.ts): a revoke replaces it, so a record holding the old one is stale.
  "signingSalt",
] as const satisfies readonly (keyof FileRow)[];

export type ServedFile = Pick<FileRow, (typeof SERVED_FIELDS)[number]>;

export function servedFields(file: ServedFile): ServedFile {
  return Object.fromEntries(SERVED_FIELDS.map((k) => [k, file[k]])) as ServedFile;
}

/** Whether two reads of a file agree on everything serving decides from. */
export function sameServed(a: ServedFile, b: ServedFile): boolean {
  return encodeRecord(servedFields(a)) === encodeRecord(servedFields(b));
}

/**
 * An owner's first SERVING.ownerStateCarriedFiles files (owner_ordinal, fixed at insert) carry the owner's state in
 * their records, so their views decide from one lookup; a change of the state forgets them (owner-state.ts).
 */
export function carriesOwnerState(file: Pick<FileRow, "userId" | "ownerOrdinal">): boolean {
  return file.userId !== null && file.ownerOrdinal !== null && file.ownerOrdinal <= SERVING.ownerStateCarriedFiles;
}

/** A decision as read from D1's primary at `at` (epoch ms): the file, its owner's state when it travels, its shard. */
export type AccessRecord<F extends ServedFile = ServedFile> = { file: F; at: number; owner?: { goneAt: Date | null }; shard?: number };

export function accessRecord<F extends ServedFile>(loaded: LoadedFile<F>, at: number, ownerReadWithFile: boolean): AccessRecord<F> {
  const record: AccessRecord<F> = { file: loaded.file, at };
  if (loaded.shard !== undefined) record.shard = loaded.shard;
  if (ownerReadWithFile && carriesOwnerState(loaded.file)) record.owner = { goneAt: loaded.ownerGoneAt };
  return record;
}

/** The owner's state a record carries, if it may decide with it (undefined: the owner's own record decides). */
export function carriedOwnerGoneAt(record: AccessRecord): Date | null | undefined {
  return record.owner && carriesOwnerState(record.file) ? record.owner.goneAt : undefined;
}

/** `bookmark`: the D1 bookmark of the read the record was filled from. */
export type FileRecord = AccessRecord<FileRow> & { bookmark?: string };
export type OwnerState = { goneAt: Date | null; bookmark?: string };
export const fileRecords = namespace<FileRecord>("fileAccess");
export const ownerStates = namespace<OwnerState>("ownerStates");

/** How long an entry of bytes may stay in the edge cache (objects under a key never change). */
export const EDGE_CACHE_SECONDS = 7 * 24 * 3600;

/** The entry of a file's original or thumbnail: keyed by the file alone, so one lookup finds it (readByteEntry). */
export const entryKey = (env: Env, fileId: string, variant: Variant) => edgeKey(env, "fileBytes", `${fileId}/${variant}`);

/** What decided a view, as an entry carries it. */
export type EntryRecord = AccessRecord<ServedFile>;

export type ByteEntry = {
  /** The cached response: its body is the object's bytes. */
  response: Response;
  /** The R2 object the bytes are (a regenerated thumbnail has a new key: an entry of the old one is a miss). */
  objectKey: string;
  record?: EntryRecord;
  /** The owner's state the record carries (carriedOwnerGoneAt), if it may decide with it. */
  ownerGoneAt?: Date | null;
  /** Its file's record is too long to carry (a long hotlink allow-list): storing it again would not help. */
  tooLong?: boolean;
  /** Set once the response went to the client (byte-path.ts cancels the body of an entry it looked up but did not use). */
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

// Headers decoded before, per isolate: a hot entry carries the same one on every hit. Shared: never changed.
const decodedHeaders = new Map<string, EntryRecord>();

function decodeHeader(header: string): EntryRecord | undefined {
  const known = decodedHeaders.get(header);
  if (known) return known;
  let record: EntryRecord | undefined;
  try {
    record = decodeRecord<EntryRecord>(decodeURIComponent(header));
  } catch {
    return undefined; // unreadable: decide the slow way
  }
  if (!record || typeof record.at !== "number" || typeof record.file?.id !== "string") return undefined;
  if (decodedHeaders.size >= 256) decodedHeaders.clear();
  decodedHeaders.set(header, record);
  return record;
}

/** The entry of a file's original or thumbnail, if this data centre has one. */
export async function readByteEntry(env: Env, fileId: string, variant: Variant): Promise<ByteEntry | undefined> {
  const response = await matchEdge(env, "fileBytes", `${fileId}/${variant}`);
  if (!response) return undefined;
  const objectKey = response.headers.get(OBJECT_HEADER);
  const recordHeader = response.headers.get(RECORD_HEADER);
  const record = recordHeader && recordHeader !== TOO_LONG ? decodeHeader(recordHeader) : undefined;
  if (!objectKey || (record && record.file.id !== fileId)) {
    await response.body?.cancel();
    return undefined;
  }
  const ownerGoneAt = record && carriedOwnerGoneAt(record);
  return { response, objectKey: decodeURIComponent(objectKey), record, ownerGoneAt, tooLong: recordHeader === TOO_LONG };
}

export type EntryMeta = { type: string; size: number; etag: string };
export type EntryWrite = { body: ReadableStream; meta: EntryMeta; objectKey: string; record?: EntryRecord };

/** Stores `body` (the object's whole bytes) as the entry of `variant`, with `record` when one may travel with it. */
export function storeByteEntry(env: Env, fileId: string, variant: Variant, entry: EntryWrite): Promise<void> {
  const headers = new Headers({
    "Content-Type": entry.meta.type,
    "Content-Length": String(entry.meta.size),
    ETag: entry.meta.etag,
    "Cache-Control": `public, max-age=${EDGE_CACHE_SECONDS}`,
    [OBJECT_HEADER]: encodeURIComponent(entry.objectKey),
  });
  if (entry.record) headers.set(RECORD_HEADER, encodeHeader(entry.record) ?? TOO_LONG);
  return putEntry(entryKey(env, fileId, variant), new Response(entry.body, { headers }));
}

/**
 * Stores an entry (after a response, from R2's bytes), then checks the row its request was decided from against
 * D1's primary: a change that landed meanwhile deletes it now. Entries without a record are checked too: their
 * bytes may be an original the analysis has since rewritten in place.
 */
export async function fillByteEntry(env: Env, fileId: string, variant: Variant, write: EntryWrite & { decidedBy: ServedFile }): Promise<void> {
  const key = entryKey(env, fileId, variant);
  const owner = write.record?.owner;
  await writeThenVerify([key], () => storeByteEntry(env, fileId, variant, write), async () => {
    const current = await loadFile(shardDbOf(env, "file", fileId), fileId);
    const sameOwner = !owner || sameTime(current?.ownerGoneAt, owner.goneAt);
    return current && sameServed(current.file, write.decidedBy) && sameOwner ? [] : [key];
  });
}

export const sameTime = (a: Date | null | undefined, b: Date | null | undefined) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/** A read of a shard's primary through a session, so its bookmark is known after; a file id's handle follows a move. */
export function primarySession(env: Env, shard: number, fileId?: string) {
  const sessions = new Map<number, D1DatabaseSession>();
  const open = (n: number) => {
    let session = sessions.get(n);
    if (!session) sessions.set(n, (session = shardBinding(env, n).withSession("first-primary")));
    return shardHandle(session, n);
  };
  const handle = fileId === undefined ? open(shard) : routedShard(open, shard);
  return { shard: handle, bookmark: () => sessions.get(handle.$client.shard)?.getBookmark() ?? undefined };
}

/** The owner's state as its shard has it (owners), what loadFile joins to the file. */
export async function readOwnerState(env: Env, shard: number, userId: string): Promise<OwnerState> {
  const primary = primarySession(env, shard);
  const row = await primary.shard.select({ bannedAt: owners.bannedAt, deletedAt: owners.deletedAt }).from(owners).where(eq(owners.userId, userId)).get();
  return { goneAt: row?.bannedAt ?? row?.deletedAt ?? null, bookmark: primary.bookmark() };
}

/**
 * Writes a file's record and its owner's (after a response), guarded: a record whose row no longer matches D1's
 * primary is deleted again. Compared: what serving decides from, and the owner's state.
 */
export async function fillFileRecords(env: Env, loaded: LoadedFile, at: number, seconds: number, bookmark?: string): Promise<void> {
  const { file, ownerGoneAt: goneAt } = loaded;
  const fileKey = fileRecords.key(env, file.id);
  const ownerKey = file.userId ? ownerStates.key(env, file.userId) : undefined;
  const record: FileRecord = { ...accessRecord({ file: { ...file, deleteTokenHash: null }, ownerGoneAt: goneAt }, at, true), bookmark }; // never a secret in a cache
  await writeThenVerify(
    ownerKey ? [fileKey, ownerKey] : [fileKey],
    () => Promise.all([fileRecords.write(env, file.id, record, seconds), file.userId && ownerStates.write(env, file.userId, { goneAt, bookmark }, seconds)]),
    async () => {
      const current = await loadFile(shardDbOf(env, "file", file.id), file.id);
      const ownerChanged = !sameTime(current?.ownerGoneAt, goneAt);
      const stale: string[] = [];
      if (!current || !sameServed(current.file, file) || (ownerChanged && carriesOwnerState(file))) stale.push(fileKey);
      if (ownerKey && ownerChanged) stale.push(ownerKey);
      return stale;
    },
  );
}

/** Writes an owner's state read from its shard's primary (after a response), guarded like every fill. */
export async function fillOwnerState(env: Env, shard: number, userId: string, read: OwnerState, seconds: number): Promise<void> {
  const key = ownerStates.key(env, userId);
  await writeThenVerify([key], () => ownerStates.write(env, userId, read, seconds), async () => (sameTime((await readOwnerState(env, shard, userId)).goneAt, read.goneAt) ? [] : [key]));
}
