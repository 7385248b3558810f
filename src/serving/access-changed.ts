// Who may see a file changed: the one call every write site makes once its change is committed and before it
// answers, so that the next request, here, gets the new answer. It forgets every edge-cached entry that could
// still decide or serve the old one (records, byte entries, cached variants), here at once and everywhere when
// global purge is configured. Credentials are auth's own (forgetSession, forgetKey, forgetUser for a principal).
import { inArray } from "drizzle-orm";
import { files } from "../db/schema";
import { shardDb } from "../platform/data/db";
import { locateRows } from "../platform/data/moved-ids";
import { forget, type EdgeEnv } from "../platform/edge/edge-records";
import { forgetUser } from "../auth/principal-records";
import { fileCacheKeys, fileRecordKeys, type PurgedFile } from "./edge-cache";
import { forgetOwnerState } from "./owner-state";

export type AccessChange =
  /** Files whose access changed (visibility, hotlink policy, expiry, hidden, restored, deleted, banned, purged, analysed). */
  | { files: PurgedFile[] }
  /** The same, by id: the rows are read from D1's primary to name their cached variants. */
  | { fileIds: string[] }
  /** An owner's state changed (ban, unban, account deletion): their records and the files' records that carry it. */
  | { userId: string };

export async function accessChanged(env: EdgeEnv & Pick<Env, "DB">, change: AccessChange): Promise<void> {
  if ("userId" in change) {
    await Promise.all([forgetUser(env, change.userId), forgetOwnerState(env, change.userId)]);
    return;
  }
  const rows = "files" in change ? change.files : await rowsOf(env, change.fileIds);
  const named = new Set(rows.map((f) => f.id));
  // An id whose row could not be read still loses what its id alone names: its records and byte entries.
  const unnamed = "fileIds" in change ? change.fileIds.filter((id) => !named.has(id)) : [];
  await forget(env, [...rows.flatMap((f) => fileCacheKeys(env, f)), ...unnamed.flatMap((id) => fileRecordKeys(env, id))]);
}

async function rowsOf(env: Pick<Env, "DB">, ids: string[]): Promise<PurgedFile[]> {
  try {
    // The primaries (the write just made is there), each id where it lives now (a moved owner's too).
    const found = await locateRows(env, (n) => shardDb(env, n), "file", ids, (db, chunk) =>
      db.select({ id: files.id, storeKey: files.storeKey, thumbKey: files.thumbKey, mime: files.mime }).from(files).where(inArray(files.id, chunk)),
    );
    return [...found.values()].map((f) => f.row);
  } catch (err) {
    console.error("access changed: the files' rows could not be read; their variants live out their cache time", err);
    return [];
  }
}
