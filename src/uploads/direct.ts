// PUT /upload/direct/:fileId: the body streams into R2 at the file's storeKey and is verified against the
// presign (magic bytes, length, SHA-256). A body that fails any check is not kept and ends the upload.
import type { UploadMime } from "../config/uploads";
import type { ShardDb } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import { isId } from "../platform/data/ids";
import { fileUrl } from "../platform/http/urls";
import { ownedBy, type Uploader } from "./access";
import { assertAcceptingBytes, failVerification, removeStoredBytes } from "./lifecycle";
import { findUploadByFileId, markBytesReceived, wrongFlow } from "./records";
import { putBytesVerified, putVerified } from "./streams";

export type DirectUploadResult = {
  body: { fileId: string; url: string; mime: string; bytes: number; status: "ready" };
  etag: string;
};

const mediaType = (header: string | null) => header?.split(";")[0].trim().toLowerCase() || null;

/**
 * `inMemory`: the body is already buffered (POST /upload/form), so it is checked and stored without the
 * streaming tee; the request then only carries the headers.
 */
export async function receiveDirectUpload(
  env: Env,
  db: ShardDb,
  uploader: Uploader,
  fileId: string,
  request: Request,
  inMemory?: Uint8Array,
): Promise<DirectUploadResult> {
  const record = ownedBy(uploader, isId("file", fileId) ? await findUploadByFileId(db, fileId) : undefined);
  const { upload, file } = record;
  if (upload.kind !== "direct") throw wrongFlow("multipart_upload", upload);
  assertAcceptingBytes(upload, new Date());

  // A Content-Type that names another image type is a client mistake caught before any byte is read.
  const contentType = mediaType(request.headers.get("content-type"));
  if (contentType && contentType !== "application/octet-stream" && contentType !== file.mime) {
    throw new ApiError("content_type_mismatch", `Content-Type is ${contentType} but the upload was presigned as ${file.mime}`, {
      expected: file.mime,
    });
  }
  const length = request.headers.get("content-length");
  if ((length !== null && Number(length) !== upload.bytes) || (request.body === null && !inMemory)) {
    throw await failVerification(env, db, record, "size_mismatch", length !== null ? Number(length) : 0);
  }
  // Presign requires the digest. Only an upload from a URL streams bytes nobody could hash beforehand
  // (uploads/from-url.ts): those are hashed on the way in (their body carries no Content-Length).
  const sha256 = upload.sha256 ?? undefined;
  if (inMemory && !sha256) throw new Error(`direct upload ${upload.id} has no sha256`);

  const expected = { bytes: upload.bytes, sha256, mime: file.mime as UploadMime, fileId: file.id };
  const outcome = inMemory
    ? await putBytesVerified(env.BUCKET, file.storeKey, inMemory, { ...expected, sha256: sha256! })
    : await putVerified(env.BUCKET, file.storeKey, request.body!, expected, length !== null);
  if (!outcome.ok) {
    if (outcome.reason === "interrupted") {
      // The client went away mid-body: nothing was stored, the upload stays pending for a retry.
      throw new ApiError("incomplete_body", "The request body ended early");
    }
    throw await failVerification(env, db, record, outcome.reason, outcome.receivedBytes);
  }

  const now = new Date();
  const etag = outcome.object.httpEtag;
  const applied = await markBytesReceived(db, { ...upload, sha256: outcome.sha256 }, etag, now);
  if (!applied) {
    const current = await findUploadByFileId(db, fileId);
    const state = current?.upload.state;
    // Another PUT of the same (verified, hence identical) bytes won: its object is this object.
    if (state === "uploaded" || state === "finalized") throw new ApiError("already_uploaded", "The bytes of this upload have already been received");
    // The upload ended meanwhile (expired by cleanup, aborted): the object must not stay.
    await removeStoredBytes(env, db, upload, file.storeKey, now);
    assertAcceptingBytes(current?.upload ?? { ...upload, state: "expired" }, now);
    throw new ApiError("upload_state_changed", "The upload changed state during the transfer");
  }
  return {
    body: { fileId: file.id, url: fileUrl(env, file.id), mime: file.mime, bytes: upload.bytes, status: "ready" },
    etag,
  };
}
