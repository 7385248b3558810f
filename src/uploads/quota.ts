// Storage quota, money-safe under concurrency. D1 has no interactive transactions, so every change is a
// single conditional UPDATE whose `meta.changes` says whether it applied:
//   reserve:  used + reserved + n <= quota   (presign / multipart init)
//   commit:   reserved -= n, used += n        (finalize)
//   release:  reserved -= n                   (abort, failed verification, expiry)
//   free:     used -= n                       (purge of a deleted or expired file)
import { sql } from "drizzle-orm";
import type { Db } from "../platform/db";
import { PLAN_LIMITS, type Plan } from "../config";

/** Reserves `bytes` of the user's plan quota; false when it would not fit. */
export async function reserveQuota(db: Db, userId: string, plan: Plan, bytes: number): Promise<boolean> {
  const quota = PLAN_LIMITS[plan].storageQuotaBytes;
  if (quota === null) return true;
  const res = await db.run(
    sql`UPDATE users SET storage_reserved = storage_reserved + ${bytes}
        WHERE id = ${userId} AND storage_used + storage_reserved + ${bytes} <= ${quota}`,
  );
  return res.meta.changes === 1;
}

/** Turns a reservation into used storage (finalize). */
export function commitQuotaStatement(db: Db, userId: string, bytes: number) {
  return db.run(
    sql`UPDATE users SET storage_reserved = MAX(0, storage_reserved - ${bytes}), storage_used = storage_used + ${bytes} WHERE id = ${userId}`,
  );
}

/** Gives a reservation back (abort, failed verification, expiry). */
export function releaseReservationStatement(db: Db, userId: string, bytes: number) {
  return db.run(sql`UPDATE users SET storage_reserved = MAX(0, storage_reserved - ${bytes}) WHERE id = ${userId}`);
}

/** Frees used storage once a file's objects are purged. */
export function freeStorageStatement(db: Db, userId: string, bytes: number) {
  return db.run(sql`UPDATE users SET storage_used = MAX(0, storage_used - ${bytes}) WHERE id = ${userId}`);
}
