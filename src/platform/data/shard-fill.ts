// How full each shard is (directory table shard_fill): measured by the cron from D1's own figure (a query's
// `meta.size_after`, the database's size in bytes), read by signup's placement (platform/data/placement.ts).
import { shardFill } from "../../db/directory-schema";
import { directoryDb, runBatch, shardDb, type DirectoryDb } from "./db";
import { allShards } from "./shards";

/** Bytes per measured shard. */
export async function readShardFill(db: DirectoryDb): Promise<Map<number, number>> {
  const rows = await db.select({ shard: shardFill.shard, bytes: shardFill.bytes }).from(shardFill).all();
  return new Map(rows.map((r) => [r.shard, r.bytes]));
}

/** Measures every shard (one query each, concurrently) and records the sizes (absolute: a re-run writes the same). */
export async function measureShards(env: Pick<Env, "DB">, now: number): Promise<Map<number, number>> {
  const sizes = await Promise.all(
    allShards(env).map(async (n) => {
      const res = await shardDb(env, n).$client.prepare("SELECT 1").run();
      return [n, res.meta.size_after ?? 0] as const;
    }),
  );
  const db = directoryDb(env);
  const at = new Date(now);
  await runBatch(
    db,
    sizes.map(([shard, bytes]) =>
      db.insert(shardFill).values({ shard, bytes, measuredAt: at }).onConflictDoUpdate({ target: shardFill.shard, set: { bytes, measuredAt: at } }),
    ),
  );
  return new Map(sizes);
}
