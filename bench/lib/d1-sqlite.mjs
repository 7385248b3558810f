// A D1Database over a node:sqlite connection, as much of it as drizzle and runBatch call (`prepare`, `bind`,
// `all`, `raw`, `first`, `run`, `batch`), so the app's own query functions run in Node against a local D1 file
// (bench/fill.bench.mjs). It records every statement it runs, so a bench can print the plan of exactly what a
// function sent. A batch is one transaction, as D1 runs it. Timings through it are SQLite's alone: no D1 proxy,
// no network, no JSON between workerd and its storage.

/** D1 binds numbers, strings, null and blobs; drizzle has turned dates and booleans into numbers already. */
const bindable = (v) => (v === undefined ? null : typeof v === "boolean" ? (v ? 1 : 0) : v);

class Statement {
  constructor(d1, sql, params = []) {
    this.d1 = d1;
    this.sql = sql;
    this.params = params;
  }
  bind(...params) {
    return new Statement(this.d1, this.sql, params.map(bindable));
  }
  prepared() {
    this.d1.recorded?.push({ sql: this.sql, params: this.params });
    return this.d1.cached(this.sql);
  }
  rowsResult(stmt = this.prepared()) {
    stmt.setReturnArrays(false);
    const results = stmt.all(...this.params);
    return { results, success: true, meta: { changes: 0, rows_read: 0, rows_written: 0 } };
  }
  async all() {
    return this.rowsResult();
  }
  async raw() {
    const stmt = this.prepared();
    stmt.setReturnArrays(true);
    return stmt.all(...this.params);
  }
  async first(column) {
    const row = this.rowsResult().results[0];
    if (!row) return null;
    return column ? row[column] : row;
  }
  runSync() {
    const stmt = this.prepared();
    // A statement that returns rows (SELECT, ... RETURNING) answers them; others their change count.
    if (stmt.columns().length > 0) return this.rowsResult(stmt);
    const r = stmt.run(...this.params);
    return { results: [], success: true, meta: { changes: Number(r.changes), last_row_id: Number(r.lastInsertRowid), rows_read: 0, rows_written: 0 } };
  }
  async run() {
    return this.runSync();
  }
}

export class SqliteD1 {
  /** @param {import("node:sqlite").DatabaseSync} db */
  constructor(db) {
    this.db = db;
    this.statements = new Map();
    /** While `record()` runs: every statement run, with its parameters. */
    this.recorded = null;
  }
  cached(sql) {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }
  prepare(sql) {
    return new Statement(this, sql);
  }
  async batch(statements) {
    this.db.exec("BEGIN");
    try {
      const results = statements.map((s) => s.runSync());
      this.db.exec("COMMIT");
      return results;
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    }
  }
  /** Runs `fn` and returns what it sent: `{ value, statements: [{ sql, params }] }`. */
  async record(fn) {
    const statements = (this.recorded = []);
    try {
      return { value: await fn(), statements };
    } finally {
      this.recorded = null;
    }
  }
  /** SQLite's plan of a statement, one line per step, indented by depth. */
  plan({ sql, params }) {
    const rows = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params);
    const depth = new Map([[0, -1]]);
    return rows.map((r) => {
      const d = (depth.get(r.parent) ?? -1) + 1;
      depth.set(r.id, d);
      return `${"  ".repeat(d)}${r.detail}`;
    });
  }
}
