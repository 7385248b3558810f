// Used bytes of every table and index of a SQLite file (a local D1 database), from SQLite's `dbstat` virtual
// table, read with node:sqlite (Node 22).
//
// Used bytes of a page = pgsize - unused - its page header: the cells' payload (dbstat `payload`) plus their
// overhead (the 2-byte cell pointer, the payload-size and rowid varints, an interior cell's child page number,
// an overflow page's next-page pointer). Free space inside pages (dbstat `unused`) and the page headers (8 bytes
// on a leaf, 12 on an interior page) are not counted: they depend on how full the B-tree's pages happen to be,
// not on what a row costs.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const PAGE_HEADER = { leaf: 8, internal: 12, overflow: 0 };

/** The local D1 database files under a `wrangler dev --persist-to` directory (one per D1 binding). */
export function localD1Files(persistTo) {
  const dir = path.join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite") // miniflare's own bookkeeping
    .map((f) => path.join(dir, f));
}

/**
 * `{ objects: [{ name, table, type, rows, payload, used, pages }] }` (rows: an index's entries) for every table and index of `file`.
 * The file (and its WAL) is copied first, so the running worker's database is never opened by a second writer.
 * `keepAs`: where to leave that copy too, as one file (its WAL checkpointed into it). `prepare(db)`: run on the copy
 * before it is measured (d1-bytes empties what production would not keep).
 */
export async function usedBytes(file, { keepAs, prepare } = {}) {
  const { DatabaseSync } = await import("node:sqlite");
  const copyDir = mkdtempSync(path.join(tmpdir(), "bench-dbstat-"));
  try {
    const copy = path.join(copyDir, "db.sqlite");
    copyFileSync(file, copy);
    for (const suffix of ["-wal", "-shm"]) if (existsSync(file + suffix)) copyFileSync(file + suffix, copy + suffix);
    const db = new DatabaseSync(copy);
    prepare?.(db);
    const schema = db.prepare("SELECT type, name, tbl_name AS tbl FROM sqlite_schema WHERE type IN ('table', 'index')").all();
    const stat = db.prepare("SELECT name, pagetype, SUM(payload) AS payload, SUM(pgsize - unused) AS filled, SUM(ncell) AS cells, COUNT(*) AS pages FROM dbstat GROUP BY name, pagetype").all();
    const byName = new Map();
    for (const s of stat) {
      const o = byName.get(s.name) ?? { payload: 0, used: 0, pages: 0, cells: 0 };
      o.payload += s.payload;
      if (s.pagetype !== "overflow") o.cells += s.cells;
      o.used += s.filled - (PAGE_HEADER[s.pagetype] ?? 0) * s.pages;
      o.pages += s.pages;
      byName.set(s.name, o);
    }
    const objects = [{ type: "table", name: "sqlite_schema", tbl: "sqlite_schema" }, ...schema].map((o) => {
      const { cells, ...stats } = byName.get(o.name) ?? { payload: 0, used: 0, pages: 0, cells: 0 };
      // An index's entries are its cells (an index b-tree keeps each key once, on a leaf or an interior page).
      const rows = o.type === "index" ? cells : o.name === "sqlite_schema" ? null : db.prepare(`SELECT COUNT(*) AS n FROM "${o.name.replaceAll('"', '""')}"`).get().n;
      return { name: o.name, table: o.tbl, type: o.type, rows, ...stats };
    });
    if (keepAs) db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
    if (keepAs) copyFileSync(copy, keepAs);
    return { objects };
  } finally {
    rmSync(copyDir, { recursive: true, force: true });
  }
}
