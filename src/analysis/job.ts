// The analysis queue job ({ type: "analyze", fileId }, sent by finalize); its steps: docs/analysis.md, ./README.md.
// Delivery is at least once, so it is idempotent: a `done` or `failed` file is left alone, every write is an upsert
// or conditional on `analysis <> 'done'`, and the final writes are one D1 batch. Failures of the image (too large,
// undecodable) end `failed` and are acked; the platform's (R2, D1) are thrown for the queue's retries, then the
// dead-letter consumer (onDeadLetter) records `failed`. Optional steps that fail are noted in analysisError.
import { and, eq, inArray, ne, sql } from "drizzle-orm";
import { ANALYSIS } from "../config";
import { files, type FileRow } from "../db/schema";
import type { AnalyzeMessage, JobHandler } from "../platform/data/job-messages";
import { directoryDb, type ShardDb } from "../platform/data/db";
import { isId } from "../platform/data/ids";
import type { BlocklistMatch } from "./blocklist";
import { inspectImage } from "./header";
import type { Placeholder } from "./placeholder";
import { accessChanged } from "../serving/access-changed";
import { decodeAndDerive, derivePlaceholder, fileToAnalyse, message, readObject, recordResult, scoreNsfw, scrubPrivateMetadata, storeThumbnail } from "./job-steps";
import { lookupFollowing, shardDbOf } from "../platform/data/moved-ids";

export type AnalysisOutcome =
  | { status: "skipped"; reason: string }
  | { status: "failed"; reason: string }
  | {
      status: "done";
      width: number;
      height: number;
      phash: string;
      nsfwScore: number | null;
      ageRestricted: boolean;
      /** The analysis made the file age-restricted (it was not before): file.flagged. */
      newlyAgeRestricted: boolean;
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

type Failure = NonNullable<FileRow["analysisFailure"]>;

/** Records a final failure (about the image itself): its code and message; never overwrites a completed analysis. */
async function recordFailure(env: Env, db: ShardDb, fileId: string, code: Failure, reason: string, now: number): Promise<AnalysisOutcome> {
  const at = new Date(now);
  await db
    .update(files)
    .set({ analysis: "failed", analysisFailure: code, analysisError: reason, analyzedAt: at, updatedAt: at })
    .where(and(eq(files.id, fileId), ne(files.analysis, "done")));
  await accessChanged(env, { fileIds: [fileId] }); // its thumbnail link stops saying "Processing…"
  return { status: "failed", reason };
}

/** Analyses one file; returns what it did. Throws on errors worth retrying. */
export async function analyzeFile(env: Env, fileId: string, options: AnalyzeOptions = {}): Promise<AnalysisOutcome> {
  const now = options.now ?? Date.now;
  // The primary (no session) of the file's shard (its id names it): the consumer writes, and finalize's wait
  // reads what it wrote from there.
  const db = shardDbOf(env, "file", fileId);
  const found = await fileToAnalyse(db, fileId, options.force === true);
  if ("skipped" in found) return { status: "skipped", reason: found.skipped };
  const { file } = found;
  const fail = (code: Failure, reason: string) => recordFailure(env, db, fileId, code, reason, now());

  const read = await readObject(env, file);
  if ("tooLarge" in read) return fail("file_too_large", read.tooLarge);
  const scrub = await scrubPrivateMetadata(env, db, file, read.object, read.bytes); // even for images refused below

  const header = inspectImage(read.bytes, { maxPixels: ANALYSIS.maxPixels, maxFrames: ANALYSIS.maxFrames }); // safety before decode
  if (!header.ok) return fail(header.code, header.reason);
  const derived = await decodeAndDerive(read.bytes, header, scrub.orientation, options.skipNsfw === true);
  if ("undecodable" in derived) return fail("unreadable", derived.undecodable);

  const thumbKey = await storeThumbnail(env, fileId, derived.decoded.thumbnail);
  const placeholder = await derivePlaceholder(derived.decoded.thumbnail, derived.stepErrors);
  const nsfw = await scoreNsfw(derived.decoded.nsfwInput, derived.stepErrors);
  const result = { ...derived, thumbKey, placeholder, nsfw };
  const recorded = await recordResult(env, { directory: directoryDb(env), shard: db }, file, result, options.force === true, now());
  await accessChanged(env, { fileIds: [fileId] }); // byte links see the thumbnail (and a blocklist quarantine) at once

  const { width, height, phash, stepErrors } = derived;
  const { ageRestricted } = recorded;
  const newlyAgeRestricted = ageRestricted && !file.ageRestricted;
  return { status: "done", width, height, phash, nsfwScore: recorded.nsfwScore, ageRestricted, newlyAgeRestricted, embeddingCode: nsfw.code, thumbKey, placeholder, scrubbed: scrub.findings, blocklist: recorded.blocklist, stepErrors };
}

/** The primary of the shard the file lives on now (followed: a moved owner's file, or an id from before shards). */
async function fileShardDb(env: Env, fileId: string) {
  const db = shardDbOf(env, "file", fileId);
  await lookupFollowing(db, fileId, () => db.select({ id: files.id }).from(files).where(eq(files.id, fileId)).get());
  return db;
}

function fileIdOf(body: AnalyzeMessage): string | null {
  return typeof body.fileId === "string" && isId("file", body.fileId) ? body.fileId : null;
}

/** Told of each analysis that ended (done or failed), e.g. to send file.analyzed; a failure here is only logged. */
export type AnalysisListener = (env: Env, fileId: string, outcome: Exclude<AnalysisOutcome, { status: "skipped" }>) => Promise<void>;

/** The queue handler: jobHandlers.analyze (src/jobs/queue.ts), which adds the listener from above this layer. */
export const analyzeJobWith = (listener?: AnalysisListener): JobHandler<AnalyzeMessage> => ({
  async run(env, body) {
    const fileId = fileIdOf(body);
    if (!fileId) {
      console.error("analyze: message without a valid fileId; dropped", body);
      return;
    }
    try {
      const outcome = await analyzeFile(env, fileId, { force: body.force === true });
      if (outcome.status !== "done") console.log(`analyze ${fileId}: ${outcome.status} (${outcome.reason})`);
      if (listener && outcome.status !== "skipped") {
        await listener(env, fileId, outcome).catch((err) => console.error(`analyze ${fileId}: listener failed`, err));
      }
    } catch (err) {
      // Keep the last error so the dead-letter handler can say why the analysis gave up.
      await fileShardDb(env, fileId)
        .then((db) => db.update(files).set({ analysisError: message(err) }).where(and(eq(files.id, fileId), inArray(files.analysis, ["none", "pending"]))))
        .catch(() => undefined);
      throw err;
    }
  },
  async onDeadLetter(env, body) {
    const fileId = fileIdOf(body);
    if (!fileId) return;
    const now = new Date();
    await (await fileShardDb(env, fileId))
      .update(files)
      .set({
        analysis: "failed",
        analysisFailure: "gave_up",
        analysisError: sql`'gave up after retries: ' || COALESCE(${files.analysisError}, 'unknown error')`,
        analyzedAt: now,
        updatedAt: now,
      })
      .where(and(eq(files.id, fileId), inArray(files.analysis, ["none", "pending"])));
  },
});

export const analyzeJob = analyzeJobWith();

