// The analysis queue job ({ type: "analyze", fileId }, sent by finalize): reads the object from R2, scrubs
// private metadata, refuses pixel bombs before decoding, decodes (photon, or a lean reduced-size decoder for
// images over 5 MP), and records the true size, phash, thumbnail, NSFW score, near-duplicate index rows and
// blocklist matches.
//
// Delivery is at least once, so the job is idempotent: a file whose analysis is already `done` or `failed`
// is left alone, every write is an upsert or conditional on `analysis <> 'done'`, and the final writes are
// one D1 batch (a transaction). Failures split in two:
//   - about the image itself (too large, not an image, undecodable): `analysis: failed` + reason, acked;
//   - about the platform (object missing, R2 / D1 errors): thrown, so the queue retries with backoff; after
//     the last retry the dead-letter consumer (onDeadLetter) records `failed` with the last error.
// Optional steps that fail on their own (thumbnail encoding, the NSFW model) are noted in analysisError
// and the analysis still completes.
import { and, eq, inArray, ne, sql } from "drizzle-orm";
import { ANALYSIS } from "../config";
import { files } from "../db/schema";
import type { AnalyzeMessage, JobHandler } from "../platform/job-messages";
import { createDb, runBatch, type Db, type Statement } from "../platform/db";
import { isId } from "../platform/ids";
import { blocklistReportStatement, matchBlocklist, type BlocklistMatch } from "./blocklist";
import { indexStatements } from "./duplicates";
import { embeddingCode, encodeFeatures } from "./embedding";
import { indexEmbeddingStatements } from "./embedding-index";
import { inspectImage } from "./header";
import { decodeImage, DecodeError, type Thumbnail } from "./imaging";
import { scrubMetadata } from "./metadata";
import { classifyNsfw, combinedScore, isAgeRestricted, nsfwThreshold } from "./nsfw";
import { phashFromLuma } from "./phash";
import { placeholderFromThumbnail, type Placeholder } from "./placeholder";
import { forgetFileAccess } from "../serving/edge-cache";

export type AnalysisOutcome =
  | { status: "skipped"; reason: string }
  | { status: "failed"; reason: string }
  | {
      status: "done";
      width: number;
      height: number;
      phash: string;
      nsfwScore: number | null;
      /** The near-duplicate code (embedding.ts); null when the model did not run. */
      embeddingCode: string | null;
      thumbKey: string | null;
      placeholder: Placeholder | null;
      scrubbed: string[];
      blocklist: BlocklistMatch | null;
      stepErrors: string[];
    };

export type AnalyzeOptions = {
  force?: boolean;
  /** Skip the NSFW model (benchmarks of the other steps); the job always runs it. */
  skipNsfw?: boolean;
  now?: () => number;
};

export const thumbnailKey = (fileId: string, ext: Thumbnail["extension"]) => `thumbs/${fileId}.${ext}`;

function message(err: unknown): string {
  return (err instanceof Error ? err.message || err.name : String(err)).slice(0, 500);
}

/** Records a final failure (about the image itself); never overwrites a completed analysis. */
async function recordFailure(env: Env, db: Db, fileId: string, reason: string, now: number): Promise<AnalysisOutcome> {
  const at = new Date(now);
  await db
    .update(files)
    .set({ analysis: "failed", analysisError: reason, analyzedAt: at, updatedAt: at })
    .where(and(eq(files.id, fileId), ne(files.analysis, "done")));
  await forgetFileAccess(env, [fileId]); // its thumbnail link stops saying "Processing…"
  return { status: "failed", reason };
}

/** Analyses one file; returns what it did. Throws on errors worth retrying. */
export async function analyzeFile(env: Env, fileId: string, options: AnalyzeOptions = {}): Promise<AnalysisOutcome> {
  const now = options.now ?? Date.now;
  // The primary (no session): the consumer writes, and finalize's wait reads what it wrote from there.
  const db = createDb(env.DB);
  const [file] = await db.select().from(files).where(eq(files.id, fileId)).limit(1);
  if (!file) return { status: "skipped", reason: "no such file" };
  if (file.deletedAt || file.purgedAt) return { status: "skipped", reason: "file deleted" };
  if (file.state !== "finalized") return { status: "skipped", reason: `file is ${file.state}, not finalized` };
  if (!options.force && (file.analysis === "done" || file.analysis === "failed")) return { status: "skipped", reason: `analysis already ${file.analysis}` };

  if (file.bytes > ANALYSIS.maxBytes) return recordFailure(env, db, fileId, `file too large to analyse: ${file.bytes} bytes (limit ${ANALYSIS.maxBytes})`, now());
  const object = await env.BUCKET.get(file.storeKey);
  if (!object) throw new Error(`object ${file.storeKey} is missing from storage`);
  if (object.size > ANALYSIS.maxBytes) return recordFailure(env, db, fileId, `file too large to analyse: ${object.size} bytes (limit ${ANALYSIS.maxBytes})`, now());
  const bytes = new Uint8Array(await object.arrayBuffer());

  // 1. Privacy first, even for images refused below: blank GPS / serial numbers in place and write back.
  const scrub = scrubMetadata(bytes);
  let storedEtag = object.etag;
  if (scrub.changed) {
    const written = await env.BUCKET.put(file.storeKey, bytes, {
      onlyIf: { etagMatches: object.etag },
      httpMetadata: object.httpMetadata,
      customMetadata: { ...object.customMetadata, privacyScrubbed: scrub.findings.join(",") },
    });
    // Someone replaced the object meanwhile (a concurrent delivery scrubbing it): start over on the new one.
    if (!written) throw new Error("object changed while scrubbing metadata; retrying");
    storedEtag = written.etag;
  }
  // Byte links answer files.store_etag as the bytes' ETag: once scrubbed, it names the scrubbed bytes, or a
  // 304 would confirm a copy taken before the scrub. Compared rather than tied to `changed`, so a redelivery
  // of a run that scrubbed and then stopped still records it. (The upload's own ETag, which finalize checks,
  // stays in uploads.store_etag; sha256 stays the uploaded bytes' digest, the exact-duplicate key.)
  if (file.storeEtag !== storedEtag) await db.update(files).set({ storeEtag: storedEtag }).where(eq(files.id, fileId));

  // 2. Safety before decode.
  const header = inspectImage(bytes, { maxPixels: ANALYSIS.maxPixels, maxFrames: ANALYSIS.maxFrames });
  if (!header.ok) return recordFailure(env, db, fileId, header.reason, now());

  // 3. Decode and derive: photon up to ANALYSIS.maxDecodePixels, a lean reduced-size decoder above (imaging.ts).
  let decoded;
  try {
    decoded = await decodeImage(bytes, {
      header,
      orientation: scrub.orientation,
      thumbnailMaxSide: ANALYSIS.thumbnailMaxSide,
      thumbnailJpegQuality: ANALYSIS.thumbnailJpegQuality,
      nsfwSize: options.skipNsfw ? 0 : ANALYSIS.nsfwInputSize,
    });
  } catch (err) {
    if (err instanceof DecodeError) return recordFailure(env, db, fileId, err.message, now());
    throw err;
  }
  const stepErrors = [...decoded.stepErrors];
  const phash = phashFromLuma(decoded.luma, decoded.lumaWidth, decoded.lumaHeight);
  // Width and height as displayed: EXIF orientations 5-8 turn the stored image by 90 degrees.
  const turned = scrub.orientation !== null && scrub.orientation >= 5;
  const width = turned ? decoded.height : decoded.width;
  const height = turned ? decoded.width : decoded.height;

  // 4. Thumbnail (served by the serving feature at {image_url}/<id>/thumb, Content-Type from R2 metadata).
  let thumbKey: string | null = null;
  if (decoded.thumbnail) {
    thumbKey = thumbnailKey(fileId, decoded.thumbnail.extension);
    await env.BUCKET.put(thumbKey, decoded.thumbnail.bytes, {
      httpMetadata: { contentType: decoded.thumbnail.contentType, cacheControl: "public, max-age=31536000, immutable" },
      customMetadata: { fileId, width: String(decoded.thumbnail.width), height: String(decoded.thumbnail.height) },
    });
  }

  // 4b. Placeholder (ThumbHash and dominant colour) from the thumbnail: optional, like the thumbnail.
  let placeholder: Placeholder | null = null;
  if (decoded.thumbnail) {
    try {
      placeholder = await placeholderFromThumbnail(decoded.thumbnail);
    } catch (err) {
      stepErrors.push(`placeholder: ${message(err)}`);
    }
  }

  // 5. NSFW score and the near-duplicate features of the same inference: the model failing is recorded, not
  // fatal (the file then has no embedding and is matched by phash only); the client's hint stays the floor.
  let serverScore: number | null = null;
  let features: string | null = null;
  let code: string | null = null;
  if (decoded.nsfwInput) {
    try {
      const result = await classifyNsfw(decoded.nsfwInput);
      serverScore = result.score;
      features = encodeFeatures(result.features);
      code = embeddingCode(result.features, result.featureCenter);
      // Scored on the CPU backend (~40x the CPU time): worth seeing in analysisError.
      if (result.wasmError) stepErrors.push(`nsfw: wasm backend unavailable, scored on cpu: ${result.wasmError}`);
    } catch (err) {
      stepErrors.push(`nsfw: ${message(err)}`);
    }
  }
  const nsfwScore = combinedScore(serverScore, file.clientNsfwScore);
  const ageRestricted = isAgeRestricted(nsfwScore, nsfwThreshold(env), file.ageRestrictedOverride);

  // 6. Blocklist (indexed lookup), then every write in one transaction.
  const blocklist = await matchBlocklist(db, phash);
  const at = new Date(now());
  const statements: Statement[] = [];
  if (blocklist) statements.push(blocklistReportStatement(db, fileId, blocklist, at.getTime()));
  statements.push(
    db
      .update(files)
      .set({
        width,
        height,
        phash,
        nsfwScore,
        ageRestricted,
        analysis: "done",
        analysisError: stepErrors.length ? stepErrors.join("; ").slice(0, 1000) : null,
        analyzedAt: at,
        updatedAt: at,
        // What this run did not produce keeps what an earlier one stored (a forced rerun whose model failed).
        ...(thumbKey !== null && { thumbKey }),
        ...(blocklist && { quarantinedAt: sql`COALESCE(${files.quarantinedAt}, ${at.getTime()})` }),
        ...(placeholder && { placeholder: placeholder.thumbhash }),
        ...(placeholder?.dominantColor && { dominantColor: placeholder.dominantColor }),
        ...(features !== null && { embedding: features }),
        ...(code !== null && { embeddingCode: code }),
      })
      .where(options.force ? eq(files.id, fileId) : and(eq(files.id, fileId), ne(files.analysis, "done"))),
  );
  if (file.userId) statements.push(...indexStatements(db, file.userId, fileId, phash));
  // Delete-then-insert of the same 16 rows in this transaction: a redelivered or forced job leaves the same index.
  if (file.userId && code) statements.push(...indexEmbeddingStatements(db, file.userId, fileId, code));
  // runBatch: the blocklist report is raw SQL, which drizzle's db.batch cannot bind (platform/db.ts).
  await runBatch(db, statements);
  await forgetFileAccess(env, [fileId]); // byte links see the thumbnail (and a blocklist quarantine) at once

  return { status: "done", width, height, phash, nsfwScore, embeddingCode: code, thumbKey, placeholder, scrubbed: scrub.findings, blocklist, stepErrors };
}

function fileIdOf(body: AnalyzeMessage): string | null {
  return typeof body.fileId === "string" && isId("file", body.fileId) ? body.fileId : null;
}

/** The queue handler: jobHandlers.analyze (src/jobs/queue.ts). */
export const analyzeJob: JobHandler<AnalyzeMessage> = {
  async run(env, body) {
    const fileId = fileIdOf(body);
    if (!fileId) {
      console.error("analyze: message without a valid fileId; dropped", body);
      return;
    }
    try {
      const outcome = await analyzeFile(env, fileId, { force: body.force === true });
      if (outcome.status !== "done") console.log(`analyze ${fileId}: ${outcome.status} (${outcome.reason})`);
    } catch (err) {
      // Keep the last error so the dead-letter handler can say why the analysis gave up.
      await createDb(env.DB)
        .update(files)
        .set({ analysisError: message(err) })
        .where(and(eq(files.id, fileId), inArray(files.analysis, ["none", "pending"])))
        .catch(() => undefined);
      throw err;
    }
  },
  async onDeadLetter(env, body) {
    const fileId = fileIdOf(body);
    if (!fileId) return;
    const now = new Date();
    await createDb(env.DB)
      .update(files)
      .set({
        analysis: "failed",
        analysisError: sql`'gave up after retries: ' || COALESCE(${files.analysisError}, 'unknown error')`,
        analyzedAt: now,
        updatedAt: now,
      })
      .where(and(eq(files.id, fileId), inArray(files.analysis, ["none", "pending"])));
  },
};

