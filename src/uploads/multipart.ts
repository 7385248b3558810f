// The multipart flow on R2's native multipart API: no worker state between requests (resumeMultipartUpload per part),
// D1 remembers the parts received. Part digests combined are not a file digest, so a declared `sha256` is checked by
// streaming the assembled object back at complete; without it files.sha256 waits for the analysis (docs/uploads.md).
import { and, asc, eq, sql } from "drizzle-orm";
import { UPLOADS, type UploadMime } from "../config/uploads";
import { uploadParts, uploads, type UploadRow } from "../db/schema";
import type { ShardDb } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import { isId } from "../platform/data/ids";
import { apiUrl } from "../platform/http/urls";
import { pathOf } from "@imghost/client";
import { ownedBy, type Uploader } from "./access";
import { assertAcceptingBytes, assertNotEnded, endFailedUpload, failVerification, removeStoredBytes } from "./lifecycle";
import { endUpload, findUploadById, markBytesReceived, wrongFlow, type UploadWithFile } from "./records";
import { startUpload, type StartInput } from "./start";
import { putPart, storedSha256 } from "./streams";

export const partUrl = (env: Env, uploadId: string, partNumber: number) => apiUrl(env, pathOf("uploads.multipart.putPart", { uploadId, partNumber }));

/** Bytes of part `n` (1-based): every part but the last is exactly partSize, the last the remainder. */
export function partBytes(totalBytes: number, partSize: number, partNumber: number): number {
  const partCount = Math.ceil(totalBytes / partSize);
  return partNumber < partCount ? partSize : totalBytes - partSize * (partCount - 1);
}

const normalizeEtag = (etag: string) => etag.trim().replace(/^W\//, "").replace(/^"(.*)"$/, "$1");

export type InitInput = Omit<StartInput, "bytes"> & { totalBytes: number; partSize?: number };

export async function initMultipart(env: Env, db: ShardDb, uploader: Uploader, input: InitInput) {
  const partSize = input.partSize ?? UPLOADS.multipartPartBytes.default;
  const partCount = Math.ceil(input.totalBytes / partSize);
  if (partCount > UPLOADS.maxParts) {
    throw new ApiError("too_many_parts", `At most ${UPLOADS.maxParts} parts; use a larger partSize`, { partCount, maxParts: UPLOADS.maxParts });
  }
  const { totalBytes, partSize: _ignored, ...rest } = input;
  const started = await startUpload(env, db, uploader, { ...rest, bytes: totalBytes }, {
    kind: "multipart",
    partSize,
    partCount,
    createMultipart: async (key, mime) => (await env.BUCKET.createMultipartUpload(key, { httpMetadata: { contentType: mime } })).uploadId,
    abortMultipart: (key, id) => env.BUCKET.resumeMultipartUpload(key, id).abort(),
  });
  return {
    uploadId: started.uploadId,
    fileId: started.fileId,
    storeKey: started.storeKey,
    partSize,
    partCount,
    parts: Array.from({ length: partCount }, (_, i) => ({ partNumber: i + 1, url: partUrl(env, started.uploadId, i + 1) })),
    expiresAt: started.expiresAt.toISOString(),
    ...(started.uploadToken ? { uploadToken: started.uploadToken, deleteToken: started.deleteToken } : {}),
  };
}

async function ownedMultipart(db: ShardDb, uploader: Uploader, uploadId: string): Promise<UploadWithFile & { upload: UploadRow & { r2UploadId: string; partSize: number; partCount: number } }> {
  const record = ownedBy(uploader, isId("upl", uploadId) ? await findUploadById(db, uploadId) : undefined);
  const { upload } = record;
  if (upload.kind !== "multipart" || !upload.r2UploadId || !upload.partSize || !upload.partCount) {
    throw wrongFlow("not_multipart", upload);
  }
  return record as never;
}

export async function receivePart(env: Env, db: ShardDb, uploader: Uploader, uploadId: string, partNumber: number, request: Request) {
  const record = await ownedMultipart(db, uploader, uploadId);
  const { upload, file } = record;
  assertAcceptingBytes(upload, new Date());
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > upload.partCount) {
    throw new ApiError("invalid_part_number", `partNumber must be 1 to ${upload.partCount}`, { partCount: upload.partCount });
  }
  const expected = partBytes(upload.bytes, upload.partSize, partNumber);
  const length = request.headers.get("content-length");
  if (length === null) {
    throw new ApiError("length_required", `Send Content-Length: ${expected} with part ${partNumber}`, { expected });
  }
  // A wrong-sized part is refused before anything is stored; the upload stays open for a correct one.
  if (Number(length) !== expected || request.body === null) {
    throw new ApiError("size_mismatch", `Part ${partNumber} must be exactly ${expected} bytes`, { expected, received: Number(length) || 0 });
  }

  const r2 = env.BUCKET.resumeMultipartUpload(file.storeKey, upload.r2UploadId);
  const sniffAs = partNumber === 1 ? (file.mime as UploadMime) : undefined;
  const outcome = await putPart(r2, partNumber, request.body, expected, sniffAs);
  if (!outcome.ok) {
    if (outcome.reason === "magic_mismatch") throw await failVerification(env, db, record, "magic_mismatch");
    throw new ApiError("incomplete_body", "The request body ended early");
  }

  // Recorded only while the upload is still open; re-sending a part replaces it.
  const now = Date.now();
  // INSERT ... SELECT <values> FROM uploads WHERE <still pending> ON CONFLICT DO UPDATE: no row while it is not.
  const res = await db
    .insert(uploadParts)
    .select(
      db
        .select({
          uploadId: uploads.id,
          partNumber: sql<number>`${partNumber}`.as("part_number"),
          etag: sql<string>`${outcome.part.etag}`.as("etag"),
          bytes: sql<number>`${expected}`.as("bytes"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(uploads)
        .where(and(eq(uploads.id, upload.id), eq(uploads.state, "pending"))),
    )
    .onConflictDoUpdate({
      target: [uploadParts.uploadId, uploadParts.partNumber],
      set: { etag: sql`excluded.etag`, bytes: sql`excluded.bytes`, createdAt: sql`excluded.created_at` },
    });
  if (res.meta.changes !== 1) {
    const current = await findUploadById(db, upload.id);
    assertAcceptingBytes(current?.upload ?? upload, new Date());
  }
  return { partNumber, etag: outcome.part.etag };
}

async function recordedParts(db: ShardDb, uploadId: string) {
  return db
    .select({ partNumber: uploadParts.partNumber, etag: uploadParts.etag, bytes: uploadParts.bytes })
    .from(uploadParts)
    .where(eq(uploadParts.uploadId, uploadId))
    .orderBy(asc(uploadParts.partNumber));
}

export async function describeMultipart(db: ShardDb, uploader: Uploader, uploadId: string) {
  const { upload, file } = await ownedMultipart(db, uploader, uploadId);
  const parts = upload.state === "pending" ? await recordedParts(db, upload.id) : [];
  return {
    uploadId: upload.id,
    fileId: file.id,
    storeKey: file.storeKey,
    state: upload.state,
    totalBytes: upload.bytes,
    partSize: upload.partSize,
    partCount: upload.partCount,
    expiresAt: upload.expiresAt.toISOString(),
    parts,
  };
}

const invalidPart = (message: string, extra: Record<string, unknown> = {}) => new ApiError("invalid_part", message, extra);

/** Why a client's parts list does not match the parts received, or null when it does. */
function partListRefusal(listed: CompleteInput["parts"], recorded: { partNumber: number; etag: string }[], partCount: number): ApiError | null {
  const byNumber = new Map(recorded.map((p) => [p.partNumber, p]));
  if (listed.length !== partCount) return invalidPart(`Expected ${partCount} parts, got ${listed.length}`, { expected: partCount });
  const seen = new Set<number>();
  for (const p of listed) {
    const mine = byNumber.get(p.partNumber);
    if (seen.has(p.partNumber)) return invalidPart(`Part ${p.partNumber} is listed twice`, { partNumber: p.partNumber });
    seen.add(p.partNumber);
    if (!mine) return invalidPart(`Part ${p.partNumber} was not uploaded`, { partNumber: p.partNumber });
    if (normalizeEtag(p.etag) !== normalizeEtag(mine.etag)) return invalidPart(`Wrong etag for part ${p.partNumber}`, { partNumber: p.partNumber });
  }
  return null;
}

export type CompleteInput = { uploadId: string; fileId: string; storeKey: string; parts: { partNumber: number; etag: string }[] };

export async function completeMultipart(env: Env, db: ShardDb, uploader: Uploader, input: CompleteInput) {
  const record = await ownedMultipart(db, uploader, input.uploadId);
  const { upload, file } = record;
  if (file.id !== input.fileId) throw new ApiError("upload_mismatch", "fileId does not belong to this upload", { field: "fileId" });
  if (file.storeKey !== input.storeKey) throw new ApiError("upload_mismatch", "storeKey does not belong to this upload", { field: "storeKey" });
  const done = (etag: string | null) => ({ fileId: file.id, storeEtag: etag ?? "", bytes: upload.bytes, status: "ready" as const });
  // A retried complete (e.g. after a lost response) answers as the first did.
  if (upload.state === "uploaded" || upload.state === "finalized") return done(upload.storeEtag);
  assertAcceptingBytes(upload, new Date());

  const recorded = await recordedParts(db, upload.id);
  const refusal = partListRefusal(input.parts, recorded, upload.partCount);
  if (refusal) {
    // The owner's own complete with a wrong parts list ends the upload: nothing assembled stays, the parts
    // are aborted and the reservation released (the client starts again, as after any failed check).
    await endFailedUpload(env, db, record, "invalid_part");
    throw refusal;
  }

  const r2 = env.BUCKET.resumeMultipartUpload(file.storeKey, upload.r2UploadId);
  let object: R2Object;
  try {
    object = await r2.complete(recorded.map((p) => ({ partNumber: p.partNumber, etag: p.etag })));
  } catch (err) {
    const current = await findUploadById(db, upload.id);
    if (current && (current.upload.state === "uploaded" || current.upload.state === "finalized")) return done(current.upload.storeEtag);
    if (current) assertNotEnded(current.upload, new Date());
    console.error(`upload ${upload.id}: R2 refused to complete`, err);
    throw invalidPart("Storage refused the parts; re-send them and complete again");
  }

  if (object.size !== upload.bytes) throw await failVerification(env, db, record, "size_mismatch", object.size);
  if (upload.sha256 && (await storedSha256(env.BUCKET, file.storeKey)) !== upload.sha256) {
    throw await failVerification(env, db, record, "checksum_mismatch");
  }

  const now = new Date();
  const etag = object.httpEtag;
  // The parts list is only needed until the object is assembled.
  const dropParts = db.delete(uploadParts).where(and(eq(uploadParts.uploadId, upload.id), sql`(SELECT state FROM uploads WHERE id = ${upload.id}) = 'uploaded'`));
  const applied = await markBytesReceived(db, upload, etag, now, [dropParts]);
  if (!applied) {
    const current = await findUploadById(db, upload.id);
    if (current && (current.upload.state === "uploaded" || current.upload.state === "finalized")) return done(current.upload.storeEtag);
    await removeStoredBytes(env, db, upload, file.storeKey, now);
    if (current) assertNotEnded(current.upload, now);
    throw new ApiError("upload_ended", "This upload ended during completion");
  }
  return done(etag);
}

export async function abortMultipart(env: Env, db: ShardDb, uploader: Uploader, uploadId: string) {
  const { upload, file } = await ownedMultipart(db, uploader, uploadId);
  if (upload.state === "finalized") throw new ApiError("already_finalized", "This upload is finalized; delete the file instead");
  if (upload.state === "aborted") return { message: "Upload aborted" };
  if (upload.state === "failed" || upload.state === "expired") assertNotEnded(upload, new Date());
  const now = new Date();
  if (!(await endUpload(db, upload, "aborted", now))) {
    const current = await findUploadById(db, upload.id);
    if (current?.upload.state === "aborted") return { message: "Upload aborted" };
    if (current?.upload.state === "finalized") throw new ApiError("already_finalized", "This upload is finalized; delete the file instead");
    if (current) assertNotEnded(current.upload, now);
    throw new ApiError("upload_state_changed", "The upload changed state; try again");
  }
  // If this fails the file stays failed and unpurged, and the cleanup job retries the removal.
  await removeStoredBytes(env, db, upload, file.storeKey, now).catch((err) => console.error(`upload ${upload.id}: abort cleanup failed`, err));
  return { message: "Upload aborted" };
}
