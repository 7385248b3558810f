// Edge-cached access records: what a byte link's access decision needs (the file's row, its owner's state),
// kept in caches.default beside the bytes, so an anonymous view that hits both is answered with no D1 query
// and no Durable Object call.
//
// Why the Cache API and not Workers KV: a record must change at once where it was changed (the very next
// request after a delete or a ban gets the new answer), and cache.delete in the writer's data centre does
// that; KV's edge caching makes a write visible elsewhere only within its cacheTtl (60 s at least) and costs
// a write per change. Other data centres: the records live ACCESS_RECORD_SECONDS (30 s by default), or a
// global purge by URL drops them sooner (global-purge.ts). Expiry needs neither: the record has expiresAt.
//
// Two records, so that an owner's ban reaches all their files with one delete:
//   files/<id>   the file's row (without its delete-token hash), stored only once it is finalized;
//   owners/<id>  when the owner was banned or deleted (null while live).
// The records of an owner's first files also carry the owner's state, so their views need one lookup; a
// change of that state forgets those records one by one (owner-state.ts says which).
// A miss reads D1's primary, not a replica: a replica that has not caught up with the change that deleted
// the record would otherwise put the old answer back for a whole TTL. It reads through a "first-primary"
// session, whose bookmark after the read goes in the record: an API answer decided from the record sends it
// as its x-d1-bookmark (files/routes.ts), honestly (the record holds the primary's state at that bookmark) and
// with no D1 round trip.
import { eq } from "drizzle-orm";
import { users, type FileRow } from "../db/schema";
import { createDb, laterBookmark } from "../platform/db";
import { loadFile, type LoadedFile } from "../files/access";
import { defaultCache, fileAccessKey, ownerAccessKey, readRecord, writeRecord } from "./edge-cache";
import { sameServed } from "./byte-entries";
import { carriesOwnerState } from "./owner-state";

const DEFAULT_SECONDS = 30;
const MAX_SECONDS = 300;

/** ACCESS_RECORD_SECONDS: how long a record may decide; 0 turns records off (every view reads D1). */
export function accessRecordSeconds(env: Pick<Env, "ACCESS_RECORD_SECONDS">): number {
  const raw = Number(env.ACCESS_RECORD_SECONDS ?? DEFAULT_SECONDS);
  return Number.isFinite(raw) && raw >= 0 ? Math.min(Math.floor(raw), MAX_SECONDS) : DEFAULT_SECONDS;
}

const DATE_FIELDS = [
  "analyzedAt",
  "expiresAt",
  "deletedAt",
  "hiddenAt",
  "bannedAt",
  "quarantinedAt",
  "purgedAt",
  "finalizedAt",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof FileRow)[];

/**
 * `at`: when the row was read from D1's primary (epoch ms); a byte entry that takes it on keeps it (byte-entries.ts).
 * `bookmark`: the D1 bookmark of that read (absent in records written before it was kept).
 * `owner`: the owner's state, read with the row, for the files that carry it (owner-state.ts).
 */
type FileRecord = { v: 1; at?: number; bookmark?: string; file: Record<string, unknown>; owner?: OwnerState };
type OwnerState = { goneAt: number | null };
type OwnerRecord = { v: 1; bookmark?: string } & OwnerState;

function encodeFile(loaded: LoadedFile, at: number, bookmark: string | undefined): FileRecord {
  const { file } = loaded;
  const row: Record<string, unknown> = { ...file, deleteTokenHash: null }; // never a secret in a cache
  for (const k of DATE_FIELDS) row[k] = file[k] ? file[k]!.getTime() : null;
  const record: FileRecord = { v: 1, at, bookmark, file: row };
  if (carriesOwnerState(file)) record.owner = { goneAt: loaded.ownerGoneAt?.getTime() ?? null };
  return record;
}

function decodeFile(record: FileRecord): FileRow {
  const row: Record<string, unknown> = { ...record.file };
  for (const k of DATE_FIELDS) row[k] = typeof row[k] === "number" ? new Date(row[k] as number) : null;
  return row as FileRow;
}

/** A read of D1's primary through a session, so that its bookmark is known once it is done. */
function primarySession(env: Env) {
  const session = env.DB.withSession("first-primary");
  return { db: createDb(session), bookmark: () => session.getBookmark() ?? undefined };
}

type OwnerRead = { goneAt: Date | null; bookmark?: string };

async function ownerGoneAt(env: Env, userId: string): Promise<OwnerRead> {
  const primary = primarySession(env);
  const row = await primary.db.select({ bannedAt: users.bannedAt, deletedAt: users.deletedAt }).from(users).where(eq(users.id, userId)).get();
  return { goneAt: row?.bannedAt ?? row?.deletedAt ?? null, bookmark: primary.bookmark() };
}

/**
 * A file and its owner's state; when the file was read from D1's primary (absent when not known to be recent);
 * whether the owner's state was read with it (then it may travel with the file's bytes, byte-entries.ts); and a
 * D1 bookmark at least as recent as every read it was decided from (absent when one of them is not known).
 */
export type CachedAccess = LoadedFile & { recordedAt?: number; ownerReadWithFile?: boolean; bookmark?: string };

/**
 * The file and its owner's state for a byte request or an API read (files/routes.ts says when): from the edge
 * cache when both records are there, else from D1's primary (and then cached, after the response).
 * `fallback` loads it when records are off or the cache is unavailable.
 */
export async function cachedAccess(
  env: Env,
  ctx: Pick<ExecutionContext, "waitUntil">,
  fileId: string,
  fallback: () => Promise<LoadedFile | undefined>,
): Promise<CachedAccess | undefined> {
  const seconds = accessRecordSeconds(env);
  const cache = defaultCache();
  if (seconds === 0 || !cache) return fallback();

  const fileKey = fileAccessKey(env, fileId);
  const fileRecord = await readRecord<FileRecord>(cache, fileKey);
  if (!fileRecord) {
    const at = Date.now(); // before the read: a record is never younger than what it says
    const primary = primarySession(env);
    const loaded = await loadFile(primary.db, fileId);
    const bookmark = primary.bookmark();
    if (loaded && loaded.file.state === "finalized") ctx.waitUntil(fillFileRecords(env, cache, loaded, at, seconds, bookmark));
    return loaded && { ...loaded, recordedAt: at, ownerReadWithFile: carriesOwnerState(loaded.file), bookmark };
  }

  const file = decodeFile(fileRecord);
  // One lookup: the record carries the owner's state (checked again: the bound may have changed since).
  if (fileRecord.owner && carriesOwnerState(file)) {
    const goneAt = fileRecord.owner.goneAt;
    return { file, ownerGoneAt: goneAt === null ? null : new Date(goneAt), recordedAt: fileRecord.at, ownerReadWithFile: true, bookmark: fileRecord.bookmark };
  }
  if (!file.userId) return { file, ownerGoneAt: null, recordedAt: fileRecord.at, bookmark: fileRecord.bookmark };
  const owner = await cachedOwnerState(env, ctx, file.userId);
  // Two reads decided it: the later bookmark covers both, but only when both are known.
  const bookmark = fileRecord.bookmark && owner.bookmark ? laterBookmark(fileRecord.bookmark, owner.bookmark) : undefined;
  return { file, ownerGoneAt: owner.goneAt, recordedAt: fileRecord.at, bookmark };
}

/**
 * Writes a file's record and its owner's (after a response), then reads the row again: a change that landed
 * between the read and the write, whose delete ran too early to see them, deletes them now. Compared: what
 * serving decides from, and the owner's state (a title changed meanwhile may show for the record's life).
 */
export async function fillFileRecords(env: Env, cache: Cache, loaded: LoadedFile, at: number, seconds: number, bookmark?: string): Promise<void> {
  const fileKey = fileAccessKey(env, loaded.file.id);
  const ownerKey = loaded.file.userId ? ownerAccessKey(env, loaded.file.userId) : undefined;
  const goneAt = loaded.ownerGoneAt?.getTime() ?? null;
  await Promise.all([
    writeRecord(cache, fileKey, encodeFile(loaded, at, bookmark), seconds),
    ownerKey ? writeRecord(cache, ownerKey, { v: 1, bookmark, goneAt } satisfies OwnerRecord, seconds) : undefined,
  ]);
  const current = await loadFile(createDb(env.DB), loaded.file.id).catch(() => undefined);
  const stale: string[] = [];
  const ownerChanged = (current?.ownerGoneAt?.getTime() ?? null) !== goneAt;
  if (!current || !sameServed(current.file, loaded.file) || (ownerChanged && carriesOwnerState(loaded.file))) stale.push(fileKey);
  if (ownerKey && ownerChanged) stale.push(ownerKey);
  await Promise.all(stale.map((key) => cache.delete(key).catch(() => false)));
}

/** When a file's owner was banned or deleted (null while live): from the owner's record, else D1's primary. */
export async function cachedOwnerGoneAt(env: Env, ctx: Pick<ExecutionContext, "waitUntil">, userId: string): Promise<Date | null> {
  return (await cachedOwnerState(env, ctx, userId)).goneAt;
}

/** The owner's state as cachedOwnerGoneAt finds it, with the bookmark of the read it came from. */
async function cachedOwnerState(env: Env, ctx: Pick<ExecutionContext, "waitUntil">, userId: string): Promise<OwnerRead> {
  const cache = defaultCache();
  const ownerKey = ownerAccessKey(env, userId);
  const ownerRecord = cache && (await readRecord<OwnerRecord>(cache, ownerKey));
  if (ownerRecord) return { goneAt: ownerRecord.goneAt === null ? null : new Date(ownerRecord.goneAt), bookmark: ownerRecord.bookmark };
  const read = await ownerGoneAt(env, userId);
  if (cache) ctx.waitUntil(fillOwnerRecord(env, cache, userId, read));
  return read;
}

/** As fillFileRecords, for the owner's record alone: written, then checked against the users row. */
async function fillOwnerRecord(env: Env, cache: Cache, userId: string, { goneAt, bookmark }: OwnerRead): Promise<void> {
  const ownerKey = ownerAccessKey(env, userId);
  await writeRecord(cache, ownerKey, { v: 1, bookmark, goneAt: goneAt?.getTime() ?? null } satisfies OwnerRecord, accessRecordSeconds(env));
  const current = await ownerGoneAt(env, userId).catch(() => undefined);
  if (current === undefined || (current.goneAt?.getTime() ?? null) !== (goneAt?.getTime() ?? null)) await cache.delete(ownerKey).catch(() => false);
}
