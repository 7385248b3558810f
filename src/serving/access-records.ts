// Access records: a file's row (without its delete-token hash) as an edge record (platform/edge-records.ts),
// so an anonymous view or API read whose records hit is answered with no D1 query and no Durable Object call.
// The owner's state is a record of its own (auth's ownerStates), so a ban reaches all of an owner's files with
// one delete; an owner's first files carry it as well, and decide from one lookup (serving/access.ts). A miss
// reads D1's primary, not a replica: a replica behind the change that deleted the record would otherwise put
// the old answer back for a whole TTL. It reads through a "first-primary" session, whose bookmark after the
// read goes in the record: an API answer decided from the record sends it as its x-d1-bookmark (files/routes.ts),
// honestly (the record holds the primary's state at that bookmark) and with no D1 round trip.
// Bounds and reasoning: docs/edge-records.md.
import { eq } from "drizzle-orm";
import { owners, type FileRow } from "../db/schema";
import { laterBookmark, shardHandle } from "../platform/db";
import { routedShard, shardDbOf } from "../platform/moved-ids";
import { shardBinding, shardOfIdIn } from "../platform/shards";
import { namespace, recordsOn, writeThenVerify } from "../platform/edge-records";
import { accessRecord, carriedOwnerGoneAt, carriesOwnerState, loadFile, sameServed, type AccessRecord, type LoadedFile } from "./access";
import { ownerStates } from "../auth/principal-records";

/** `bookmark`: the D1 bookmark of the read the record was filled from. */
export type FileRecord = AccessRecord<FileRow> & { bookmark?: string };
export const fileRecords = namespace<FileRecord>("access/files");

type WaitUntil = Pick<ExecutionContext, "waitUntil">;

/**
 * A read of a shard's primary through a session, so that its bookmark is known once it is done. Given a file id,
 * the handle follows it when its owner moved to another shard (platform/moved-ids.ts), and the bookmark is then
 * that shard's.
 */
function primarySession(env: Env, shard: number, fileId?: string) {
  const sessions = new Map<number, D1DatabaseSession>();
  const open = (n: number) => {
    let session = sessions.get(n);
    if (!session) sessions.set(n, (session = shardBinding(env, n).withSession("first-primary")));
    return shardHandle(session, n);
  };
  const handle = fileId === undefined ? open(shard) : routedShard(open, shard);
  return { shard: handle, bookmark: () => sessions.get(handle.shardNumber)?.getBookmark() ?? undefined };
}

type OwnerRead = { goneAt: Date | null; bookmark?: string };

/** The owner's state as its shard has it (owners), what loadFile joins to the file. */
async function ownerGoneAt(env: Env, shard: number, userId: string): Promise<OwnerRead> {
  const primary = primarySession(env, shard);
  const row = await primary.shard.select({ bannedAt: owners.bannedAt, deletedAt: owners.deletedAt }).from(owners).where(eq(owners.userId, userId)).get();
  return { goneAt: row?.bannedAt ?? row?.deletedAt ?? null, bookmark: primary.bookmark() };
}

const sameTime = (a: Date | null | undefined, b: Date | null | undefined) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/**
 * A file and its owner's state; when the file was read from D1's primary (absent when not known to be recent);
 * whether the owner's state was read with it (then it may travel with the file's bytes, byte-entries.ts); and a
 * D1 bookmark at least as recent as every read it was decided from (absent when one of them is not known).
 */
export type CachedAccess = LoadedFile & { recordedAt?: number; ownerReadWithFile?: boolean; bookmark?: string };

/**
 * The file and its owner's state for a byte request or an API read (files/routes.ts says when): from the edge
 * records when they hit, else from D1's primary (and then recorded, after the response).
 * `fallback` loads it when records are off or the cache is unavailable.
 */
export async function cachedAccess(env: Env, ctx: WaitUntil, fileId: string, fallback: () => Promise<LoadedFile | undefined>): Promise<CachedAccess | undefined> {
  const on = recordsOn(env);
  if (!on) return fallback();

  const record = await fileRecords.read(env, fileId);
  if (!record) {
    const at = Date.now(); // before the read: a record is never younger than what it says
    const primary = primarySession(env, shardOfIdIn(env, "file", fileId), fileId);
    const loaded = await loadFile(primary.shard, fileId);
    const bookmark = primary.bookmark();
    if (loaded && loaded.file.state === "finalized") ctx.waitUntil(fillFileRecords(env, loaded, at, on.seconds, bookmark));
    return loaded && { ...loaded, recordedAt: at, ownerReadWithFile: carriesOwnerState(loaded.file), bookmark };
  }
  const { file, at: recordedAt, bookmark } = record;
  const shard = recordShard(env, record);
  const carried = carriedOwnerGoneAt(record);
  if (carried !== undefined) return { file, ownerGoneAt: carried, recordedAt, ownerReadWithFile: true, bookmark, shard };
  if (!file.userId) return { file, ownerGoneAt: null, recordedAt, bookmark, shard };
  const owner = await cachedOwnerState(env, ctx, shard, file.userId);
  // Two reads decided it: the later bookmark covers both, but only when both are known.
  return { file, ownerGoneAt: owner.goneAt, recordedAt, bookmark: bookmark && owner.bookmark ? laterBookmark(bookmark, owner.bookmark) : undefined, shard };
}

/** The shard a record's file was found on; a record from before records carried it: the shard its id names. */
export const recordShard = (env: Env, record: Pick<AccessRecord, "file" | "shard">): number => record.shard ?? shardOfIdIn(env, "file", record.file.id);

/**
 * Writes a file's record and its owner's (after a response), guarded: a record whose row no longer matches
 * D1's primary is deleted again. Compared: what serving decides from, and the owner's state (a title changed
 * meanwhile may show for the record's life).
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

/**
 * When a file's owner was banned or deleted (null while live): from the owner's record, else the primary of the
 * owner's shard (`shard`: the file's, which is its owner's).
 */
export async function cachedOwnerGoneAt(env: Env, ctx: WaitUntil, shard: number, userId: string): Promise<Date | null> {
  return (await cachedOwnerState(env, ctx, shard, userId)).goneAt;
}

/** The owner's state as cachedOwnerGoneAt finds it, with the bookmark of the read it came from. */
async function cachedOwnerState(env: Env, ctx: WaitUntil, shard: number, userId: string): Promise<OwnerRead> {
  const on = recordsOn(env);
  const record = on ? await ownerStates.read(env, userId) : undefined;
  if (record) return record;
  const read = await ownerGoneAt(env, shard, userId);
  if (on) {
    const key = ownerStates.key(env, userId);
    const write = () => ownerStates.write(env, userId, read, on.seconds);
    ctx.waitUntil(writeThenVerify([key], write, async () => (sameTime((await ownerGoneAt(env, shard, userId)).goneAt, read.goneAt) ? [] : [key])));
  }
  return read;
}
