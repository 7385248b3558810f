// What "a live file" means in SQL, for every query that lists or counts files (in its own file: album membership
// and the file queries both need it, and each other's module would make a circle).
import { and, gt, isNull, or, sql, type SQL } from "drizzle-orm";
import { files } from "../db/schema";

/**
 * Finalized and not deleted, banned, hidden, quarantined, purged or expired (by `now`).
 * The unary `+` keeps SQLite from driving a query by files_state_created or files_deleted (which span every
 * user's files): these are filters on rows already found by id or by a (user_id, ...) index.
 */
export function liveFileCondition(now: number): SQL {
  return and(
    sql`+${files.state} = 'finalized'`,
    sql`+${files.deletedAt} IS NULL`,
    isNull(files.bannedAt),
    isNull(files.hiddenAt),
    isNull(files.quarantinedAt),
    isNull(files.purgedAt),
    or(isNull(files.expiresAt), gt(files.expiresAt, new Date(now))),
  )!;
}
