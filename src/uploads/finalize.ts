// POST /upload/finalize: ties the upload's identifiers together, commits the quota reservation, reports
// exact duplicates and hands the file to the analysis job, then waits (within FINALIZE_WAIT_MS) for the
// job's answer: phash, NSFW score, true size, near-duplicates. Idempotent: the answer is stored with the
// state change (one batch; finalize-answer.ts says what of it), so a repeated call enqueues nothing new and
// returns the stored answer brought up to date with the analysis.
import { and, asc, eq, isNull, ne } from "drizzle-orm";
import { files } from "../db/schema";
import type { DirectoryAndShard, ShardDb } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import { finalizeBlocklistReportStatement, matchBlocklist } from "../analysis/blocklist";
import { nsfwThreshold } from "../analysis/nsfw";
import { jobQueue } from "../platform/data/job-messages";
import { emitAfterResponse } from "../webhooks/emit";

type WaitUntil = Pick<ExecutionContext, "waitUntil">;
import { isId } from "../platform/data/ids";
import { cdnUrl, fileUrl } from "../platform/http/urls";
import { UPLOADS } from "../config/uploads";
import { ownedBy, type Uploader } from "./access";
import { assertNotEnded } from "./lifecycle";
import { findUploadById, transitionUpload, wrongFlow, type UploadWithFile } from "./records";
import { finalizeWaitMs, waitForAnalysis } from "./analysis-wait";
import { storedAnswer, storedFinalize, type FinalizeResponse, type StoredFinalize } from "./finalize-answer";
import type { Duplicate } from "../analysis/duplicates";
import { findDuplicates } from "../files/duplicate-lookup";
import { joinAlbumStatements } from "../albums/queries";
import type { FileRow } from "../db/schema";

export type FinalizeInput = {
  uploadId: string;
  fileId: string;
  storeKey: string;
  storeEtag: string;
  width?: number;
  height?: number;
  phash?: string;
  nsfwScore?: number;
};

const normalizeEtag = (etag: string) => etag.trim().replace(/^W\//, "").replace(/^"(.*)"$/, "$1");

/** Exact duplicates by content hash among the caller's own live, finalized files. */
async function exactDuplicates(env: Env, db: ShardDb, userId: string | null, fileId: string, sha256: string | null): Promise<Duplicate[]> {
  if (!userId || !sha256) return [];
  const rows = await db
    .select({ id: files.id })
    .from(files)
    .where(
      and(
        eq(files.userId, userId),
        eq(files.sha256, sha256),
        eq(files.state, "finalized"),
        ne(files.id, fileId),
        isNull(files.deletedAt),
        isNull(files.bannedAt),
        isNull(files.purgedAt),
      ),
    )
    .orderBy(asc(files.createdAt))
    .limit(UPLOADS.duplicatesLimit);
  return rows.map((r) => ({ fileId: r.id, url: fileUrl(env, r.id), distance: 0, match: "exact" as const }));
}

function checkIdentifiers(record: UploadWithFile, input: FinalizeInput) {
  const { upload, file } = record;
  const mismatch = (field: string) => new ApiError("upload_mismatch", `${field} does not belong to this upload`, { field });
  if (upload.fileId !== input.fileId) throw mismatch("fileId");
  if (file.storeKey !== input.storeKey) throw mismatch("storeKey");
  // Checked only once the bytes are in (before that there is no etag to compare).
  if (upload.storeEtag && normalizeEtag(upload.storeEtag) !== normalizeEtag(input.storeEtag)) throw mismatch("storeEtag");
}

/**
 * The stored answer brought up to date with the analysis: once it is done, the server's phash, score,
 * size and duplicates (exact and similar) replace the client's hints; a failure gives its reason.
 */
async function withAnalysis(env: Env, db: ShardDb, stored: FinalizeResponse, file: FileRow | undefined): Promise<FinalizeResponse> {
  const body: FinalizeResponse = { ...stored, analysis: "pending", analysisError: null, placeholder: null, dominantColor: null };
  if (!file) return body;
  if (file.quarantinedAt) throw blockedContent(); // the analysis found it on the blocklist
  if (file.analysis === "failed") return { ...body, analysis: "failed", analysisError: file.analysisError };
  if (file.analysis !== "done") return body;
  return {
    ...body,
    width: file.width,
    height: file.height,
    phash: file.phash,
    nsfwScore: file.nsfwScore,
    ageRestricted: file.ageRestricted,
    visibility: file.visibility,
    duplicates: await findDuplicates(db, env, file),
    analysis: "done",
    analysisError: file.analysisError, // optional steps that failed (thumbnail, model), if any
    placeholder: file.placeholder,
    dominantColor: file.dominantColor,
  };
}

/** Waits for the analysis job (within FINALIZE_WAIT_MS), then answers with what it found. */
async function answerWithAnalysis(env: Env, db: ShardDb, stored: FinalizeResponse, fileId: string): Promise<FinalizeResponse> {
  return withAnalysis(env, db, stored, await waitForAnalysis(env, fileId, finalizeWaitMs(env)));
}

function answerFromState(env: Env, record: UploadWithFile, now: Date): FinalizeResponse {
  const { upload } = record;
  if (upload.state === "finalized" && record.file.quarantinedAt) throw blockedContent();
  if (upload.state === "finalized" && upload.finalizeResponse) return storedAnswer(env, record.file, upload.finalizeResponse as StoredFinalize | FinalizeResponse);
  if (upload.state === "pending") throw wrongFlow("not_uploaded", upload);
  assertNotEnded(upload, now);
  throw new ApiError("upload_state_changed", "The upload changed state; try again");
}

/** A finalized upload's answer as it stands now, without waiting for the analysis (status reads). */
export async function finalizedAnswer(env: Env, db: ShardDb, record: UploadWithFile): Promise<FinalizeResponse> {
  return withAnalysis(env, db, answerFromState(env, record, new Date()), record.file);
}

/** file.created's data: the finalize answer's description of the file (not its analysis, which comes later). */
function fileCreatedData(body: FinalizeResponse): Record<string, unknown> {
  const { fileId, url, cdnUrl, mime, bytes, width, height, visibility, expiresAt } = body;
  return { fileId, url, cdnUrl, mime, bytes, width, height, visibility, expiresAt };
}

const blockedContent = () =>
  new ApiError("blocked_content", "This image matches content removed by moderation; it has been withheld and reported");

/**
 * On the upload's shard; the directory only for the client's phash hint: the blocklist lookup and, on a match,
 * the report (the analysis job checks the real hash later). The file.created webhook event reads the directory
 * after the answer (`ctx.waitUntil`), so finalize waits on no directory round trip.
 */
export async function finalizeUpload(env: Env, ctx: WaitUntil, dbs: DirectoryAndShard, uploader: Uploader, input: FinalizeInput): Promise<FinalizeResponse> {
  const db = dbs.shard;
  const record = ownedBy(uploader, isId("upl", input.uploadId) ? await findUploadById(db, input.uploadId) : undefined);
  checkIdentifiers(record, input);
  const { upload, file } = record;
  const now = new Date();
  if (upload.state !== "uploaded" || upload.expiresAt.getTime() <= now.getTime()) return answerWithAnalysis(env, db, answerFromState(env, record, now), file.id);

  // Client hints: dimensions and phash until the analysis job has the real ones; a client nsfwScore can
  // only raise the score (decisions.md: it never lowers the server's).
  const clientScore = input.nsfwScore ?? null;
  const nsfwScore = clientScore === null ? file.nsfwScore : Math.max(file.nsfwScore ?? 0, clientScore);
  const ageRestricted = file.ageRestrictedOverride ?? (nsfwScore !== null && nsfwScore >= nsfwThreshold(env));
  const width = file.width ?? input.width ?? null;
  const height = file.height ?? input.height ?? null;
  const clientPhash = input.phash?.toLowerCase() ?? null;
  // decisions.md § Moderation: an upload whose phash is within the blocklist distance of a banned file is
  // refused at finalize and reported. The hint is checked here; the analysis job checks the real hash later.
  const blocked = clientPhash ? await matchBlocklist(dbs.directory, clientPhash) : null;

  const body: FinalizeResponse = {
    fileId: file.id,
    url: fileUrl(env, file.id),
    cdnUrl: cdnUrl(env, file.storeKey),
    mime: file.mime,
    bytes: file.bytes,
    width,
    height,
    nsfwScore,
    ageRestricted,
    visibility: file.visibility,
    expiresAt: file.expiresAt?.toISOString() ?? null,
    phash: file.phash ?? clientPhash,
    duplicates: await exactDuplicates(env, db, upload.userId, file.id, file.sha256),
    analysis: "pending",
    analysisError: null,
    placeholder: null,
    dominantColor: null,
  };

  const applied = await transitionUpload(db, {
    upload,
    from: ["uploaded"],
    to: "finalized",
    quota: "commit",
    // The answer's changeable part is kept for a repeated call; what only the PUT needed goes.
    uploadSet: { finalizeResponse: storedFinalize(body), sha256: null, r2UploadId: null },
    fileFrom: ["uploaded"],
    fileSet: {
      state: "finalized",
      finalizedAt: now,
      width,
      height,
      clientPhash,
      clientNsfwScore: clientScore,
      nsfwScore,
      ageRestricted,
      analysis: "pending",
      ...(blocked ? { quarantinedAt: now } : {}),
    },
    // The album the upload named (extensions.md § 8), in the same transaction: the file is in it from finalize on.
    extra: upload.albumId && upload.userId ? joinAlbumStatements(db, upload.albumId, upload.userId, file.id, now.getTime()) : [],
    now,
  });
  if (!applied) {
    // A concurrent finalize won (same answer), or the upload ended meanwhile.
    const current = await findUploadById(db, upload.id);
    return answerWithAnalysis(env, db, answerFromState(env, current ?? record, now), file.id);
  }

  if (blocked) {
    // Quarantined, not deleted: moderators review the bytes through the report.
    await finalizeBlocklistReportStatement(dbs.directory, file.id, blocked, now.getTime());
  }
  // Started once the answer is known: the event's read of the directory is not waited for.
  const created = () => emitAfterResponse(ctx, env, dbs.directory, upload.userId, "file.created", fileCreatedData(body));
  try {
    await jobQueue(env).send({ type: "analyze", fileId: file.id });
  } catch (err) {
    // The file is finalized either way; it keeps analysis "pending" and shows the client's hints.
    // Nothing to wait for: the requeue job re-sends it later.
    console.error(`finalize ${file.id}: could not enqueue the analysis job`, err);
    if (blocked) throw blockedContent();
    created();
    return body;
  }
  if (blocked) throw blockedContent();
  const answer = await answerWithAnalysis(env, db, body, file.id);
  created();
  return answer;
}
