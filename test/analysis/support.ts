// Helpers for the analysis job tests: users and finalized file rows written straight to D1, bytes to R2
// (as the upload flow leaves them), and ways to run the job: through the real queue, or one batch by hand.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { files, users, type FileRow } from "../../src/db/schema";
import { DEAD_LETTER_QUEUE } from "../../src/jobs/queue";
import type { JobMessage } from "../../src/platform/data/job-messages";
import worker from "../../src/index";
import { sha256Hex } from "../../src/platform/crypto/crypto";
import { directoryDb, shardDb } from "../../src/platform/data/db";
import { shardOfIdIn } from "../../src/platform/data/shards";
import { newId } from "../../src/platform/data/ids";
import { readExifTags, readXmp } from "../../src/analysis/metadata";
import { nextOwnerOrdinal } from "../../src/uploads/records";

/** Shard 0, where seedUser's owners' files are (users.shard 0); `directory()` for the blocklist. */
export const db = () => shardDb(env, 0);
export const directory = () => directoryDb(env);

export async function seedUser(): Promise<string> {
  const id = newId("usr");
  const now = new Date();
  await directory()
    .insert(users)
    .values({ id, email: `${id}@example.com`, username: id.slice(4, 16), passwordHash: "x", createdAt: now, updatedAt: now });
  return id;
}

const MIME: Record<string, string> = { jpg: "image/jpeg", png: "image/png", webp: "image/webp", gif: "image/gif", bmp: "image/bmp" };

/** A finalized file whose analysis is pending, with `content` stored at its storeKey. */
export async function seedFinalizedFile(userId: string | null, filename: string, content: Uint8Array, row: Partial<typeof files.$inferInsert> = {}): Promise<FileRow> {
  const id = row.id ?? newId("file");
  const storeKey = `uploads/2026-01-15/${id}/${filename}`;
  const mime = MIME[filename.split(".").pop()!] ?? "application/octet-stream";
  const put = await env.BUCKET.put(storeKey, content, { httpMetadata: { contentType: mime } });
  const now = new Date();
  // Numbered as an upload numbers it (uploads/records.ts): the band rows name a file by its ordinal.
  const ownerOrdinal = userId ? nextOwnerOrdinal(userId) : null;
  return (await db()
    .insert(files)
    .values({
      ownerOrdinal,
      id,
      userId,
      filename,
      mime,
      bytes: content.byteLength,
      width: 1, // the client's (wrong) hints; analysis replaces them
      height: 1,
      sha256: await sha256Hex(content),
      storeKey,
      storeEtag: put.etag,
      state: "finalized",
      analysis: "pending",
      finalizedAt: now,
      createdAt: now,
      updatedAt: now,
      ...row,
    })
    .returning()
    .get())!;
}

export async function fileRow(id: string): Promise<FileRow> {
  // The id's shard: files uploaded through the API are on their owner's (seedUser's owners are on shard 0).
  const [row] = await shardDb(env, shardOfIdIn(env, "file", id)).select().from(files).where(eq(files.id, id));
  return row;
}

/** Polls D1 until the file's analysis leaves `pending` (the real queue's consumer ran). */
export async function waitForAnalysis(id: string, timeoutMs = 25_000): Promise<FileRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await fileRow(id);
    if (row.analysis !== "pending" && row.analysis !== "none") return row;
    if (Date.now() > deadline) throw new Error(`analysis of ${id} still ${row.analysis} after ${timeoutMs} ms (${row.analysisError ?? ""})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Delivers one message to the worker's queue handler as the platform would (attempt n), and reports ack / retry.
 * The body is typed loosely on purpose: tests also deliver malformed messages.
 */
export async function deliver(body: JobMessage | Record<string, unknown>, { attempts = 1, queue = "image-jobs" } = {}) {
  const batch = createMessageBatch<JobMessage>(queue, [{ id: crypto.randomUUID(), timestamp: new Date(), attempts, body: body as JobMessage }]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

export const deliverDeadLetter = (body: JobMessage) => deliver(body, { queue: DEAD_LETTER_QUEUE });

const SERIAL_TAGS = [0xa430, 0xa431, 0xa435, 0xc62f, 0x927c];
export const tagText = (v: Uint8Array) => new TextDecoder().decode(v).replace(/\0+$/, "");

/** What a reader can still learn: GPS tags with any non-zero byte, serial / owner tags with a value. */
export function privateLeftovers(bytes: Uint8Array) {
  const tags = readExifTags(bytes);
  return {
    gps: tags.filter((t) => t.ifd === "gps" && t.value.some((b) => b !== 0)),
    serials: tags.filter((t) => SERIAL_TAGS.includes(t.tag) && t.value.some((b) => b !== 0)).map((t) => tagText(t.value)),
    xmp: readXmp(bytes).flatMap((x) => x.match(/(GPS\w+|SerialNumber)\s*=\s*"[^"\s][^"]*"|<[\w-]+:(GPS\w+|\w*SerialNumber)>[^<\s]/g) ?? []),
    orientation: tags.find((t) => t.ifd === "ifd0" && t.tag === 0x0112),
  };
}

