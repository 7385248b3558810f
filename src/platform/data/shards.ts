// The deployment's databases (docs/sharding.md): DB, the directory and shard 0, and the shards SHARD_1,
// SHARD_2, ... that wrangler.toml binds, without gaps. The shard count is that list; nothing else names it.
import { MAX_SHARDS, shardOfId, type ShardedPrefix } from "./shard-ids";

/** What the database handles need of the environment: DB (the shard bindings are looked up by name). */
export type D1Env = Pick<Env, "DB">;

const BINDING_NAMES = Array.from({ length: MAX_SHARDS }, (_, n) => `SHARD_${n}`);

/** SHARD_n by name: wrangler's generated Env names only the shards of this checkout's wrangler.toml. */
const bindingNamed = (env: D1Env, n: number) => (env as unknown as Record<string, D1Database | undefined>)[BINDING_NAMES[n]];

/**
 * How many shards this deployment has: 1 (DB alone) plus each SHARD_n from 1 up to the first gap. Counted on
 * each call: a few property reads, no dearer than a cache keyed by the environment would be.
 */
export function shardCount(env: D1Env): number {
  let n = 1;
  while (n < MAX_SHARDS && bindingNamed(env, n)) n += 1;
  return n;
}

/** The binding of shard `shard`: DB for 0, else SHARD_n. A shard the deployment does not have throws. */
export function shardBinding(env: D1Env, shard: number): D1Database {
  if (shard === 0) return env.DB;
  const binding = Number.isInteger(shard) && shard > 0 ? bindingNamed(env, shard) : undefined;
  if (!binding) throw new RangeError(`no shard ${shard}: this deployment has ${shardCount(env)}`);
  return binding;
}

/** Every shard's number, 0 first. */
export const allShards = (env: D1Env): number[] => Array.from({ length: shardCount(env) }, (_, i) => i);

/**
 * The shard that holds the owner data `id` names: the shard its id carries, 0 for an id from before shards. An id
 * that names a shard this deployment does not have can only be an old id that passed the check by chance (or
 * none of ours): it is looked up on shard 0. docs/sharding.md § Ids carry their shard.
 */
export function shardOfIdIn(env: D1Env, prefix: ShardedPrefix, id: string): number {
  const found = shardOfId(prefix, id);
  return found && found.shard < shardCount(env) ? found.shard : 0;
}
