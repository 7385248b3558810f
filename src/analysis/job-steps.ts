// The named steps of the analysis job (job.ts runs them in order): find the file, read its object, scrub
// private metadata, decode and derive, store the thumbnail, derive the placeholder, score NSFW, and record
// everything in one D1 batch. Steps that concern the image itself return a reason to record as a failure;
// platform errors are thrown, so the queue retries. Optional steps note their failure in `stepErrors`.
import { and, eq, ne, sql } from "drizzle-orm";
import { ANALYSIS } from "../config";
import { files, type FileRow } from "../db/schema";
import { runBatch, type DirectoryAndShard, type ShardDb, type Statement } from "../platform/data/db";
import { lookupFollowing } from "../platform/data/moved-ids";
import { blocklistReportStatement, matchBlocklist } from "./blocklist";
import { indexFileStatements } from "./band-rows";
import { embeddingCode, encodeFeatures } from "./embedding";
import type { ImageHeader } from "./header";
import { decodeImage, DecodeError, type Thumbnail } from "./imaging";
import { scrubMetadata, type ScrubReport } from "./metadata";
import { classifyNsfw, combinedScore, isAgeRestricted, nsfwThreshold } from "./nsfw";
import { phashFromLuma } from "./phash";
import { placeholderFromThumbnail, type Placeholder } from "./placeholder";

export const thumbnailKey = (fileId: string, ext: Thumbnail["extension"]) => `thumbs/${fileId}.${ext}`;

export function message(err: unknown): string {
  return (err instanceof Error ? err.message || err.name : String(err)).slice(0, 500);
}

/** The file, unless there is nothing to do (gone, not finalized, or analysed already and not forced). */
export async function fileToAnalyse(db: ShardDb, fileId: string, force: boolean): Promise<{ file: FileRow } | { skipped: string }> {
  // Followed like every lookup by id: a message delivered again after the owner moved finds the file there.
  const file = await lookupFollowing(db, fileId, () => db.select().from(files).where(eq(files.id, fileId)).get());
  if (!file) return { skipped: "no such file" };
  if (file.deletedAt || file.purgedAt) return { skipped: "file deleted" };
  if (file.state !== "finalized") return { skipped: `file is ${file.state}, not finalized` };
  if (!force && (file.analysis === "done" || file.analysis === "failed")) return { skipped: `analysis already ${file.analysis}` };
  return { file };
}

const tooLarge = (size: number) => ({ tooLarge: `file too large to analyse: ${size} bytes (limit ${ANALYSIS.maxBytes})` });

/** The stored object's bytes, or why they are too large to analyse. A missing object is thrown (retried). */
export async function readObject(env: Env, file: FileRow): Promise<{ object: R2ObjectBody; bytes: Uint8Array } | { tooLarge: string }> {
  if (file.bytes > ANALYSIS.maxBytes) return tooLarge(file.bytes);
  const object = await env.BUCKET.get(file.storeKey);
  if (!object) throw new Error(`object ${file.storeKey} is missing from storage`);
  if (object.size > ANALYSIS.maxBytes) {
    await object.body.cancel();
    return tooLarge(object.size);
  }
  return { object, bytes: new Uint8Array(await object.arrayBuffer()) };
}

/** Privacy first: blanks GPS and serial numbers in place and writes the object back; records its new ETag. */
export async function scrubPrivateMetadata(env: Env, db: ShardDb, file: FileRow, object: R2ObjectBody, bytes: Uint8Array): Promise<ScrubReport> {
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
  if (file.storeEtag !== storedEtag) await db.update(files).set({ storeEtag: storedEtag }).where(eq(files.id, file.id));
  return scrub;
}

export type Derived = {
  decoded: Awaited<ReturnType<typeof decodeImage>>;
  phash: string;
  /** As displayed: EXIF orientations 5-8 turn the stored image by 90 degrees. */
  width: number;
  height: number;
  stepErrors: string[];
};

/** Decodes (photon up to ANALYSIS.maxDecodePixels, a lean reduced-size decoder above) and derives the phash. */
export async function decodeAndDerive(bytes: Uint8Array, header: ImageHeader, orientation: number | null, skipNsfw: boolean): Promise<Derived | { undecodable: string }> {
  let decoded;
  try {
    decoded = await decodeImage(bytes, {
      header,
      orientation,
      thumbnailMaxSide: ANALYSIS.thumbnailMaxSide,
      thumbnailJpegQuality: ANALYSIS.thumbnailJpegQuality,
      nsfwSize: skipNsfw ? 0 : ANALYSIS.nsfwInputSize,
    });
  } catch (err) {
    if (err instanceof DecodeError) return { undecodable: err.message };
    throw err;
  }
  const phash = phashFromLuma(decoded.luma, decoded.lumaWidth, decoded.lumaHeight);
  const turned = orientation !== null && orientation >= 5;
  return { decoded, phash, width: turned ? decoded.height : decoded.width, height: turned ? decoded.width : decoded.height, stepErrors: [...decoded.stepErrors] };
}

/** Stores the thumbnail (served at {image_url}/<id>/thumb, Content-Type from R2 metadata); its key, or null. */
export async function storeThumbnail(env: Env, fileId: string, thumbnail: Thumbnail | null | undefined): Promise<string | null> {
  if (!thumbnail) return null;
  const key = thumbnailKey(fileId, thumbnail.extension);
  await env.BUCKET.put(key, thumbnail.bytes, {
    httpMetadata: { contentType: thumbnail.contentType, cacheControl: "public, max-age=31536000, immutable" },
    customMetadata: { fileId, width: String(thumbnail.width), height: String(thumbnail.height) },
  });
  return key;
}

/** ThumbHash and dominant colour from the thumbnail: optional, like the thumbnail. */
export async function derivePlaceholder(thumbnail: Thumbnail | null | undefined, stepErrors: string[]): Promise<Placeholder | null> {
  if (!thumbnail) return null;
  try {
    return await placeholderFromThumbnail(thumbnail);
  } catch (err) {
    stepErrors.push(`placeholder: ${message(err)}`);
    return null;
  }
}

export type NsfwResult = { score: number | null; features: string | null; code: string | null };

/**
 * The NSFW score and the near-duplicate features of the same inference. The model failing is recorded, not
 * fatal: the file then has no embedding and is matched by phash only.
 */
export async function scoreNsfw(input: Derived["decoded"]["nsfwInput"], stepErrors: string[]): Promise<NsfwResult> {
  if (!input) return { score: null, features: null, code: null };
  let score: number | null = null;
  try {
    const result = await classifyNsfw(input);
    score = result.score;
    const scored = { score, features: encodeFeatures(result.features), code: embeddingCode(result.features, result.featureCenter) };
    // Scored on the CPU backend (~40x the CPU time): worth seeing in analysisError.
    if (result.wasmError) stepErrors.push(`nsfw: wasm backend unavailable, scored on cpu: ${result.wasmError}`);
    return scored;
  } catch (err) {
    stepErrors.push(`nsfw: ${message(err)}`);
    return { score, features: null, code: null };
  }
}

type Result = Derived & { thumbKey: string | null; placeholder: Placeholder | null; nsfw: NsfwResult };

/**
 * The blocklist lookup and its report (the directory's), then every shard write in one transaction; the client's
 * NSFW hint stays the floor. The report comes first, only for a file not done when read: a job dying between the two
 * is redelivered, finds it not done and files the report again, which its upsert counts once (blocklist.ts).
 */
export async function recordResult(env: Env, dbs: DirectoryAndShard, file: FileRow, r: Result, force: boolean, now: number) {
  const db = dbs.shard;
  const nsfwScore = combinedScore(r.nsfw.score, file.clientNsfwScore);
  const ageRestricted = isAgeRestricted(nsfwScore, nsfwThreshold(env), file.ageRestrictedOverride);
  const blocklist = await matchBlocklist(dbs.directory, r.phash);
  const at = new Date(now);
  if (blocklist && file.analysis !== "done") await runBatch(dbs.directory, [blocklistReportStatement(dbs.directory, file.id, blocklist, at.getTime())]);
  const statements: Statement[] = [];
  statements.push(
    db
      .update(files)
      .set({
        width: r.width,
        height: r.height,
        phash: r.phash,
        nsfwScore,
        ageRestricted,
        analysis: "done",
        analysisFailure: null,
        analysisError: r.stepErrors.length ? r.stepErrors.join("; ").slice(0, 1000) : null,
        analyzedAt: at,
        updatedAt: at,
        // What this run did not produce keeps what an earlier one stored (a forced rerun whose model failed).
        ...(r.thumbKey !== null && { thumbKey: r.thumbKey }),
        ...(blocklist && { quarantinedAt: sql`COALESCE(${files.quarantinedAt}, ${at.getTime()})` }),
        ...(r.placeholder && { placeholder: r.placeholder.thumbhash }),
        ...(r.placeholder?.dominantColor && { dominantColor: r.placeholder.dominantColor }),
        ...(r.nsfw.features !== null && { embedding: r.nsfw.features }),
        ...(r.nsfw.code !== null && { embeddingCode: r.nsfw.code }),
      })
      .where(force ? eq(files.id, file.id) : and(eq(files.id, file.id), ne(files.analysis, "done"))),
  );
  // The band rows move from the values `file` was read with to these, in this transaction: a redelivered or
  // forced job leaves exactly the rows of what the files row holds.
  statements.push(...indexFileStatements(db, file, { phash: r.phash, embeddingCode: r.nsfw.code }));
  await runBatch(db, statements);
  return { nsfwScore, ageRestricted, blocklist };
}
