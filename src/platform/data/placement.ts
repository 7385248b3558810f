// Where a new owner's data lives (docs/sharding.md § Placement): one of the shards open to new owners
// (SHARDS_OPEN; empty: every shard), in the signer's region when a shard carries one (SHARD_REGIONS: D1 location
// hints per shard, matched against the request's continent), the least full by the cron's last measure. Shards
// not measured yet (a new deployment, a shard just added) count as empty; among equals, the user id's hash
// decides, so owners spread evenly until the first measure. Anonymous uploads pick by their new id instead.
import { config } from "../../config/env";
import { allShards } from "./shards";

type PlacementEnv = Env;

/** D1 location hints near each continent (request.cf.continent), the nearest first. */
const HINTS_NEAR: Record<string, string[]> = {
  NA: ["wnam", "enam"],
  SA: ["enam", "wnam"],
  EU: ["weur", "eeur"],
  AF: ["weur", "eeur"],
  AS: ["apac", "oc"],
  OC: ["oc", "apac"],
};

/** The shards open to new owners: SHARDS_OPEN's numbers that exist, or every shard when it names none. */
export function openShards(env: PlacementEnv): number[] {
  const all = allShards(env);
  const named = config(env).shardsOpen.filter((n) => all.includes(n));
  return named.length ? [...named] : all;
}

/** The open shards in the caller's region, or all open shards when none is there (or the continent is unknown). */
export function candidateShards(env: PlacementEnv, continent: string | undefined): number[] {
  const open = openShards(env);
  const near = continent ? HINTS_NEAR[continent] : undefined;
  if (!near) return open;
  const hints = config(env).shardRegions;
  for (const hint of near) {
    const here = open.filter((n) => hints.get(n) === hint);
    if (here.length) return here;
  }
  return open;
}

/** 32 bits of FNV-1a: spreads ids evenly over equal shards. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The shard for a new owner `userId`: the least full candidate (`fill`: bytes per shard as last measured; an
 * unmeasured shard counts as empty), the id's hash choosing among equals.
 */
export function placeOwner(env: PlacementEnv, continent: string | undefined, fill: ReadonlyMap<number, number>, userId: string): number {
  const candidates = candidateShards(env, continent);
  const least = Math.min(...candidates.map((n) => fill.get(n) ?? 0));
  const equal = candidates.filter((n) => (fill.get(n) ?? 0) === least);
  return equal[hash(userId) % equal.length];
}

/** The shard for an anonymous upload (no account to place): by the hash of a random seed, among the open shards. */
export function placeAnonymous(env: PlacementEnv, seed: string): number {
  const open = openShards(env);
  return open[hash(seed) % open.length];
}
