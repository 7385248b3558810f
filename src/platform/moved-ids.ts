// Ids of a moved owner (docs/sharding.md § Moving an owner). An id names the shard it was made on, and keeps
// naming it after its owner moved: the old shard then keeps `moved_files(id, shard)`. A lookup by id reads the
// id's own shard as always; only when it misses there does it read moved_files (one more round trip, only on a
// miss) and follow it. The handle made for an id (`routedShard`) follows along: every later query through it,
// the writes included, goes to the shard that holds the row, so callers need not know a row moved.
import { eq, inArray } from "drizzle-orm";
import { createDb, shardHandle, type D1Client, type ShardDb } from "./db";
import { shardBinding, shardOfIdIn, type D1Env } from "./shards";
import { movedFiles } from "../db/schema";
import { ApiError } from "./errors";
import { SHARD_MOVE } from "../config";
import type { ShardedPrefix } from "./shard-ids";

/** The followers of routed handles: the one way a handle is told to read another shard. */
const followers = new WeakMap<object, (shard: number) => void>();

/**
 * A handle on shard `shard` that can follow a moved id to another shard (`followMoved`): `open(n)` gives the
 * handle it then reads through (the request's session on shard n, or its primary).
 */
export function routedShard(open: (shard: number) => ShardDb, shard: number): ShardDb {
  let current = open(shard);
  let currentShard = shard;
  const client = current.$client as D1Client;
  // drizzle and runBatch only call prepare and batch on the client: both go to the shard followed last.
  const forwarding = {
    prepare: (query: string) => (current.$client as D1Client).prepare(query),
    batch: (statements: D1PreparedStatement[]) => (current.$client as D1Client).batch(statements),
  } as unknown as typeof client;
  const db = Object.defineProperty(createDb(forwarding), "shardNumber", { get: () => currentShard, enumerable: true }) as ShardDb;
  followers.set(db, (n) => {
    current = open(n);
    currentShard = n;
  });
  return db;
}

/** A routed handle on the primary of the shard an id names: for jobs and edge records, outside a request. */
export function shardDbOf(env: D1Env, prefix: ShardedPrefix, id: string): ShardDb {
  return routedShard((n) => shardHandle(shardBinding(env, n), n), shardOfIdIn(env, prefix, id));
}

/**
 * After a lookup of `id` missed on `db`: reads the shard's moved_files and, when the id moved on and `db` can
 * follow (a routed handle), points `db` at the shard that holds it. True when the lookup should be made again.
 */
export async function followMoved(db: ShardDb, id: string): Promise<boolean> {
  const follow = followers.get(db);
  if (!follow) return false;
  const row = await db.select({ shard: movedFiles.shard }).from(movedFiles).where(eq(movedFiles.id, id)).get();
  let next = row && row.shard !== db.shardNumber ? row.shard : undefined;
  // An id from before shards whose last two characters pass the check by chance (1 in 4,096) names a shard it
  // is not on: such ids live on shard 0 (the database of the single-database service). Tried once per handle.
  if (next === undefined && !row && db.shardNumber !== 0 && !triedShard0.has(db)) next = 0;
  if (next === undefined) return false;
  if (next === 0) triedShard0.add(db);
  try {
    follow(next);
  } catch {
    return false; // a shard this deployment no longer has: the row is not found
  }
  return true;
}

/** Routed handles that already looked on shard 0 for an id from before shards. */
const triedShard0 = new WeakSet<object>();

/**
 * A lookup by id that follows a moved id: `load` on the id's shard, and on a miss through moved_files, at most
 * SHARD_MOVE.maxHops times (an owner moved on again).
 */
export async function lookupFollowing<T>(db: ShardDb, id: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
  for (let hop = 0; ; hop++) {
    const found = await load();
    if (found !== undefined || hop >= SHARD_MOVE.maxHops || !(await followMoved(db, id))) return found;
  }
}

/** Of `ids` missing on `db`'s shard, those whose owner moved on, and the shard each now lives on (at most 90 ids). */
export async function movedShards(db: ShardDb, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: movedFiles.id, shard: movedFiles.shard }).from(movedFiles).where(inArray(movedFiles.id, ids));
  return new Map(rows.filter((r) => r.shard !== db.shardNumber).map((r) => [r.id, r.shard]));
}

/** The owner's data is moving to another shard: their changes are refused until it is done. */
export const ownerMoving = () =>
  new ApiError("owner_moving", "Your files and albums are being moved to another database; try again shortly", { retryAfter: SHARD_MOVE.retryAfterSeconds });
