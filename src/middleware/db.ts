// The request's database handles, each over a D1 Sessions API session (read replication). Reads that need no
// read-your-writes go to the nearest replica ("first-unconstrained"); a request carrying the bookmark of
// an earlier response (`x-d1-bookmark`) reads at least that fresh; requests that change things start at the
// primary ("first-primary"), so their checks (quota, state transitions) see the latest state. Every API
// response carries the session's latest bookmark in `x-d1-bookmark` for the client's next request, or, when
// the answer was decided from an edge-cached record without a D1 query, the later of the session's (the
// client's own, if it sent one) and the record's (noteBookmark).
//
// `c.var.dbs` hands out a handle per database (docs/sharding.md): the directory, a shard, or (for the queries
// that still span both, CrossDb) database DB as both. There is one database today, DB, the directory and
// shard 0 alike: every handle is over its one session, so a request has one bookmark, sent bare, as before.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../platform/env";
import { database0, laterBookmark, shardBinding, type Database0, type RequestDbs } from "../platform/db";

export const BOOKMARK_HEADER = "x-d1-bookmark";

/** D1 bookmarks are short hex-and-dash strings; anything else is ignored rather than passed to D1. */
const BOOKMARK = /^[0-9a-f][0-9a-f-]{0,127}$/i;

/** Reads by nature: the method changes nothing (byte links, public pages, API GETs). */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** The web app's own pages follow a form post with a redirect that carries no bookmark: they read the primary. */
const OWNER_PAGES = /^\/(app(\/|$)|verify-email)/;

function openSession(d1: D1Database, bookmark: string | undefined, method: string, path: string): D1DatabaseSession {
  if (bookmark && BOOKMARK.test(bookmark)) {
    try {
      return d1.withSession(bookmark);
    } catch {
      // an unknown or expired bookmark: fall through to the method's default
    }
  }
  return d1.withSession(READ_METHODS.has(method) && !OWNER_PAGES.test(path) ? "first-unconstrained" : "first-primary");
}

declare module "hono" {
  interface ContextVariableMap {
    /** The bookmark of a D1 read that an answer was decided from outside the session (an edge-cached record). */
    recordBookmark?: string;
  }
}

/**
 * The request's handles, made on first call; no session is opened until a handle is asked for. Byte links are
 * mounted ahead of dbHandle() (app.ts) and ask for one only when they must read D1: a cache hit opens no
 * session at all.
 */
export function requestDbs(c: Context<AppEnv>): RequestDbs {
  const made = c.var.dbs as RequestDbs | undefined;
  if (made) return made;
  let session: D1DatabaseSession | undefined;
  let db0: Database0 | undefined;
  const open = () => (db0 ??= database0((session = openSession(c.env.DB, c.req.header(BOOKMARK_HEADER), c.req.method, c.req.path))));
  const dbs: RequestDbs = {
    directory: () => open().directory,
    shard: (shard) => {
      shardBinding(c.env, shard); // throws for a shard this deployment does not have
      return open().shard;
    },
    cross: () => open().cross,
    directoryAndShard: (shard) => ({ directory: dbs.directory(), shard: dbs.shard(shard) }),
    bookmark: () => session?.getBookmark() ?? undefined,
  };
  c.set("dbs", dbs);
  return dbs;
}

/**
 * The answer was decided from data read at `bookmark` (an edge-cached record's read of D1's primary): the
 * response's bookmark is then at least that, so a client that sends it back reads no older state than it saw.
 */
export function noteBookmark(c: Context<AppEnv>, bookmark: string | undefined): void {
  if (bookmark) c.set("recordBookmark", laterBookmark(c.var.recordBookmark, bookmark));
}

export const dbHandle = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    // Database 0's session opens up front, as it always has: a request that reads nothing still sends back the
    // client's own bookmark (the session's, until a read moves it).
    requestDbs(c).directory();
    await next();
    const bookmark = laterBookmark(c.var.dbs.bookmark(), c.var.recordBookmark);
    if (bookmark && c.req.path.startsWith("/api/")) c.res.headers.set(BOOKMARK_HEADER, bookmark);
  });
