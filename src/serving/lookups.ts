// The lookups that decide a byte request or an API read: the file's byte entry (with the record it carries), its
// access record, its owner's state; each from the edge when it may decide, else from D1's primary, filled after the
// response (records.ts). A miss reads the primary, never a replica: docs/edge-records.md says why, and the bounds.
import type { Context } from "hono";
import type { AppEnv } from "../platform/http/env";
import { laterBookmark } from "../platform/data/db";
import { shardDbOf } from "../platform/data/moved-ids";
import { shardOfIdIn } from "../platform/data/shards";
import { recordSeconds, recordsOn } from "../platform/edge/edge-records";
import { requestDbs } from "../middleware/db";
import { loadFile, type LoadedFile } from "./access";
import { servedType } from "./answers";
import {
  accessRecord, carriedOwnerGoneAt, carriesOwnerState, fileRecords, fillByteEntry, fillFileRecords, fillOwnerState, ownerStates,
  primarySession, readByteEntry, readOwnerState, type AccessRecord, type ByteEntry, type EntryRecord, type OwnerState, type ServedFile, type Variant,
} from "./records";

type WaitUntil = Pick<ExecutionContext, "waitUntil">;

/** How a byte request was decided, and where its bytes may come from. */
export type Decision = {
  loaded: LoadedFile<ServedFile> | undefined;
  /** The entry looked up while deciding (a plain GET of an original or thumbnail); else none was looked up. */
  entry?: ByteEntry;
  read: boolean;
  /** The record that decided, when one may travel with the bytes: an entry stored by this request carries it. */
  record?: EntryRecord;
  /** ACCESS_RECORD_SECONDS when records may decide (anonymous viewers), else 0: no record goes in an entry. */
  recordSeconds: number;
};

/**
 * An anonymous viewer: the entry's record when it is fresh (one lookup, or two past an owner's first files), else
 * the access record or D1's primary. A signed-in viewer may be the owner who just changed the file: D1 decides.
 * `entryVariant`: the entry a plain GET would be served from (none for variants, HEAD, ranges, conditionals).
 */
export async function decide(c: Context<AppEnv>, fileId: string, signedIn: boolean, entryVariant: Variant | undefined, now: number): Promise<Decision> {
  const fromDb = () => loadFile(requestDbs(c).shardOf("file", fileId), fileId);
  if (signedIn) return { loaded: await fromDb(), read: false, recordSeconds: 0 };
  const seconds = recordSeconds(c.env);
  const read = entryVariant !== undefined && seconds > 0;
  const entry = read ? await readByteEntry(c.env, fileId, entryVariant) : undefined;
  try {
    const fresh = entry?.record && now - entry.record.at < seconds * 1000 ? entry.record : undefined;
    if (fresh) {
      const carried = entry!.ownerGoneAt;
      const ownerGoneAt = carried !== undefined ? carried : fresh.file.userId ? (await cachedOwnerState(c.env, c.executionCtx, recordShard(c.env, fresh), fresh.file.userId)).goneAt : null;
      return { loaded: { file: fresh.file, ownerGoneAt }, read, entry, record: fresh, recordSeconds: seconds };
    }
    const loaded = await cachedAccess(c.env, c.executionCtx, fileId, fromDb);
    const record = loaded?.recordedAt !== undefined && loaded.file.state === "finalized" ? accessRecord(loaded, loaded.recordedAt, loaded.ownerReadWithFile === true) : undefined;
    return { loaded, read, entry, record, recordSeconds: seconds };
  } catch (err) {
    await entry?.response.body?.cancel(); // (D1 failing on the slow path: the request fails, the body is released)
    throw err;
  }
}

/**
 * A file and its owner's state; when the file was read from D1's primary (absent when not known to be recent); whether
 * the owner's state was read with it (then it may travel with the bytes); and a bookmark at least as recent as every
 * read it was decided from (absent when one of them is not known).
 */
export type CachedAccess = LoadedFile & { recordedAt?: number; ownerReadWithFile?: boolean; bookmark?: string };

/** From the edge records when they hit, else D1's primary (recorded after the response); `fallback` when records are off. */
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

/** The owner's state (null goneAt while live): from its record, else the primary of the owner's shard (`shard`). */
export async function cachedOwnerState(env: Env, ctx: WaitUntil, shard: number, userId: string): Promise<OwnerState> {
  const on = recordsOn(env);
  const record = on ? await ownerStates.read(env, userId) : undefined;
  if (record) return record;
  const read = await readOwnerState(env, shard, userId);
  if (on) ctx.waitUntil(fillOwnerState(env, shard, userId, read, on.seconds));
  return read;
}

/** Stores an entry again (after the response, byte-path.ts claims it): with `given`, else a record read now from D1's primary. */
export async function refreshByteEntry(env: Env, fileId: string, variant: Variant, objectKey: string, given?: EntryRecord): Promise<void> {
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
  }
}
