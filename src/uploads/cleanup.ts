// The scheduled clean-up of uploads, so nothing is orphaned in D1 or R2: (1) live uploads past expiresAt expire
// (reservation released, file failed); (2) failed files whose storage is not yet removed (expired above, or a
// request's own removal failed) get their multipart upload aborted and object deleted, and are marked purged;
// (3) ended uploads purged more than a retention period ago leave D1. Each step is a bounded batch; the next run
// picks up the rest. `now` is a parameter so tests advance time instead of sleeping.
import { and, asc, eq, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import { UPLOADS } from "../config/uploads";
import { files, uploadParts, uploads } from "../db/schema";
import { runBatch, type ShardDb } from "../platform/data/db";
import { removeStoredBytes } from "./lifecycle";
import { ENDED_UPLOAD_STATES, LIVE_UPLOAD_STATES, endUpload } from "./records";

export type CleanupResult = { expired: number; purged: number; deleted: number; errors: number };

/**
 * `state IN ('pending', 'uploaded')` with the states written out, not bound: only then does SQLite walk the
 * partial index uploads_state_expires, which holds uploads in flight only (test/uploads/cleanup.test.ts).
 */
const liveUploadStates = sql`${uploads.state} IN (${sql.raw(LIVE_UPLOAD_STATES.map((state) => `'${state}'`).join(", "))})`;

/** Live uploads past their expiry, oldest first: a walk of uploads_state_expires. */
export function staleUploadsQuery(db: ShardDb, at: Date) {
  return db
    .select({ id: uploads.id, fileId: uploads.fileId })
    .from(uploads)
    .where(and(liveUploadStates, lt(uploads.expiresAt, at)))
    .orderBy(asc(uploads.expiresAt))
    .limit(UPLOADS.cleanupBatchSize);
}

/**
 * Records of ended uploads whose storage was removed before `retainedSince`: found from failed files
 * (files_state_created), then their upload (uploads_file); ended uploads are not in uploads_state_expires.
 */
export function endedRecordsQuery(db: ShardDb, retainedSince: Date) {
  return db
    .select({ uploadId: uploads.id, fileId: files.id })
    .from(uploads)
    .innerJoin(files, eq(files.id, uploads.fileId))
    .where(and(inArray(uploads.state, [...ENDED_UPLOAD_STATES]), eq(files.state, "failed"), isNotNull(files.purgedAt), lt(files.purgedAt, retainedSince)))
    .limit(UPLOADS.cleanupBatchSize / 2); // two ids per row in one IN list: stays under D1's 100 bound parameters
}

export async function cleanupUploads(env: Env, db: ShardDb, now = Date.now()): Promise<CleanupResult> {
  const at = new Date(now);
  const result: CleanupResult = { expired: 0, purged: 0, deleted: 0, errors: 0 };

  const stale = await staleUploadsQuery(db, at);
  for (const upload of stale) {
    // Conditional: an upload finalized a moment ago is left alone.
    if (await endUpload(db, upload, "expired", at)) result.expired += 1;
  }

  const unpurged = await db
    .select({ fileId: files.id, storeKey: files.storeKey, kind: uploads.kind, r2UploadId: uploads.r2UploadId })
    .from(files)
    .innerJoin(uploads, eq(uploads.fileId, files.id))
    .where(and(eq(files.state, "failed"), isNull(files.purgedAt)))
    .limit(UPLOADS.cleanupBatchSize);
  for (const row of unpurged) {
    try {
      await removeStoredBytes(env, db, row, row.storeKey, at);
      result.purged += 1;
    } catch (err) {
      result.errors += 1;
      console.error(`upload cleanup: removing ${row.storeKey} failed`, err);
    }
  }

  const retainedSince = new Date(now - UPLOADS.endedRecordsRetentionSeconds * 1000);
  const old = await endedRecordsQuery(db, retainedSince);
  if (old.length > 0) {
    const uploadIds = old.map((r) => r.uploadId);
    const fileIds = old.map((r) => r.fileId);
    await runBatch(db, [
      db.delete(uploadParts).where(inArray(uploadParts.uploadId, uploadIds)),
      db.delete(uploads).where(inArray(uploads.id, uploadIds)),
      // a failed file is never in an album, but a foreign key must not be able to stop the whole batch
      db.delete(files).where(and(inArray(files.id, fileIds), eq(files.state, "failed"), sql`NOT EXISTS (SELECT 1 FROM album_files WHERE file_id = ${files.id})`)),
    ]);
    result.deleted = old.length;
  }
  return result;
}
