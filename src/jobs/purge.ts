// The purge (a scheduled task, jobs/scheduled.ts): soft-deleted and expired files read 410 at once, but their objects
// stay PURGE.retentionSeconds (an undo window, evidence for abuse reports) before this removes object and thumbnail,
// drops the edge entries, frees the quota and leaves the near-duplicate indexes. Safe twice or concurrently: R2
// deletes are idempotent and the quota release is conditional on the row not purged, in the transaction that marks
// it purged. Expired files leave their albums at once (not after the retention), so album counts stay true.
import { and, eq, gt, isNull, lte, sql } from "drizzle-orm";
import { runBatch, type ShardDb } from "../platform/data/db";
import { albumFiles, files, owners, type FileRow } from "../db/schema";
import { PURGE } from "../config";
import { detachFileFromAlbumsStatements } from "../files/album-membership";
import { accessChanged } from "../serving/access-changed";
import { unindexFileStatements } from "../analysis/band-rows";

export type PurgeResult = { detached: number; purged: number; freedBytes: number };

/** Files per D1 batch: each costs four statements. */
const FILES_PER_BATCH = 20;

/**
 * The queries of the candidates past the retention cutoff. Each arm walks its own index (files_deleted,
 * files_expires; partial: only files that have the date) over a bounded window [cutoff - lookback, cutoff], so
 * a growing history of purged rows is never rescanned.
 */
export function purgeCandidateQueries(db: ShardDb, now: number, limit: number) {
  const cutoff = new Date(now - PURGE.retentionSeconds * 1000);
  const floor = new Date(now - (PURGE.retentionSeconds + PURGE.lookbackSeconds) * 1000);
  return [
    db
      .select()
      .from(files)
      .where(and(lte(files.deletedAt, cutoff), gt(files.deletedAt, floor), isNull(files.purgedAt)))
      .limit(limit),
    db
      .select()
      .from(files)
      .where(and(lte(files.expiresAt, cutoff), gt(files.expiresAt, floor), isNull(files.purgedAt)))
      .limit(limit),
  ] as const;
}

async function purgeCandidates(db: ShardDb, now: number, limit: number): Promise<FileRow[]> {
  const [deleted, expired] = await Promise.all(purgeCandidateQueries(db, now, limit));
  const byId = new Map<string, FileRow>();
  for (const f of [...deleted, ...expired]) byId.set(f.id, f);
  return [...byId.values()].slice(0, limit);
}

/** Frees the file's bytes from its owner's quota only if it is still unpurged and was committed (finalized). */
function releaseQuotaStatement(db: ShardDb, file: FileRow) {
  return db
    .update(owners)
    .set({ storageUsed: sql`MAX(0, ${owners.storageUsed} - ${file.bytes})` })
    .where(
      and(
        eq(owners.userId, file.userId!),
        sql`EXISTS (SELECT 1 FROM ${files} WHERE ${files.id} = ${file.id} AND ${files.purgedAt} IS NULL AND ${files.state} = 'finalized')`,
      ),
    );
}

function markPurgedStatement(db: ShardDb, fileId: string, now: number) {
  return db
    .update(files)
    .set({ purgedAt: new Date(now), updatedAt: new Date(now) })
    .where(and(eq(files.id, fileId), isNull(files.purgedAt)))
    .returning({ id: files.id }); // counted by its rows: D1's `changes` counts the search index's trigger writes too
}

/** Expired (not yet purged) files still listed in albums leave them now. */
async function detachExpiredFromAlbums(db: ShardDb, now: number): Promise<number> {
  const floor = new Date(now - (PURGE.retentionSeconds + PURGE.lookbackSeconds) * 1000);
  const rows = await db
    .selectDistinct({ id: files.id })
    .from(files)
    .innerJoin(albumFiles, eq(albumFiles.fileId, files.id))
    .where(and(lte(files.expiresAt, new Date(now)), gt(files.expiresAt, floor), isNull(files.purgedAt)))
    .limit(PURGE.batchSize);
  for (let i = 0; i < rows.length; i += FILES_PER_BATCH) {
    const statements = rows.slice(i, i + FILES_PER_BATCH).flatMap((r) => detachFileFromAlbumsStatements(db, r.id, now));
    await runBatch(db, statements);
  }
  return rows.length;
}

export async function purgeGoneFiles(env: Env, db: ShardDb, now = Date.now()): Promise<PurgeResult> {
  const detached = await detachExpiredFromAlbums(db, now);
  const candidates = await purgeCandidates(db, now, PURGE.batchSize);
  if (candidates.length === 0) return { detached, purged: 0, freedBytes: 0 };

  // Objects first: if the run dies after this, the rows are still unpurged and the next run finishes them.
  const keys = candidates.flatMap((f) => (f.thumbKey ? [f.storeKey, f.thumbKey] : [f.storeKey]));
  await env.BUCKET.delete(keys);
  // One call a file, together: each file's keys are one purge-by-URL call, sent side by side.
  await Promise.all(candidates.map((f) => accessChanged(env, { files: [f] })));

  let purged = 0;
  let freedBytes = 0;
  for (let i = 0; i < candidates.length; i += FILES_PER_BATCH) {
    const chunk = candidates.slice(i, i + FILES_PER_BATCH);
    const statements = chunk.flatMap((f) => [
      ...(f.userId ? [releaseQuotaStatement(db, f)] : []),
      markPurgedStatement(db, f.id, now),
      ...detachFileFromAlbumsStatements(db, f.id, now),
    ]);
    const results = await runBatch(db, statements);
    // Walk the results in the same order to see which rows this run actually purged.
    let r = 0;
    for (const f of chunk) {
      const released = f.userId ? results[r++] : undefined;
      const marked = results[r++];
      r += 2;
      if ((marked as D1Result).results.length === 1) {
        purged++;
        if (released && (released as D1Result).meta.changes === 1) freedBytes += f.bytes;
      }
    }
  }
  // Purged files leave the near-duplicate indexes, their rows deleted by their keys (idempotent; a repeat
  // deletes nothing).
  await runBatch(db, candidates.flatMap((f) => unindexFileStatements(db, f)));
  return { detached, purged, freedBytes };
}
