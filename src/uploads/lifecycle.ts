// Shared rules of an upload's life: which state allows what, and how a failed verification ends it so that
// nothing stays behind (no object, no live record, no reservation).
import type { ShardDb } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import type { ErrorCode } from "../platform/errors/error-codes";
import type { UploadRow } from "../db/schema";
import { endUpload, markFilePurged, type UploadWithFile } from "./records";
import { tusState } from "./tus/upload-state";

/** 410 for an upload that ended (or whose time ran out), 409 when the bytes are already in. */
export function assertAcceptingBytes(upload: UploadRow, now: Date) {
  if (upload.state === "uploaded" || upload.state === "finalized") {
    throw new ApiError("already_uploaded", "The bytes of this upload have already been received");
  }
  assertNotEnded(upload, now);
}

/** What assertNotEnded answers: the routes that check it declare these. */
export const UPLOAD_ENDED_ERRORS = ["upload_aborted", "upload_failed", "upload_expired"] as const satisfies readonly ErrorCode[];

export function assertNotEnded(upload: UploadRow, now: Date) {
  if (upload.state === "aborted") throw new ApiError("upload_aborted", "This upload was aborted; start a new one");
  if (upload.state === "failed") throw new ApiError("upload_failed", "This upload failed verification; start a new one");
  if (upload.state === "expired" || (upload.state !== "finalized" && upload.expiresAt.getTime() <= now.getTime())) {
    throw new ApiError("upload_expired", "This upload expired; start a new one");
  }
}

export type VerificationFailure = "magic_mismatch" | "size_mismatch" | "checksum_mismatch";

export function verificationError(reason: VerificationFailure, record: UploadWithFile, receivedBytes?: number): ApiError {
  const { upload, file } = record;
  switch (reason) {
    case "magic_mismatch":
      return new ApiError("magic_mismatch", `The file's first bytes are not those of ${file.mime}`, { mime: file.mime });
    case "size_mismatch":
      return new ApiError("size_mismatch", `Expected exactly ${upload.bytes} bytes`, {
        expected: upload.bytes,
        ...(receivedBytes !== undefined ? { received: receivedBytes } : {}),
      });
    case "checksum_mismatch":
      return new ApiError("checksum_mismatch", "The SHA-256 of the bytes received does not match the one declared");
  }
}

/**
 * Removes whatever R2 holds for the file (object and/or open multipart upload), and a tus upload's state (its
 * held bytes), and marks the file purged.
 */
export async function removeStoredBytes(
  env: Pick<Env, "BUCKET" | "TUS_UPLOADS">,
  db: ShardDb,
  upload: Pick<UploadRow, "fileId" | "kind" | "r2UploadId">,
  storeKey: string,
  now: Date,
) {
  if (upload.kind !== "direct" && upload.r2UploadId) {
    // fails when the multipart upload was already completed or aborted: then there is nothing to abort
    await env.BUCKET.resumeMultipartUpload(storeKey, upload.r2UploadId).abort().catch(() => undefined);
  }
  if (upload.kind === "tus") await tusState(env, upload.fileId).destroy();
  await env.BUCKET.delete(storeKey);
  await markFilePurged(db, upload.fileId, now);
}

/**
 * Ends a pending upload whose bytes failed verification: reservation released, upload and file failed,
 * stored bytes removed. Only the request that wins the state change removes bytes, so a concurrent
 * successful upload of the same file is never deleted. Returns the error to answer with.
 */
export async function failVerification(
  env: Env,
  db: ShardDb,
  record: UploadWithFile,
  reason: VerificationFailure,
  receivedBytes?: number,
): Promise<ApiError> {
  await endFailedUpload(env, db, record, reason);
  return verificationError(reason, record, receivedBytes);
}

/** The state change and clean-up behind every failed upload: failed, reservation released, bytes removed. */
export async function endFailedUpload(env: Env, db: ShardDb, record: UploadWithFile, reason: string): Promise<void> {
  const now = new Date();
  if (await endUpload(db, record.upload, "failed", now, ["pending"])) {
    // Failing here leaves the file failed and unpurged; the cleanup job retries the removal.
    await removeStoredBytes(env, db, record.upload, record.file.storeKey, now).catch((err) =>
      console.error(`upload ${record.upload.id}: removing bytes after ${reason} failed`, err),
    );
  }
}
