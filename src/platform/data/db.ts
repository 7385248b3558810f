import { drizzle } from "drizzle-orm/d1";
import { shardBinding, type D1Env } from "./shards";
import type { ShardedPrefix } from "./shard-ids";

// Handles say which database they read (docs/sharding.md): a query on the directory's tables
// (src/db/directory-schema.ts) takes a DirectoryDb, a query on a shard's (src/db/shard-schema.ts) a ShardDb, so
// the compiler finds every place that mixes them. The brands exist only in types; the casts to them are in the
// constructors below and nowhere else.
declare const directoryBrand: unique symbol;
declare const shardBrand: unique symbol;

/** A drizzle handle over D1, of no database in particular: what generic helpers (runBatch) take. */
export type Db = ReturnType<typeof createDb>;
/** A handle on the directory (database DB): users, credentials, mail, reports, the blocklist, audit, billing. */
export type DirectoryDb = Db & { readonly [directoryBrand]: true };
/**
 * A handle on one shard: its owners' files, uploads, albums and near-duplicate indexes. It knows which shard it
 * is (`$client.shard`), so what it creates can carry that shard in its id (platform/data/shard-ids.ts).
 */
export type ShardDb = Db & { readonly [shardBrand]: true; readonly $client: ShardClient };

/** Both kinds of handle, for a function that reads each database in queries of its own (never one batch). */
export type DirectoryAndShard = { directory: DirectoryDb; shard: ShardDb };

/** The directory's handle and every shard's, for a function over owners on any shard (admin lists, moderation). */
export type DirectoryAndShards = { directory: DirectoryDb; shard(shard: number): ShardDb };

/** What a handle reads through: a binding (D1's primary) or one of its read-replication sessions. */
export type D1Client = D1Database | D1DatabaseSession;

/**
 * What a shard's handle reads through: a binding or session, and which shard that is. The number lives on the
 * client drizzle is given and is read back through drizzle's public `$client`, so the handle is never patched.
 * drizzle (and runBatch) call only `prepare` and `batch`.
 */
export class ShardClient {
  #d1: D1Client | (() => D1Client);
  #shard: number;
  /** `d1` may be given as a function, called on first use: a handle that runs no query opens no session. */
  constructor(d1: D1Client | (() => D1Client), shard: number) {
    this.#d1 = d1;
    this.#shard = shard;
  }
  get d1(): D1Client {
    if (typeof this.#d1 === "function") this.#d1 = this.#d1();
    return this.#d1;
  }
  get shard(): number {
    return this.#shard;
  }
  prepare(query: string): D1PreparedStatement {
    return this.d1.prepare(query);
  }
  batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    return this.d1.batch<T>(statements);
  }
  /** From now on, reads through another shard's binding or session: only a routed handle moves (moved-ids.ts). */
  protected moveTo(d1: D1Client, shard: number): void {
    this.#d1 = d1;
    this.#shard = shard;
  }
}

/**
 * A plain drizzle handle over a D1 binding or session (drizzle only calls `prepare` and `batch`, which a session
 * has too). Features never take one, only the branded handles; tests use it for their own raw reads.
 */
export function createDb(d1: D1Client | ShardClient) {
  // No `schema`: nothing uses drizzle's relational `db.query` API, and with a schema drizzle rebuilds its
  // relational config on every handle, i.e. on every request (it showed in the serving profile).
  return drizzle(d1 as D1Database);
}

/** Database DB's handles over `d1`, one for each thing DB is: the directory and shard 0 (made on first use). */
export type Database0 = { directory: DirectoryDb; readonly shard: ShardDb };

export function database0(d1: D1Client): Database0 {
  let shard: ShardDb | undefined;
  return {
    directory: createDb(d1) as DirectoryDb,
    get shard() {
      return (shard ??= shardHandle(d1, 0));
    },
  };
}

/** The directory's primary (no session): for jobs, Durable Objects, crons and reads that must see the latest. */
export const directoryDb = (env: Pick<Env, "DB">): DirectoryDb => database0(env.DB).directory;

/** A shard's primary: shard 0 is database DB, shard n the binding SHARD_n (platform/data/shards.ts). */
export function shardDb(env: D1Env, shard: number): ShardDb {
  return shard === 0 ? database0(env.DB).shard : shardHandle(shardBinding(env, shard), shard);
}

/** Every database's primary: the directory's handle and each shard's (jobs and crons over owners of any shard). */
export const primaries = (env: D1Env): DirectoryAndShards => ({ directory: directoryDb(env), shard: (n) => shardDb(env, n) });

/** A handle on shard `shard`, a database other than DB (its binding or one of its sessions). */
export const shardHandle = (d1: D1Client, shard: number): ShardDb => createDb(new ShardClient(d1, shard)) as ShardDb;


/** A request's handles, per database, each over that database's session, opened on first use (middleware/db.ts). */
export type RequestDbs = {
  directory(): DirectoryDb;
  shard(shard: number): ShardDb;
  /** The shard that holds the owner data with this id (platform/data/shard-ids.ts): no lookup. */
  shardOf(prefix: ShardedPrefix, id: string): ShardDb;
  /** The directory's handle and a shard's, for a function that reads each in queries of its own. */
  directoryAndShard(shard: number): DirectoryAndShard;
  /** The directory's handle and every shard's. */
  directoryAndShards(): DirectoryAndShards;
  /**
   * x-d1-bookmark's value: for each database, the later of the client's bookmark and the session's, when either
   * is known (platform/data/bookmarks.ts: a bare bookmark when database 0's is the only one).
   */
  bookmark(): string | undefined;
};

/** A statement drizzle built: a query builder, or `db.run(sql`...`)` for SQL its builders cannot express. */
export type Statement = { toSQL(): { sql: string; params: unknown[] } } | { getQuery(): { sql: string; params: unknown[] } };

/**
 * Runs `statements` as one D1 batch (one round trip, one transaction) on the handle's own client, the binding or the
 * request's session; every statement must be built for that database. Returns D1's raw results with their `meta`.
 * Not `db.batch`: drizzle 0.45's cannot run raw `sql` statements that bind parameters, and drops the meta.
 */
export async function runBatch<T = Record<string, unknown>>(db: Db, statements: readonly Statement[]): Promise<D1Result<T>[]> {
  if (statements.length === 0) return [];
  const d1 = db.$client;
  return d1.batch<T>(
    statements.map((s) => {
      const { sql, params } = "toSQL" in s ? s.toSQL() : s.getQuery();
      return d1.prepare(sql).bind(...params);
    }),
  );
}

/**
 * The later of two D1 bookmarks, of those given. Bookmarks order as strings: workerd's own D1 session keeps the
 * latest one it has seen by the same comparison (`localeCompare`), so this follows it.
 */
export function laterBookmark(a: string | null | undefined, b: string | null | undefined): string | undefined {
  if (!a) return b ?? undefined;
  if (!b) return a;
  return a.localeCompare(b) < 0 ? b : a;
}
