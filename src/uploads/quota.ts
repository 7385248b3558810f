// Storage quota, money-safe under concurrency. D1 has no interactive transactions, so every change is a
// single conditional UPDATE whose `meta.changes` says whether it applied:
//   reserve:  used + reserved + n <= quota   (presign / multipart init)
//   commit:   reserved -= n, used += n        (finalize)
//   release:  reserved -= n                   (abort, failed verification, expiry)
//   free:     used -= n                       (purge of a deleted or expired file)
//
// The *Statement helpers return drizzle update builders: `await` one to run it alone, or put it in a
// `runBatch(db, [...])` with the state change it belongs to (test/uploads/quota.test.ts runs each inside one).
// The quota columns are in no edge-cached principal record (auth/principal-records.ts): changing them needs no
// invalidation.
import { and, eq, gt, inArray, sql } from "drizzle-orm";
import type { CrossDb, DirectoryDb, ShardDb } from "../platform/db";
import { uploads, users } from "../db/schema";
import { PLAN_LIMITS, type Plan } from "../config";

/** Reserves `bytes` of the user's plan quota; false when it would not fit. */
export async function reserveQuota(db: DirectoryDb, userId: string, plan: Plan, bytes: number): Promise<boolean> {
  const quota = PLAN_LIMITS[plan].storageQuotaBytes;
  if (quota === null) return true;
  const res = await db
    .update(users)
    .set({ storageReserved: sql`${users.storageReserved} + ${bytes}` })
    .where(and(eq(users.id, userId), sql`${users.storageUsed} + ${users.storageReserved} + ${bytes} <= ${quota}`))
    .run();
  return res.meta.changes === 1;
}

/** Turns a reservation into used storage (finalize). */
export function commitQuotaStatement(db: DirectoryDb, userId: string, bytes: number) {
  return db
    .update(users)
    .set({ storageReserved: sql`MAX(0, ${users.storageReserved} - ${bytes})`, storageUsed: sql`${users.storageUsed} + ${bytes}` })
    .where(eq(users.id, userId));
}

/** Gives a reservation back (abort, failed verification, expiry). */
export function releaseReservationStatement(db: DirectoryDb, userId: string, bytes: number) {
  return db
    .update(users)
    .set({ storageReserved: sql`MAX(0, ${users.storageReserved} - ${bytes})` })
    .where(eq(users.id, userId));
}

/** Frees used storage once a file's objects are purged. */
export function freeStorageStatement(db: DirectoryDb, userId: string, bytes: number) {
  return db
    .update(users)
    .set({ storageUsed: sql`MAX(0, ${users.storageUsed} - ${bytes})` })
    .where(eq(users.id, userId));
}

// ---------------------------------------------------------------------------------------------------------
// Settling an upload's reservation. The amount held is `uploads.reserved_bytes`, so the quota move is tied to
// the upload row: these statements only act while the upload is in one of `fromStates` and still holds
// bytes, and the caller's batch must then move the upload out of `fromStates` and zero `reserved_bytes`
// (uploads/records.ts transitionUpload). D1 runs a batch as one transaction, so a repeated or concurrent
// settle (double finalize, abort racing cleanup) moves nothing twice.

type UploadState = (typeof uploads.$inferSelect)["state"];

/** The user holding the upload's reservation, while the upload is in `fromStates` (else no row matches). */
const holder = (db: ShardDb, uploadId: string, fromStates: readonly UploadState[]) =>
  db
    .select({ userId: uploads.userId })
    .from(uploads)
    .where(and(eq(uploads.id, uploadId), gt(uploads.reservedBytes, 0), inArray(uploads.state, [...fromStates])));

const heldBytes = (db: ShardDb, uploadId: string) => db.select({ bytes: uploads.reservedBytes }).from(uploads).where(eq(uploads.id, uploadId));

/** Finalize: the upload's reservation becomes used storage. */
export function commitUploadReservationStatement(db: CrossDb, uploadId: string, fromStates: readonly UploadState[]) {
  return db
    .update(users)
    .set({
      storageReserved: sql`MAX(0, ${users.storageReserved} - (${heldBytes(db, uploadId)}))`,
      storageUsed: sql`${users.storageUsed} + (${heldBytes(db, uploadId)})`,
    })
    .where(eq(users.id, sql`(${holder(db, uploadId, fromStates)})`));
}

/** Abort, failed verification, expiry: the upload's reservation is given back. */
export function releaseUploadReservationStatement(db: CrossDb, uploadId: string, fromStates: readonly UploadState[]) {
  return db
    .update(users)
    .set({ storageReserved: sql`MAX(0, ${users.storageReserved} - (${heldBytes(db, uploadId)}))` })
    .where(eq(users.id, sql`(${holder(db, uploadId, fromStates)})`));
}
