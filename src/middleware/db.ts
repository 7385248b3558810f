// The request's database handles, each over a D1 Sessions API session: reads that need no read-your-writes go to the
// nearest replica, a request carrying `x-d1-bookmark` reads at least that fresh, and requests that change things
// start at the primary so their checks see the latest state. `c.get("dbs")` hands out one handle per database, the
// directory or a shard, each its own session; `x-d1-bookmark` carries one bookmark per database
// (docs/api-conventions.md, docs/sharding.md).
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../platform/http/env";
import { database0, laterBookmark, shardHandle, type Database0, type RequestDbs, type ShardDb } from "../platform/data/db";
import { formatBookmarks, parseBookmarks } from "../platform/data/bookmarks";
import { shardBinding, shardCount, shardOfIdIn } from "../platform/data/shards";
import { routedShard } from "../platform/data/moved-ids";
import type { RouteMatcher } from "../platform/http/route-traits";

export const BOOKMARK_HEADER = "x-d1-bookmark";


/** Reads by nature: the method changes nothing (byte links, public pages, API GETs). */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/**
 * Read at the primary although their method reads: the web app's own pages (they follow a form post with a redirect
 * that carries no bookmark), and the API routes that declare READS_PRIMARY (tus's HEAD and status: tus clients send
 * no bookmark, and a HEAD must see the offset, the creation and the termination just before it).
 */
const OWNER_PAGES = /^\/(app(\/|$)|verify-email)/;

function openSession(d1: D1Database, bookmark: string | undefined, method: string, path: string, readsPrimary: RouteMatcher): D1DatabaseSession {
  if (bookmark) {
    try {
      return d1.withSession(bookmark);
    } catch {
      // an unknown or expired bookmark: fall through to the method's default
    }
  }
  const primary = !READ_METHODS.has(method) || OWNER_PAGES.test(path) || readsPrimary(method, path);
  return d1.withSession(primary ? "first-primary" : "first-unconstrained");
}

declare module "hono" {
  interface ContextVariableMap {
    /** Bookmarks of D1 reads, by database, that an answer was decided from outside the sessions (edge-cached records). */
    recordBookmarks?: Map<number, string>;
  }
}

/**
 * The request's handles, made on first call; no session is opened until a handle is asked for. Byte links are
 * mounted ahead of dbHandle() (app.ts) and ask for one only when they must read D1: a cache hit opens no
 * session at all.
 */
export function requestDbs(c: Context<AppEnv>, readsPrimary: RouteMatcher = () => false): RequestDbs {
  const made = c.get("dbs") as RequestDbs | undefined;
  if (made) return made;
  const databases = shardCount(c.env);
  const sent = parseBookmarks(c.req.header(BOOKMARK_HEADER), databases);
  const sessions = new Map<number, D1DatabaseSession>();
  const session = (n: number) => {
    let s = sessions.get(n);
    if (!s) sessions.set(n, (s = openSession(shardBinding(c.env, n), sent.get(n), c.req.method, c.req.path, readsPrimary)));
    return s;
  };
  let db0: Database0 | undefined;
  const open = () => (db0 ??= database0(session(0)));
  const shards = new Map<number, ShardDb>();
  // One handle per id named, so that once a lookup followed the id to the shard its owner moved to, every later
  // use of the id in this request reads there too (platform/data/moved-ids.ts).
  const byId = new Map<string, ShardDb>();
  const dbs: RequestDbs = {
    directory: () => open().directory,
    shard: (n) => {
      if (n === 0) return open().shard;
      let handle = shards.get(n);
      if (!handle) shards.set(n, (handle = shardHandle(session(n), n))); // throws for a shard this deployment lacks
      return handle;
    },
    shardOf: (prefix, id) => {
      let handle = byId.get(id);
      if (!handle) byId.set(id, (handle = routedShard(dbs.shard, shardOfIdIn(c.env, prefix, id))));
      return handle;
    },
    directoryAndShard: (n) => ({ directory: dbs.directory(), shard: dbs.shard(n) }),
    directoryAndShards: () => ({ directory: dbs.directory(), shard: (n) => dbs.shard(n) }),
    bookmark: () => {
      const known = new Map<number, string | undefined>(sent);
      for (const [n, s] of sessions) known.set(n, laterBookmark(known.get(n), s.getBookmark()));
      for (const [n, bm] of c.get("recordBookmarks") ?? []) known.set(n, laterBookmark(known.get(n), bm));
      return formatBookmarks(known);
    },
  };
  c.set("dbs", dbs);
  return dbs;
}

/**
 * The answer was decided from data of database `db` read at `bookmark` (an edge-cached record's read of that
 * database's primary): the response's bookmark for it is then at least that, so a client that sends it back
 * reads no older state than it saw.
 */
export function noteBookmark(c: Context<AppEnv>, bookmark: string | undefined, db = 0): void {
  if (!bookmark) return;
  const known = c.get("recordBookmarks") ?? new Map<number, string>();
  known.set(db, laterBookmark(known.get(db), bookmark)!);
  c.set("recordBookmarks", known);
}

/** `readsPrimary`: the API routes that read at the primary whatever their method (app.ts: those that declare it). */
export const dbHandle = (readsPrimary?: RouteMatcher) =>
  createMiddleware<AppEnv>(async (c, next) => {
    // Sessions open on first use (an answer from edge records opens none); a request that reads nothing still
    // sends back the client's own bookmarks.
    const dbs = requestDbs(c, readsPrimary);
    await next();
    const bookmark = dbs.bookmark();
    if (bookmark && c.req.path.startsWith("/api/")) c.res.headers.set(BOOKMARK_HEADER, bookmark);
  });
