// Edge records: small facts kept in caches.default, per data centre, so a hot request decides without D1. Every
// kind is written, read and forgotten through this one layer: typed namespaces, one codec, a write-then-verify
// guard, one forget that deletes here and purges everywhere (docs/edge-records.md: why not KV, how stale).
import { config } from "../../config/env";
import { purgeGlobally } from "./global-purge";

/** The env the layer reads: CDN_URL (keys), ACCESS_RECORD_SECONDS, and the global purge's settings, through config(). */
export type EdgeEnv = Env;

/** ACCESS_RECORD_SECONDS: how long a record may decide; 0 turns records off (every request reads D1). */
export const recordSeconds = (env: Env): number => config(env).accessRecordSeconds;

export function edgeCache(): Cache | undefined {
  return typeof caches === "undefined" ? undefined : (caches as unknown as { default: Cache }).default;
}

/** The cache and the records' lifetime, or null when records are off or there is no cache. */
export function recordsOn(env: Env): { cache: Cache; seconds: number } | null {
  const seconds = recordSeconds(env);
  const cache = edgeCache();
  return seconds > 0 && cache ? { cache, seconds } : null;
}

/**
 * Every kind of edge-cached state and the prefix of its keys: the one table every key is built through, so no two
 * kinds can share a key. Byte entries and variants (serving/edge-cache.ts) are keyed `files/<id>/...`.
 */
export const EDGE_KINDS = {
  fileAccess: "access/files",
  ownerStates: "access/owners",
  fileBytes: "files",
  users: "principals/users",
  sessions: "principals/sessions",
  keys: "principals/keys",
} as const;
export type EdgeKind = keyof typeof EDGE_KINDS;

/** An internal key under the CDN origin (never a public address; rebuildable from the row it caches). */
export function edgeKey(env: Env, kind: EdgeKind, id: string): string {
  return `${config(env).cdnOrigin}/__edge-cache/${EDGE_KINDS[kind]}/${id}`;
}

// The codec: JSON in which a Date stays a Date ({"$date": epoch ms} on the wire). Bump VERSION when a
// record's shape changes: records written by the previous deploy are then misses, never misread.
const VERSION = 2;

export function encodeRecord(value: unknown): string {
  return JSON.stringify({ v: VERSION, value }, function (this: Record<string, unknown>, key, v) {
    const raw = this[key];
    if (!(raw instanceof Date)) return v;
    return Number.isFinite(raw.getTime()) ? { $date: raw.getTime() } : null; // an Invalid Date reads as "not set"
  });
}

// Decoded texts, per isolate: a hot record is the same text on every hit, and its reviver walk cost a tenth of a
// short link's CPU (bench/README.md, profile). Callers must not change what they get: it is shared.
const decoded = new Map<string, unknown>();
const DECODED_MAX = 512;
const DECODED_MAX_CHARS = 16_384;

export function decodeRecord<T>(text: string): T | undefined {
  const known = decoded.get(text);
  if (known !== undefined) return known as T;
  const value = parseRecord<T>(text);
  if (value !== undefined && text.length <= DECODED_MAX_CHARS) {
    if (decoded.size >= DECODED_MAX) decoded.clear();
    decoded.set(text, value);
  }
  return value;
}

function parseRecord<T>(text: string): T | undefined {
  try {
    const parsed = JSON.parse(text, (_k, v) =>
      v !== null && typeof v === "object" && typeof v.$date === "number" && Object.keys(v).length === 1 ? new Date(v.$date) : v,
    ) as { v?: number; value?: T };
    return parsed?.v === VERSION ? parsed.value : undefined;
  } catch {
    return undefined; // unreadable: the caller decides from D1
  }
}

/** A cached response, or undefined on a miss or any failure (the cache is an optimisation). */
export async function matchEntry(key: string): Promise<Response | undefined> {
  try {
    return (await edgeCache()?.match(key)) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The cached response under a kind's key (edgeKey), as matchEntry finds it. */
export const matchEdge = (env: Env, kind: EdgeKind, id: string) => matchEntry(edgeKey(env, kind, id));

/** Stores a response; a failure is logged, never thrown. */
export async function putEntry(key: string, response: Response): Promise<void> {
  try {
    await edgeCache()?.put(key, response);
  } catch (err) {
    console.error("edge cache put failed", err);
  }
}

export async function readRecord<T>(key: string): Promise<T | undefined> {
  const hit = await matchEntry(key);
  if (!hit) return undefined;
  try {
    return decodeRecord<T>(await hit.text());
  } catch {
    return undefined;
  }
}

export async function writeRecord(key: string, value: unknown, seconds: number): Promise<void> {
  const headers = { "content-type": "application/json", "cache-control": `public, max-age=${seconds}` };
  let body: string;
  try {
    body = encodeRecord(value);
  } catch (err) {
    console.error("edge record not encodable", err);
    return;
  }
  await putEntry(key, new Response(body, { headers }));
}

/** Deletes entries in this data centre only (a fill undoing its own write). */
export async function dropHere(keys: string[]): Promise<void> {
  const cache = edgeCache();
  if (cache) await Promise.all(keys.map((k) => cache.delete(k).catch(() => false)));
}

/** Deletes entries here at once and, when global purge is configured, in every data centre. */
export async function forget(env: EdgeEnv, keys: string[]): Promise<void> {
  await dropHere(keys);
  await purgeGlobally(config(env).globalPurge, keys);
}

/**
 * The race guard of every fill. A fill reads D1's primary, then writes; a change that lands in between
 * deletes before the write and so cannot see it. So: write, then ask `stale` (which re-reads the primary)
 * which of `keys` no longer match it, and delete those here. A check that fails keeps none of them.
 */
export async function writeThenVerify(keys: string[], write: () => Promise<unknown>, stale: () => Promise<string[]>): Promise<void> {
  await write();
  let drop: string[];
  try {
    drop = await stale();
  } catch {
    drop = keys; // not verified: not kept
  }
  if (drop.length > 0) await dropHere(drop);
}

/** A kind of record (EDGE_KINDS): its keys, read and written as `T` (Dates kept). */
export type Namespace<T> = {
  key(env: Env, id: string): string;
  read(env: Env, id: string): Promise<T | undefined>;
  write(env: Env, id: string, value: T, seconds: number): Promise<void>;
};

export function namespace<T>(kind: EdgeKind): Namespace<T> {
  const key = (env: Env, id: string) => edgeKey(env, kind, id);
  return {
    key,
    read: (env, id) => readRecord<T>(key(env, id)),
    write: (env, id, value, seconds) => writeRecord(key(env, id), value, seconds),
  };
}
