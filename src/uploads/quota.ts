// Storage quota, money-safe under concurrency. The counters are the owner's row on its shard (beside their files and
// uploads: no directory round trip), the limit the plan's (the principal carries it). D1 has no interactive
// transactions, so each change is one conditional UPDATE whose `meta.changes` says if it applied: reserve (used +
// reserved + n <= quota), commit, release, free (docs/uploads.md). The *Statement helpers return drizzle builders to
// `await` alone or put in a `runBatch` with their state change. No edge record holds these columns: no invalidation.
import { and, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { runBatch, type ShardDb } from "../platform/data/db";
import { owners, uploads } from "../db/schema";
import { PLAN_LIMITS, type Plan } from "../config";
import { ensureOwnerKeyStatement } from "../analysis/band-rows";
import { ownerMoving } from "../platform/data/moved-ids";

/**
 * Reserves `bytes` of the user's plan quota; false when it would not fit, 503 owner_moving while the owner is
 * moved to another shard. The owner's row is made in the same batch when this is its first upload on the shard.
 */
export async function reserveQuota(db: ShardDb, userId: string, plan: Plan, bytes: number): Promise<boolean> {
  const quota = PLAN_LIMITS[plan].storageQuotaBytes;
  const ensure = ensureOwnerKeyStatement(db, userId);
  // An owner being moved to another shard (owners.moved_to) reserves nothing: the same batch reads the fence.
  const fence = db.select({ movedTo: owners.movedTo }).from(owners).where(eq(owners.userId, userId));
  const moving = (results: D1Result[]) => (results[1].results[0] as { moved_to: number | null } | undefined)?.moved_to != null;
  if (quota === null) {
    if (moving(await runBatch(db, [ensure, fence]))) throw ownerMoving();
    return true;
  }
  const reserve = db
    .update(owners)
    .set({ storageReserved: sql`${owners.storageReserved} + ${bytes}` })
    .where(and(eq(owners.userId, userId), isNull(owners.movedTo), sql`${owners.storageUsed} + ${owners.storageReserved} + ${bytes} <= ${quota}`));
  const results = await runBatch(db, [ensure, fence, reserve]);
  if (moving(results)) throw ownerMoving();
  return results[2].meta.changes === 1;
}

/** Turns a reservation into used storage (finalize). */
export function commitQuotaStatement(db: ShardDb, userId: string, bytes: number) {
  return db
    .update(owners)
    .set({ storageReserved: sql`MAX(0, ${owners.storageReserved} - ${bytes})`, storageUsed: sql`${owners.storageUsed} + ${bytes}` })
    .where(eq(owners.userId, userId));
}

/** Gives a reservation back (abort, failed verification, expiry). */
export function releaseReservationStatement(db: ShardDb, userId: string, bytes: number) {
  return db
    .update(owners)
    .set({ storageReserved: sql`MAX(0, ${owners.storageReserved} - ${bytes})` })
    .where(eq(owners.userId, userId));
}

/** Frees used storage once a file's objects are purged. */
export function freeStorageStatement(db: ShardDb, userId: string, bytes: number) {
  return db
    .update(owners)
    .set({ storageUsed: sql`MAX(0, ${owners.storageUsed} - ${bytes})` })
    .where(eq(owners.userId, userId));
}

export type Usage = { used: number; reserved: number };

/** The owners' counters on one shard, by user id; an owner without a row there has used and reserved nothing. */
export async function ownerUsage(db: ShardDb, userIds: readonly string[]): Promise<Map<string, Usage>> {
  const usage = new Map<string, Usage>(userIds.map((id) => [id, { used: 0, reserved: 0 }]));
  if (userIds.length === 0) return usage;
  // An admin page lists at most 100 users: under D1's 100 bound parameters.
  const rows = await db
    .select({ userId: owners.userId, used: owners.storageUsed, reserved: owners.storageReserved })
    .from(owners)
    .where(inArray(owners.userId, [...userIds]));
  for (const r of rows) usage.set(r.userId, { used: r.used, reserved: r.reserved });
  return usage;
}

// ---------------------------------------------------------------------------------------------------------
// Settling an upload's reservation. The amount held is `uploads.reserved_bytes`, so these statements act only while
// the upload is in one of `fromStates` and still holds bytes, and the caller's batch must move it out of `fromStates`
// and zero `reserved_bytes` (uploads/records.ts transitionUpload): one transaction, so a repeated or concurrent settle
// (double finalize, abort racing cleanup) moves nothing twice.

type UploadState = (typeof uploads.$inferSelect)["state"];

/** The owner holding the upload's reservation, while the upload is in `fromStates` (else no row matches). */
const holder = (db: ShardDb, uploadId: string, fromStates: readonly UploadState[]) =>
  db
    .select({ userId: uploads.userId })
    .from(uploads)
    .where(and(eq(uploads.id, uploadId), gt(uploads.reservedBytes, 0), inArray(uploads.state, [...fromStates])));

const heldBytes = (db: ShardDb, uploadId: string) => db.select({ bytes: uploads.reservedBytes }).from(uploads).where(eq(uploads.id, uploadId));

/** Finalize: the upload's reservation becomes used storage. */
export function commitUploadReservationStatement(db: ShardDb, uploadId: string, fromStates: readonly UploadState[]) {
  return db
    .update(owners)
    .set({
      storageReserved: sql`MAX(0, ${owners.storageReserved} - (${heldBytes(db, uploadId)}))`,
      storageUsed: sql`${owners.storageUsed} + (${heldBytes(db, uploadId)})`,
    })
    .where(eq(owners.userId, sql`(${holder(db, uploadId, fromStates)})`));
}

/** Abort, failed verification, expiry: the upload's reservation is given back. */
export function releaseUploadReservationStatement(db: ShardDb, uploadId: string, fromStates: readonly UploadState[]) {
  return db
    .update(owners)
    .set({ storageReserved: sql`MAX(0, ${owners.storageReserved} - (${heldBytes(db, uploadId)}))` })
    .where(eq(owners.userId, sql`(${holder(db, uploadId, fromStates)})`));
}
