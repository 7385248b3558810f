// The rows of an owner's near-duplicate indexes (phash_bands, embedding_bands; db/schema.ts): a file's band
// values under its owner's integer key (owners) and its owner ordinal. Nothing indexes them by file, so a file's
// rows are written and removed by their exact keys: the values come from the phash or the embedding code, the
// owner key from a subquery in the same statement (no extra round trip). The values are integers computed here,
// so they are inlined: no bound parameter per row (D1 allows 100 per statement).
import { sql, type SQL } from "drizzle-orm";
import { embeddingBands, owners, phashBands, type FileRow } from "../db/schema";
import type { ShardDb, Statement } from "../platform/data/db";
import { bandValues } from "./bands";
import { embeddingBandValues, isEmbeddingCode } from "./embedding";
import { isPhash } from "./phash";

type BandTable = typeof phashBands | typeof embeddingBands;

/** The owner's key as a scalar subquery: NULL (no row matches) while the owner has no key yet. */
export const ownerKey = (userId: string): SQL => sql`(SELECT ${owners.id} FROM ${owners} WHERE ${owners.userId} = ${userId})`;

/**
 * Gives the owner its row (and so its key) unless it has one: put it before the owner's first band rows, in the
 * same batch; the first quota reservation makes it too (uploads/quota.ts).
 */
export const ensureOwnerKeyStatement = (db: ShardDb, userId: string): Statement => db.insert(owners).values({ userId }).onConflictDoNothing();

/** `(band, value)` pairs as a VALUES list, band 0 first. */
const pairs = (values: number[]): SQL => sql.raw(values.map((value, band) => `(${band},${Math.trunc(value)})`).join(","));

function insertStatement(db: ShardDb, table: BandTable, userId: string, ordinal: number, values: number[]): Statement {
  return db.run(sql`INSERT INTO ${table} (owner, band, value, ordinal)
    SELECT ${owners.id}, v.column1, v.column2, ${ordinal} FROM ${owners}, (VALUES ${pairs(values)}) AS v WHERE ${owners.userId} = ${userId}
    ON CONFLICT DO NOTHING`);
}

function deleteStatement(db: ShardDb, table: BandTable, userId: string, ordinal: number, values: number[]): Statement {
  return db.run(sql`DELETE FROM ${table} WHERE owner = ${ownerKey(userId)} AND ordinal = ${ordinal} AND (band, value) IN (VALUES ${pairs(values)})`);
}

/** A file as its band rows know it: its owner, its ordinal, and the phash and code its rows were made from. */
export type IndexedFile = Pick<FileRow, "userId" | "ownerOrdinal" | "phash" | "embeddingCode">;

const owned = (file: IndexedFile): file is IndexedFile & { userId: string; ownerOrdinal: number } => file.userId !== null && file.ownerOrdinal !== null;

/**
 * Statements moving `file`'s band rows by their keys (a repeat inserts nothing) from its row's values as read before
 * this analysis to `next`; a null `next.embeddingCode` (model failed) keeps the old code's rows. Run them in the batch
 * that writes `next` to the files row, so rows and row never disagree. Anonymous files have none.
 */
export function indexFileStatements(db: ShardDb, file: IndexedFile, next: { phash: string; embeddingCode: string | null }): Statement[] {
  if (!owned(file)) return [];
  const { userId, ownerOrdinal } = file;
  const statements = [ensureOwnerKeyStatement(db, userId)];
  const move = (table: BandTable, from: number[] | null, to: number[]) => {
    if (from && from.join() !== to.join()) statements.push(deleteStatement(db, table, userId, ownerOrdinal, from));
    statements.push(insertStatement(db, table, userId, ownerOrdinal, to));
  };
  if (!isPhash(next.phash)) throw new Error("not a phash");
  move(phashBands, isPhash(file.phash) ? bandValues(file.phash) : null, bandValues(next.phash));
  if (next.embeddingCode !== null) {
    if (!isEmbeddingCode(next.embeddingCode)) throw new Error("not an embedding code");
    move(embeddingBands, isEmbeddingCode(file.embeddingCode) ? embeddingBandValues(file.embeddingCode) : null, embeddingBandValues(next.embeddingCode));
  }
  return statements;
}

/** Statements that remove every band row of `file` (a purged file), from the phash and code its row holds. */
export function unindexFileStatements(db: ShardDb, file: IndexedFile): Statement[] {
  if (!owned(file)) return [];
  const statements: Statement[] = [];
  if (isPhash(file.phash)) statements.push(deleteStatement(db, phashBands, file.userId, file.ownerOrdinal, bandValues(file.phash)));
  if (isEmbeddingCode(file.embeddingCode)) statements.push(deleteStatement(db, embeddingBands, file.userId, file.ownerOrdinal, embeddingBandValues(file.embeddingCode)));
  return statements;
}
