// Ids of a moved owner (docs/sharding.md § Moving an owner). Every lookup of a file, album or upload by id
// resolves it here, one id (`lookupFollowing` through a routed handle) or many (`locateRows`), by the same rule
// (`nextShard`): the shard the id names; on a miss, that shard's moved_files; then, for an id from before shards,
// shard 0. A routed handle keeps pointing where its id was found, so every later query through it goes there.
import { eq, inArray } from "drizzle-orm";
import { createDb, shardHandle, ShardClient, type ShardDb } from "./db";
import { shardBinding, shardCount, shardOfIdIn, type D1Env } from "./shards";
import { movedFiles, owners } from "../../db/schema";
import { ApiError } from "../errors/errors";
import { SHARD_MOVE } from "../../config";
import type { ShardedPrefix } from "./shard-ids";

/**
 * Where to look next for an id that `shard` lacks: the shard its moved_files row names, else shard 0 once (an id
 * from before shards whose check characters pass by chance, 1 in 4,096, names a shard it is not on), else nowhere.
 */
export function nextShard(shard: number, movedTo: number | undefined, triedShard0: boolean): number | undefined {
  if (movedTo !== undefined) return movedTo !== shard ? movedTo : undefined;
  return shard !== 0 && !triedShard0 ? 0 : undefined;
}

/** A routed handle's client: the shard it reads now, and the way to point it at another (a shard's handle). */
class RoutedShardClient extends ShardClient {
  triedShard0: boolean;
  constructor(
    private readonly open: (shard: number) => ShardDb,
    shard: number,
  ) {
    super(() => open(shard).$client.d1, shard); // opened by the first query (an edge-record answer runs none)
    this.triedShard0 = shard === 0;
  }
  /** Throws for a shard this deployment does not have, and then still points where it did. */
  point(shard: number): void {
    this.moveTo(this.open(shard).$client.d1, shard);
    if (shard === 0) this.triedShard0 = true;
  }
}

/**
 * A handle on shard `shard` that can follow a moved id to another shard (`followMoved`): `open(n)` gives the
 * handle it then reads through (the request's session on shard n, or its primary).
 */
export function routedShard(open: (shard: number) => ShardDb, shard: number): ShardDb {
  return createDb(new RoutedShardClient(open, shard)) as ShardDb;
}

/** A routed handle on the primary of the shard an id names: for jobs and edge records, outside a request. */
export function shardDbOf(env: D1Env, prefix: ShardedPrefix, id: string): ShardDb {
  return routedShard((n) => shardHandle(shardBinding(env, n), n), shardOfIdIn(env, prefix, id));
}

/**
 * Points a routed handle at the shard an id was last found on (an edge-cached record says so), so that what the
 * request reads next through it (a file's duplicates) reads there without a lookup. No-op for other handles.
 */
export function pointAt(db: ShardDb, shard: number | undefined): void {
  const client = db.$client;
  if (client instanceof RoutedShardClient && shard !== undefined && shard !== client.shard) {
    try {
      client.point(shard);
    } catch {
      // a shard this deployment no longer has: stay where the id points
    }
  }
}

/**
 * After a lookup of `id` missed on `db`: reads the shard's moved_files and, when the rule says to look elsewhere
 * and `db` can follow (a routed handle), points `db` there. True when the lookup should be made again.
 */
export async function followMoved(db: ShardDb, id: string): Promise<boolean> {
  const client = db.$client;
  if (!(client instanceof RoutedShardClient)) return false;
  const row = await db.select({ shard: movedFiles.shard }).from(movedFiles).where(eq(movedFiles.id, id)).get();
  const next = nextShard(client.shard, row?.shard, client.triedShard0);
  if (next === undefined) return false;
  try {
    client.point(next);
  } catch {
    return false; // a shard this deployment no longer has: the row is not found
  }
  return true;
}

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

/** D1 binds at most 100 parameters a statement. */
const IDS_PER_READ = 90;

/**
 * Many ids resolved at once by the rule of `nextShard`: `load(db, ids)` reads the rows of some ids on one shard
 * (at most 90 at a time), and each id's row comes back with the shard it was found on. Ids found nowhere are
 * absent. One query per shard per hop (a hop only for ids that missed), the shards of a hop concurrently.
 */
export async function locateRows<R extends { id: string }>(
  env: D1Env,
  open: (shard: number) => ShardDb,
  prefix: ShardedPrefix,
  ids: readonly string[],
  load: (db: ShardDb, ids: string[]) => Promise<R[]>,
): Promise<Map<string, { shard: number; row: R }>> {
  const found = new Map<string, { shard: number; row: R }>();
  const triedShard0 = new Set<string>();
  let pending = new Map<number, string[]>();
  for (const id of new Set(ids)) push(pending, shardOfIdIn(env, prefix, id), id);
  for (let hop = 0; pending.size > 0 && hop <= SHARD_MOVE.maxHops + 1; hop++) {
    const next = new Map<number, string[]>();
    await Promise.all(
      [...pending].map(async ([shard, ofShard]) => {
        const db = open(shard);
        for (let i = 0; i < ofShard.length; i += IDS_PER_READ) {
          const chunk = ofShard.slice(i, i + IDS_PER_READ);
          for (const row of await load(db, chunk)) found.set(row.id, { shard, row });
          const missing = chunk.filter((id) => !found.has(id));
          if (missing.length === 0) continue;
          const moved = new Map((await db.select({ id: movedFiles.id, shard: movedFiles.shard }).from(movedFiles).where(inArray(movedFiles.id, missing))).map((r) => [r.id, r.shard]));
          for (const id of missing) {
            if (shard === 0) triedShard0.add(id);
            const to = nextShard(shard, moved.get(id), triedShard0.has(id));
            if (to !== undefined && to < shardCount(env)) push(next, to, id);
          }
        }
      }),
    );
    pending = next;
  }
  return found;
}

function push(map: Map<number, string[]>, shard: number, id: string) {
  const list = map.get(shard);
  if (list) list.push(id);
  else map.set(shard, [id]);
}

/** Of `ids` missing on `db`'s shard, those whose owner moved on, and the shard each now lives on (at most 90 ids). */
export async function movedShards(db: ShardDb, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: movedFiles.id, shard: movedFiles.shard }).from(movedFiles).where(inArray(movedFiles.id, ids));
  return new Map(rows.filter((r) => r.shard !== db.$client.shard).map((r) => [r.id, r.shard]));
}

/** Where an owner's rows live (`shard`) and the shard they are being moved to, if so (owners.moved_to). */
export type OwnerShards = { shard: number; movedTo: number | null | undefined };

/**
 * The handles a takedown or an owner-state change writes through: the owner's shard first (its `changes` say what
 * the write did) and, while the owner moves, the target too. A write made only where the row was read could be lost
 * with the old shard's copy; absolute writes on both hold wherever the row ends (docs/sharding.md § Moving an owner).
 */
export function writeShards(open: { shard(n: number): ShardDb }, where: OwnerShards): ShardDb[] {
  const own = open.shard(where.shard);
  const to = where.movedTo;
  return to === null || to === undefined || to === where.shard ? [own] : [own, open.shard(to)];
}

/** writeShards for an owner known by id, on the shard the directory places them: one read of their fence. */
export async function ownerWriteShards(open: { shard(n: number): ShardDb }, shard: number, userId: string): Promise<ShardDb[]> {
  const row = await open.shard(shard).select({ movedTo: owners.movedTo }).from(owners).where(eq(owners.userId, userId)).get();
  return writeShards(open, { shard, movedTo: row?.movedTo });
}

/** The owner's data is moving to another shard: their changes are refused until it is done. */
export const ownerMoving = () =>
  new ApiError("owner_moving", "Your files and albums are being moved to another database; try again shortly", { retryAfter: SHARD_MOVE.retryAfterSeconds });
