// An owner's state (ban, deletion) on its shard, a copy of the directory's, decided from in the same query as the
// file (docs/sharding.md § owners), and forgetting the records that carry it when it changes: the owner's first
// files by owner_ordinal, at most three keys each (access.ts, carriesOwnerState).
import { and, eq, lte, sql, type SQL } from "drizzle-orm";
import { files } from "../db/schema";
import { shardDb, type ShardDb, type Statement } from "../platform/data/db";
import { allShards } from "../platform/data/shards";
import { SERVING } from "../config";
import type { EdgeEnv } from "../platform/edge/edge-records";
import { forgetFileAccess } from "./edge-cache";

/** A change of an owner's state: banned at a time, unbanned (null), or its account deleted. */
export type OwnerStateChange = { bannedAt: Date | null } | { deletedAt: Date };

export type OwnerStateWrite = {
  /** Keep a time already set (a ban of a banned owner keeps the first ban's time, as the directory's write does). */
  keepFirst?: boolean;
  /** The write happens only if this holds (a moderator's claim, in the same batch). */
  onlyIf?: SQL;
};

/**
 * The owner's state on its shard: absolute, so the same write again changes nothing (a retry is safe). The row
 * is made when the owner has none yet (no upload: its albums must still follow the ban).
 */
export function ownerStateStatement(db: ShardDb, userId: string, change: OwnerStateChange, write: OwnerStateWrite = {}): Statement {
  const [column, at] = "bannedAt" in change ? ["banned_at", change.bannedAt] : ["deleted_at", change.deletedAt];
  const name = sql.raw(column);
  const value = write.keepFirst ? sql.raw(`COALESCE(owners.${column}, excluded.${column})`) : sql.raw(`excluded.${column}`);
  // `WHERE`, even when always true: SQLite parses an upsert after an INSERT ... SELECT only after one.
  return db.run(sql`INSERT INTO owners (user_id, ${name}) SELECT ${userId}, ${at?.getTime() ?? null} WHERE ${write.onlyIf ?? sql`true`}
    ON CONFLICT (user_id) DO UPDATE SET ${name} = ${value}`);
}

/**
 * Forgets the records that carry the owner's state, here at once and (when configured) everywhere. Never throws:
 * the change is committed, and what follows must still happen. If D1 fails three times, the records it would have
 * named decide for at most their TTL (logged).
 */
export async function forgetOwnerState(env: EdgeEnv & Pick<Env, "DB">, userId: string): Promise<void> {
  let carried: { id: string }[] | undefined;
  for (let attempt = 1; attempt <= 3 && !carried; attempt++) {
    try {
      // The primary: a replica behind the change could miss a file just created, whose record a view then fills.
      // Every shard, concurrently: an owner's files are on its own shard, but this is not told which (a rare path).
      const found = await Promise.all(
        allShards(env).map((n) =>
          shardDb(env, n)
            .select({ id: files.id })
            .from(files)
            .where(and(eq(files.userId, userId), lte(files.ownerOrdinal, SERVING.ownerStateCarriedFiles)))
            .all(),
        ),
      );
      carried = found.flat();
    } catch (err) {
      if (attempt === 3) console.error(`owner ${userId}: the files carrying its state could not be listed; their records live out their TTL`, err);
    }
  }
  if (carried) await forgetFileAccess(env, carried.map((f) => f.id));
}
