// Who is asking for a byte link, and what decides their access: the first half of serve.ts.
//
// An anonymous view of an original or thumbnail first looks up the object's entry (byte-entries.ts): when
// its record is fresh, that record decides, with the owner's state it carries (one cache lookup in all, the
// bytes included) or else the owner's record (two). Otherwise the file's access record decides, or D1's
// primary (access-records.ts), and the entry is stored again with that fresher record. A Bearer caller may
// be the owner who just changed the file: always decided from D1.
import type { Context } from "hono";
import type { AppEnv } from "../platform/env";
import { resolvePrincipal } from "../auth/principal";
import { missingPermission } from "../middleware/guards";
import { requestDbs } from "../middleware/db";
import { accessRecord, ANONYMOUS_VIEWER, carriedOwnerGoneAt, loadFile, viewerOf, type LoadedFile, type ServedFile, type Viewer } from "./access";
import { recordSeconds } from "../platform/edge-records";
import { isId } from "../platform/ids";
import { cachedAccess, cachedOwnerGoneAt, recordShard } from "./access-records";
import { freshRecord, readByteEntry, type ByteEntry, type EntryRecord } from "./byte-entries";
import type { Variant } from "./edge-cache";

/**
 * Private files are the owner's alone; an <img> carries no credentials, so only a Bearer header can prove it.
 * The API's permission rule holds here too: an API key without `read` reads nothing (403), decided before
 * the file is looked up so the answer never depends on whether a file exists.
 */
export async function bearerViewer(c: Context<AppEnv>): Promise<Viewer> {
  if (!c.req.header("authorization")) return ANONYMOUS_VIEWER;
  let principal;
  try {
    principal = await resolvePrincipal(c.env, requestDbs(c).directory(), c.req.raw, c.executionCtx);
  } catch {
    return ANONYMOUS_VIEWER; // a bad token proves nothing: a private file stays 404
  }
  if (principal.kind === "key" && !principal.permissions.includes("read")) throw missingPermission("read");
  return viewerOf(principal);
}

/** Where a request's bytes may come from, as far as the decision already knows. */
export type EntrySource = {
  /** True when the entry was looked up while deciding (then `entry` is all there is: no second lookup). */
  read: boolean;
  entry?: ByteEntry;
  /** The record that decided, when one may travel with the bytes: an entry stored by this request carries it. */
  record?: EntryRecord;
  /** ACCESS_RECORD_SECONDS when records may decide (anonymous viewers), else 0: no record goes in an entry. */
  recordSeconds: number;
};

export type Decision = EntrySource & { loaded: LoadedFile<ServedFile> | undefined };

/**
 * `entryVariant`: the entry a plain request (no `?w=`) of this path would be served from; undefined for
 * variants, which are decided from the records and never need the original's bytes.
 */
export async function decide(c: Context<AppEnv>, fileId: string, viewer: Viewer, entryVariant: Variant | undefined, now: number): Promise<Decision> {
  const fromDb = () => loadFile(requestDbs(c).shardOf("file", fileId), fileId);
  if (viewer.userId !== null) return { loaded: await fromDb(), read: false, recordSeconds: 0 };

  const seconds = recordSeconds(c.env);
  const read = entryVariant !== undefined && seconds > 0 && isId("file", fileId);
  const entry = read ? await readByteEntry(c.env, fileId, entryVariant) : undefined;
  try {
    const fresh = freshRecord(entry, seconds, now);
    if (fresh) {
      const carried = carriedOwnerGoneAt(fresh);
      const ownerGoneAt = carried !== undefined ? carried : fresh.file.userId ? await cachedOwnerGoneAt(c.env, c.executionCtx, recordShard(c.env, fresh), fresh.file.userId) : null;
      return { loaded: { file: fresh.file, ownerGoneAt }, read, entry, record: fresh, recordSeconds: seconds };
    }
    const loaded = await cachedAccess(c.env, c.executionCtx, fileId, fromDb);
    const record =
      loaded?.recordedAt !== undefined && loaded.file.state === "finalized" ? accessRecord(loaded, loaded.recordedAt, loaded.ownerReadWithFile === true) : undefined;
    return { loaded, read, entry, record, recordSeconds: seconds };
  } catch (err) {
    await entry?.response.body?.cancel(); // (D1 failing on the slow path: the request fails, the body is released)
    throw err;
  }
}
