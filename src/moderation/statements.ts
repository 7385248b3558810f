// Drizzle queries as plain D1 statements. Two reasons: other features hand out plain D1 statements for
// batches (analysis/duplicates.ts indexStatements), and drizzle's own db.batch cannot run `db.run(sql`...`)`
// items that bind parameters (its D1 session reads `.stmt` of the raw query, which has none).
type Query = { toSQL(): { sql: string; params: unknown[] } } | { getQuery(): { sql: string; params: unknown[] } };

export function prepared(d1: D1Database, q: Query): D1PreparedStatement {
  const { sql, params } = "toSQL" in q ? q.toSQL() : q.getQuery();
  return d1.prepare(sql).bind(...params);
}
