// Who may see a file changed: the one call every write site makes once its change is committed and before it
// answers, so that the next request, here, gets the new answer. It forgets every edge-cached entry that could
// still decide or serve the old one (records, byte entries, cached variants), here at once and everywhere when
// global purge is configured. Credentials are auth's own (forgetSession, forgetKey, forgetUser for a principal).
import { inArray } from "drizzle-orm";
import { files } from "../db/schema";
import { shardDb } from "../platform/db";
import { groupByShard } from "../platform/shards";
import { forget, type EdgeEnv } from "../platform/edge-records";
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

/** D1 binds at most 100 parameters a statement. */
const IDS_PER_READ = 90;

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
  const rows: PurgedFile[] = [];
  try {
    for (const [shard, ofShard] of groupByShard(env, ids)) {
      const db = shardDb(env, shard); // the primary: the write just made is there
      for (let i = 0; i < ofShard.length; i += IDS_PER_READ) {
        const chunk = ofShard.slice(i, i + IDS_PER_READ);
        rows.push(...(await db.select({ id: files.id, storeKey: files.storeKey, thumbKey: files.thumbKey, mime: files.mime }).from(files).where(inArray(files.id, chunk))));
      }
    }
  } catch (err) {
    console.error("access changed: the files' rows could not be read; their variants live out their cache time", err);
  }
  return rows;
}
