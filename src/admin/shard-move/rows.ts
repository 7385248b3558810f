// An owner's rows on a shard, a page at a time, for the move (./move.ts): read on the old shard, written to the new
// one, checked there, deleted from the old one. Every table's columns come from the schema, so a column added
// later moves with its table. Rows travel as one JSON parameter per table (json_each), which keeps every
// statement under D1's 100 bound parameters however wide the table.
import { sql, type SQL } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { albumFiles, albums, embeddingBands, fileDays, files, ownerDays, phashBands, uploadParts, uploads } from "../../db/schema";
import { runBatch, type ShardDb, type Statement } from "../../platform/data/db";
import { SHARD_MOVE } from "../../config";

export type Row = Record<string, unknown>;

/** The walks a step makes over an owner's rows, in order: files before the albums that list them. */
export const PHASES = ["files", "albums", "phash_bands", "embedding_bands"] as const;
export type Phase = (typeof PHASES)[number];
/** Where a walk has got to: the phase, and the last key of the page done (null: the phase's start). */
export type Cursor = { phase: Phase; after: string | null };

/** One page: the rows of each table it covers, and the key to go on after (null: the phase ended with it). */
export type Page = { tables: Map<SQLiteTable, Row[]>; next: string | null };

const BANDS = { phash_bands: phashBands, embedding_bands: embeddingBands } as const;
const isBandPhase = (phase: Phase): phase is keyof typeof BANDS => phase in BANDS;

const columnsOf = (table: SQLiteTable) => getTableConfig(table).columns.map((c) => c.name);
const nameOf = (table: SQLiteTable) => sql.identifier(getTableConfig(table).name);

/** The primary key's columns; of a band table, those after the owner's key (each shard numbers its owners). */
export function keyOf(table: SQLiteTable): string[] {
  if (table === phashBands || table === embeddingBands) return ["band", "value", "ordinal"];
  const config = getTableConfig(table);
  const single = config.columns.filter((c) => c.primary).map((c) => c.name);
  return single.length > 0 ? single : config.primaryKeys[0].columns.map((c) => c.name);
}

/**
 * What verify compares of a row: its key and, where the table has one, `updated_at`. A row changed on the old
 * shard after its page was copied (a moderator's hide during the copy) then reads as stale, and the copy runs again.
 */
const comparedOf = (table: SQLiteTable) => [...keyOf(table), ...(columnsOf(table).includes("updated_at") ? ["updated_at"] : [])];

/** A row's compared columns as one string, for comparing the two shards' rows. */
export const keyString = (table: SQLiteTable, row: Row) => JSON.stringify(comparedOf(table).map((c) => row[c]));

const json = (value: unknown) => sql`${JSON.stringify(value)}`;
const inJson = (column: string, values: unknown[]) => sql`${sql.identifier(column)} IN (SELECT value FROM json_each(${json(values)}))`;
const bandKey = sql`(band, value, ordinal)`;

/** The owner's page of `phase` on the old shard, after `after`: one batch (one round trip). */
export async function readPage(db: ShardDb, userId: string, ownerKey: number | null, phase: Phase, after: string | null): Promise<Page> {
  if (isBandPhase(phase)) {
    const table = BANDS[phase];
    if (ownerKey === null) return { tables: new Map([[table, []]]), next: null };
    const [band, value, ordinal] = after === null ? [] : (JSON.parse(after) as number[]);
    const from = after === null ? sql`` : sql`AND ${bandKey} > (${band}, ${value}, ${ordinal})`;
    const rows = await db.all<Row>(
      sql`SELECT band, value, ordinal FROM ${nameOf(table)} WHERE owner = ${ownerKey} ${from} ORDER BY band, value, ordinal LIMIT ${SHARD_MOVE.bandPageRows}`,
    );
    const last = rows.at(-1);
    return { tables: new Map([[table, rows]]), next: rows.length < SHARD_MOVE.bandPageRows || !last ? null : JSON.stringify([last.band, last.value, last.ordinal]) };
  }
  const parent = phase === "files" ? files : albums;
  const page = sql`SELECT id FROM ${nameOf(parent)} WHERE user_id = ${userId} ${after === null ? sql`` : sql`AND id > ${after}`} ORDER BY id LIMIT ${SHARD_MOVE.pageRows}`;
  const statements: Statement[] = [db.run(sql`SELECT * FROM ${nameOf(parent)} WHERE id IN (${page}) ORDER BY id`)];
  const children: SQLiteTable[] = phase === "files" ? [uploads, uploadParts, fileDays] : [albumFiles];
  if (phase === "files") {
    statements.push(db.run(sql`SELECT * FROM uploads WHERE file_id IN (${page}) ORDER BY id`));
    statements.push(db.run(sql`SELECT * FROM upload_parts WHERE upload_id IN (SELECT id FROM uploads WHERE file_id IN (${page})) ORDER BY upload_id, part_number`));
    // Insights' days go with their files; the owner's days (at most 90 rows) with the first page.
    statements.push(db.run(sql`SELECT * FROM file_days WHERE file_id IN (${page}) ORDER BY file_id, day`));
    if (after === null) {
      children.push(ownerDays);
      statements.push(db.run(sql`SELECT * FROM owner_days WHERE user_id = ${userId} ORDER BY day`));
    }
  } else {
    statements.push(db.run(sql`SELECT * FROM album_files WHERE album_id IN (${page}) ORDER BY album_id, file_id`));
  }
  const results = await runBatch<Row>(db, statements);
  const parents = results[0].results;
  const tables = new Map<SQLiteTable, Row[]>([[parent, parents]]);
  children.forEach((t, i) => tables.set(t, results[i + 1].results));
  const last = parents.at(-1);
  return { tables, next: parents.length < SHARD_MOVE.pageRows || !last ? null : String(last.id) };
}

/** The ids a page names that a lookup by id can ask for: files, uploads, albums (the moved_files rows). */
export function idsOf(page: Page): string[] {
  return [files, uploads, albums].flatMap((t) => (page.tables.get(t) ?? []).map((r) => String(r.id)));
}

/**
 * The page written to the new shard: an upsert per table (run again, it changes nothing; a row changed on the
 * old shard since the last run is brought up to date). Band rows take the new shard's key of the owner.
 */
export function writeStatements(db: ShardDb, page: Page, targetOwnerKey: number): Statement[] {
  const statements: Statement[] = [];
  const albumRows = page.tables.get(albums);
  if (albumRows && albumRows.length > 0) {
    // Memberships the old shard no longer has (a takedown detached the file since an earlier copy) leave the new one
    // too, so a copy run again converges on the old shard's rows instead of failing verify's count for ever.
    const kept = (page.tables.get(albumFiles) ?? []).map((r) => [r.album_id, r.file_id]);
    statements.push(
      db.run(sql`DELETE FROM album_files WHERE album_id IN (SELECT value FROM json_each(${json(albumRows.map((r) => r.id))}))
        AND (album_id, file_id) NOT IN (SELECT value->>0, value->>1 FROM json_each(${json(kept)}))`),
    );
  }
  for (const [table, rows] of page.tables) {
    if (rows.length === 0) continue;
    if (table === phashBands || table === embeddingBands) {
      statements.push(
        db.run(sql`INSERT INTO ${nameOf(table)} (owner, band, value, ordinal)
          SELECT ${targetOwnerKey}, value->>'$.band', value->>'$.value', value->>'$.ordinal' FROM json_each(${json(rows)}) WHERE true
          ON CONFLICT DO NOTHING`),
      );
      continue;
    }
    const columns = columnsOf(table);
    const key = keyOf(table);
    // The paths are the schema's column names, written into the SQL (no parameter each: files has 46 columns).
    const values = sql.join(columns.map((c) => sql.raw(`value->>'$."${c}"'`)), sql`, `);
    const updates = columns.filter((c) => !key.includes(c)).map((c) => sql`${sql.identifier(c)} = excluded.${sql.identifier(c)}`);
    const onConflict = updates.length > 0 ? sql`DO UPDATE SET ${sql.join(updates, sql`, `)}` : sql`DO NOTHING`;
    statements.push(
      db.run(sql`INSERT INTO ${nameOf(table)} (${sql.join(columns.map((c) => sql.identifier(c)), sql`, `)})
        SELECT ${values} FROM json_each(${json(rows)}) WHERE true
        ON CONFLICT (${sql.join(key.map((c) => sql.identifier(c)), sql`, `)}) ${onConflict}`),
    );
  }
  return statements;
}

/** The page's rows as the new shard has them, by key and version (one batch): what verify compares. */
export async function readBack(db: ShardDb, page: Page, targetOwnerKey: number | null): Promise<Map<SQLiteTable, Set<string>>> {
  const tables = [...page.tables.keys()];
  const statements: Statement[] = tables.map((table) => {
    const rows = page.tables.get(table)!;
    const key = keyOf(table);
    const keys = rows.map((r) => key.map((c) => r[c]));
    const owner = table === phashBands || table === embeddingBands ? sql`owner = ${targetOwnerKey ?? -1} AND` : sql``;
    const match: SQL =
      key.length === 1
        ? inJson(key[0], keys.map((k) => k[0]))
        : sql`(${sql.join(key.map((c) => sql.identifier(c)), sql`, `)}) IN (SELECT ${sql.join(key.map((_, i) => sql.raw(`value->>${i}`)), sql`, `)} FROM json_each(${json(keys)}))`;
    return db.run(sql`SELECT ${sql.join(comparedOf(table).map((c) => sql.identifier(c)), sql`, `)} FROM ${nameOf(table)} WHERE ${owner} ${match}`);
  });
  const results = await runBatch<Row>(db, statements);
  return new Map(tables.map((t, i) => [t, new Set(results[i].results.map((r) => keyString(t, r)))]));
}

/** The page's rows deleted from the old shard, children first, and the moved ids' forwarding rows written. */
export function deleteStatements(db: ShardDb, page: Page, ownerKey: number | null, toShard: number): Statement[] {
  const ids = idsOf(page);
  const statements: Statement[] = [];
  if (ids.length > 0) {
    const moved = ids.map((id) => ({ id, shard: toShard }));
    statements.push(
      db.run(sql`INSERT INTO moved_files (id, shard) SELECT value->>'$.id', value->>'$.shard' FROM json_each(${json(moved)}) WHERE true
        ON CONFLICT (id) DO UPDATE SET shard = excluded.shard`),
    );
  }
  const idsIn = (table: SQLiteTable) => (page.tables.get(table) ?? []).map((r) => r.id);
  if (page.tables.has(files)) {
    const fileIds = idsIn(files);
    const uploadIds = idsIn(uploads);
    statements.push(db.run(sql`DELETE FROM album_files WHERE ${inJson("file_id", fileIds)}`));
    statements.push(db.run(sql`DELETE FROM file_days WHERE ${inJson("file_id", fileIds)}`));
    statements.push(db.run(sql`DELETE FROM upload_parts WHERE ${inJson("upload_id", uploadIds)}`));
    statements.push(db.run(sql`DELETE FROM uploads WHERE ${inJson("id", uploadIds)}`));
    statements.push(db.run(sql`DELETE FROM files WHERE ${inJson("id", fileIds)}`));
  }
  if (page.tables.has(albums)) {
    const albumIds = idsIn(albums);
    statements.push(db.run(sql`DELETE FROM album_files WHERE ${inJson("album_id", albumIds)}`));
    statements.push(db.run(sql`DELETE FROM albums WHERE ${inJson("id", albumIds)}`));
  }
  const days = (page.tables.get(ownerDays) ?? []).map((r) => [r.user_id, r.day]);
  if (days.length > 0) statements.push(db.run(sql`DELETE FROM owner_days WHERE (user_id, day) IN (SELECT value->>0, value->>1 FROM json_each(${json(days)}))`));
  for (const table of [phashBands, embeddingBands]) {
    const rows = page.tables.get(table);
    if (!rows || rows.length === 0 || ownerKey === null) continue;
    const keys = rows.map((r) => [r.band, r.value, r.ordinal]);
    statements.push(
      db.run(sql`DELETE FROM ${nameOf(table)} WHERE owner = ${ownerKey} AND ${bandKey} IN (SELECT value->>0, value->>1, value->>2 FROM json_each(${json(keys)}))`),
    );
  }
  return statements;
}

/** How many rows of each table the owner has on a shard: verify's last check, that nothing is left over or extra. */
export async function ownerCounts(db: ShardDb, userId: string): Promise<Record<string, number>> {
  const row = await db.get<Record<string, number>>(sql`SELECT
    (SELECT COUNT(*) FROM files WHERE user_id = ${userId}) AS files,
    (SELECT COUNT(*) FROM uploads WHERE file_id IN (SELECT id FROM files WHERE user_id = ${userId})) AS uploads,
    (SELECT COUNT(*) FROM upload_parts WHERE upload_id IN (SELECT id FROM uploads WHERE file_id IN (SELECT id FROM files WHERE user_id = ${userId}))) AS upload_parts,
    (SELECT COUNT(*) FROM albums WHERE user_id = ${userId}) AS albums,
    (SELECT COUNT(*) FROM album_files WHERE album_id IN (SELECT id FROM albums WHERE user_id = ${userId})) AS album_files,
    (SELECT COUNT(*) FROM phash_bands WHERE owner = (SELECT id FROM owners WHERE user_id = ${userId})) AS phash_bands,
    (SELECT COUNT(*) FROM embedding_bands WHERE owner = (SELECT id FROM owners WHERE user_id = ${userId})) AS embedding_bands,
    (SELECT COUNT(*) FROM file_days WHERE file_id IN (SELECT id FROM files WHERE user_id = ${userId})) AS file_days,
    (SELECT COUNT(*) FROM owner_days WHERE user_id = ${userId}) AS owner_days`);
  return row!;
}

export const tableName = (table: SQLiteTable) => getTableConfig(table).name;
