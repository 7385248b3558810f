// Ids of owner data (files, uploads, albums) name the shard that holds them, so a link finds its database with no
// lookup (docs/sharding.md). The format stays decisions.md's: a prefix and 21 URL-safe characters. The first
// character is the shard's symbol; the last two are a check over the 19 before them. An id whose check does not
// hold was made before shards existed, and lives on shard 0. A random old id passes the check 1 time in 4,096;
// `shardsToTry` then names shard 0 after its decoded shard, so every old link still resolves.
import { URL_SAFE, isId, randomId, type IdPrefix } from "./ids";

/** The prefixes whose ids name a shard: the owner data a shard holds. */
export type ShardedPrefix = Extract<IdPrefix, "file" | "upl" | "alb">;

/** One symbol of the id alphabet per shard. */
export const MAX_SHARDS = URL_SAFE.length;

const BODY = 21;
const CHECKED = BODY - 2;

/** 12 bits of FNV-1a over the first 19 characters, as two id symbols. */
function checkSymbols(head: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < head.length; i++) {
    h ^= head.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h = (h ^ (h >>> 16)) >>> 0;
  return URL_SAFE[h & 63] + URL_SAFE[(h >>> 6) & 63];
}

/** A new id of owner data that lives on `shard`. */
export function newShardedId(prefix: ShardedPrefix, shard: number): string {
  return shardedId(prefix, shard, randomId(CHECKED - 1));
}

/** The id on `shard` whose 18 characters after the shard's symbol are `middle` (tests give ids an order). */
export function shardedId(prefix: ShardedPrefix, shard: number, middle: string): string {
  if (!Number.isInteger(shard) || shard < 0 || shard >= MAX_SHARDS) throw new RangeError(`no shard ${shard}`);
  if (middle.length !== CHECKED - 1) throw new RangeError(`an id's middle is ${CHECKED - 1} characters`);
  const head = URL_SAFE[shard] + middle;
  return `${prefix}_${head}${checkSymbols(head)}`;
}

/**
 * Where an id's row lives: `shard` from a marked id, or 0 for an id made before shards (`legacy`). Undefined for
 * a string that is not an id of `prefix` at all.
 */
export function shardOfId(prefix: ShardedPrefix, id: string): { shard: number; legacy: boolean } | undefined {
  if (!isId(prefix, id)) return undefined;
  const body = id.slice(prefix.length + 1);
  const head = body.slice(0, CHECKED);
  if (body.slice(CHECKED) !== checkSymbols(head)) return { shard: 0, legacy: true };
  return { shard: URL_SAFE.indexOf(head[0]), legacy: false };
}

/**
 * The shards to read, in order, for an id: its own, then shard 0 when the id might be an old one that passes the
 * check by chance (`legacyIds`: the service was migrated from one database) and its own shard is not 0. A
 * shard beyond `shardCount` is no shard: an id naming one is not ours, and reads nothing.
 */
export function shardsToTry(prefix: ShardedPrefix, id: string, shardCount: number, legacyIds: boolean): number[] {
  const found = shardOfId(prefix, id);
  if (!found) return [];
  if (found.legacy) return [0];
  const own = found.shard < shardCount ? [found.shard] : [];
  return legacyIds && found.shard !== 0 ? [...own, 0] : own;
}
