import { drizzle } from "drizzle-orm/d1";

/** The one database handle the features take: drizzle over D1 (the binding, or a request's session). */
export type Db = ReturnType<typeof createDb>;

/**
 * A drizzle handle over the D1 binding, or over one of its read-replication sessions (drizzle only calls
 * `prepare` and `batch`, which a session has too), so queries read the same either way.
 */
export function createDb(d1: D1Database | D1DatabaseSession) {
  // No `schema`: nothing uses drizzle's relational `db.query` API, and with a schema drizzle rebuilds its
  // relational config on every handle, i.e. on every request (it showed in the serving profile).
  return drizzle(d1 as D1Database);
}

/** A statement drizzle built: a query builder, or `db.run(sql`...`)` for SQL its builders cannot express. */
export type Statement = { toSQL(): { sql: string; params: unknown[] } } | { getQuery(): { sql: string; params: unknown[] } };

/**
 * Runs `statements` as one D1 batch (one round trip, one transaction) on the handle's own client: the binding
 * or the request's session, so a read still goes where the handle sends it. Returns D1's raw results: rows named
 * as SQLite names the columns, and the `meta` (`changes`, `rows_read`) callers check.
 * Not `db.batch`, for two reasons: drizzle 0.45's D1 batch cannot run `db.run(sql`...`)` statements that bind
 * parameters (it reads the prepared `.stmt` such a raw query does not have), and its results drop the meta.
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
