// Test helpers for the read side: finalized file rows with real bytes in R2, albums, and request shortcuts
// for the byte-serving addresses. Rows are written straight to D1 (the upload flow has its own tests).
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { shardDb, runBatch } from "../../src/platform/data/db";
import { files, type FileRow } from "../../src/db/schema";
import { newShardedId } from "../../src/platform/data/shard-ids";
import { shardOfIdIn } from "../../src/platform/data/shards";
import { sha256Hex } from "../../src/platform/crypto/crypto";
import { viewCounterFor, type CounterKind } from "../../src/serving/view-counter";
import { nextOwnerOrdinal } from "../../src/uploads/records";
import { indexFileStatements } from "../../src/analysis/band-rows";
import { ownerDb, shardOfUser } from "./shard-db";

export const IMAGE = "http://localhost:8787/i";
export const CDN = "http://localhost:8787/cdn";
export const SITE = "http://localhost:8787";

/** Deterministic bytes that start like a PNG (the content is never decoded by these tests). */
export function pngLikeBytes(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  for (let i = 0; i < size; i++) out[i] = i < sig.length ? sig[i] : (i * 31 + seed * 7) & 0xff;
  return out;
}

/**
 * `shard`: the database the row goes to, when not the one its id names (an id from before shards that names
 * shard 1 by chance lives on shard 0: test/shards/legacy-ids.test.ts).
 */
export type SeedOptions = Partial<typeof files.$inferInsert> & { content?: Uint8Array; thumb?: Uint8Array | null; date?: string; shard?: number };

/** Inserts a finalized file owned by `ownerId` (null: an anonymous upload) and stores its bytes. */
export async function seedFile(ownerId: string | null, overrides: SeedOptions = {}): Promise<FileRow> {
  const { content: givenContent, thumb, date = "2026-01-15", shard: givenShard, ...row } = overrides;
  // On the owner's shard (an anonymous file on shard 0), with an id that names it, as an upload makes it.
  const shard = givenShard ?? (row.id ? shardOfIdIn(env, "file", row.id) : ownerId ? await shardOfUser(ownerId) : 0);
  const id = row.id ?? newShardedId("file", shard);
  const filename = row.filename ?? "photo.png";
  const content = givenContent ?? pngLikeBytes(2048);
  const storeKey = row.storeKey ?? `uploads/${date}/${id}/${filename}`;
  const put = await env.BUCKET.put(storeKey, content, { httpMetadata: { contentType: row.mime ?? "image/png" } });
  let thumbKey: string | null = row.thumbKey ?? null;
  if (thumb) {
    thumbKey = `thumbs/${id}.webp`;
    await env.BUCKET.put(thumbKey, thumb, { httpMetadata: { contentType: "image/webp" } });
  }
  const now = new Date();
  const values: typeof files.$inferInsert = {
    id,
    userId: ownerId,
    filename,
    mime: "image/png",
    bytes: content.byteLength,
    width: 640,
    height: 480,
    sha256: await sha256Hex(content),
    storeKey,
    storeEtag: put.etag,
    thumbKey,
    state: "finalized",
    analysis: "done",
    nsfwScore: 0.01,
    finalizedAt: now,
    createdAt: now,
    updatedAt: now,
    ...row,
  };
  // Numbered as an upload numbers it (uploads/records.ts), unless `row` says otherwise.
  const ownerOrdinal = ownerId ? nextOwnerOrdinal(ownerId) : null;
  return (await shardDb(env, shard).insert(files).values({ ownerOrdinal, ...values }).returning().get())!;
}

/** A file's rows in one of the owners' band indexes, as (owner's user id, band, value), band 0 first. */
export async function bandRowsOf(table: "phash_bands" | "embedding_bands", fileId: string) {
  const rows = await ownerDb.prepare(
    `SELECT o.user_id AS owner, b.band, b.value FROM files AS f JOIN owners AS o ON o.user_id = f.user_id
     JOIN ${table} AS b ON b.owner = o.id AND b.ordinal = f.owner_ordinal WHERE f.id = ?1 ORDER BY b.band, b.value`,
  )
    .bind(fileId)
    .all<{ owner: string; band: number; value: number }>();
  return rows.results;
}

/** Writes seeded files' near-duplicate band rows from the phash and embedding code their rows hold, as the analysis job does. */
export async function indexBands(...rows: FileRow[]): Promise<void> {
  for (const f of rows) {
    const db = shardDb(env, shardOfIdIn(env, "file", f.id));
    await runBatch(db, indexFileStatements(db, { ...f, phash: null, embeddingCode: null }, { phash: f.phash!, embeddingCode: f.embeddingCode }));
  }
}

export async function fileRow(id: string): Promise<FileRow | undefined> {
  return shardDb(env, shardOfIdIn(env, "file", id)).select().from(files).where(eq(files.id, id)).get();
}

export type RawReply = { status: number; headers: Headers; bytes: Uint8Array; text: string; json: any };

/** A raw request to any public address (bytes kept, JSON parsed when it is JSON). */
export async function fetchRaw(url: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<RawReply> {
  const res = await exports.default.fetch(url, init);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, text, json };
}

export type CountedColumn = "viewCount" | "downloadCount";

/**
 * Counts are written to D1 by the counter shards, after the response (waitUntil). Drains the key's shard
 * until D1 shows at least `atLeast`, or gives up after a few seconds; returns D1's value.
 */
export async function settledCount(kind: CounterKind, id: string, atLeast: number): Promise<number> {
  const stub = viewCounterFor(env, id);
  const deadline = Date.now() + 5_000;
  for (;;) {
    await stub.drain();
    const value = await d1Count(kind, id);
    if (value >= atLeast || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function d1Count(kind: CounterKind, id: string): Promise<number> {
  const [table, column] = kind === "album_view" ? ["albums", "view_count"] : ["files", kind === "file_view" ? "view_count" : "download_count"];
  const row = await ownerDb.prepare(`SELECT ${column} AS n FROM ${table} WHERE id = ?`).bind(id).first<{ n: number }>();
  return row?.n ?? 0;
}

/** Hits of one key waiting in its shard. */
export function pendingFor(kind: CounterKind, id: string): Promise<number> {
  return viewCounterFor(env, id).pendingOf(kind, id);
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
