// tus uploads (extensions.md § 1) over the upload records every flow shares: creation is presign's start (limits,
// quota reservation, records) with an R2 multipart upload behind it; the bytes go to the upload's Durable Object
// (./upload-state.ts), which assembles the parts; the last byte runs the same completion as the other flows
// (markBytesReceived, then finalizeUpload: charge, analysis, duplicates, the bounded wait).
import { TUS } from "../../config/uploads";
import type { DirectoryAndShard, ShardDb } from "../../platform/data/db";
import { ApiError } from "../../platform/errors/errors";
import { isId } from "../../platform/data/ids";
import { ownedBy, uploadNotFound, type Uploader } from "../access";
import { finalizeUpload, finalizedAnswer } from "../finalize";
import type { FinalizeResponse } from "../finalize-answer";
import { endUpload, findUploadById, markBytesReceived, type UploadWithFile } from "../records";
import { failVerification, removeStoredBytes } from "../lifecycle";
import { SNIFF_BYTES, magicMatches } from "../magic";
import { startUpload } from "../start";
import { storedSha256 } from "../streams";
import type { UploadMime } from "../../config/uploads";
import type { AppendResult, Assembled } from "./assembly";
import { bodyToSend, hasBytes, type Chunk } from "./chunk";
import { parseMetadata } from "./protocol";
import { startFromMetadata } from "./metadata";
import { tusState } from "./upload-state";

type WaitUntil = Pick<ExecutionContext, "waitUntil">;
export type TusProgress = { offset: number; length: number; expiresAt: Date; file?: FinalizeResponse };

/** The caller's tus upload, or 404 for anyone else (another user, another upload token, no credentials). */
export async function findTusUpload(db: ShardDb, uploader: Uploader, uploadId: string): Promise<UploadWithFile> {
  const record = isId("upl", uploadId) ? await findUploadById(db, uploadId) : undefined;
  if (!record || record.upload.kind !== "tus" || uploader.kind === "anonymous") throw uploadNotFound();
  try {
    return ownedBy(uploader, record);
  } catch {
    throw uploadNotFound();
  }
}

/** The shard handle of an album id: albums live on their owner's shard, which their id names. */
export type AlbumShard = (albumId: string) => ShardDb;

/**
 * `albumDb` gives the shard an album id names. The metadata's album must be the caller's own (uploads/album.ts);
 * the file joins it at finalize, as every flow's does (extensions.md § 8).
 */
export async function createTusUpload(
  env: Env,
  ctx: WaitUntil,
  dbs: DirectoryAndShard,
  uploader: Uploader,
  upload: { length: number; metadataHeader: string | undefined; chunk: Chunk | null; albumDb: AlbumShard },
) {
  const { length, metadataHeader, chunk } = upload;
  const { input, albumId } = startFromMetadata(parseMetadata(metadataHeader));
  const album = albumId === null ? undefined : { id: albumId, db: upload.albumDb(albumId) };
  let r2UploadId = "";
  const started = await startUpload(env, dbs.shard, uploader, { ...input, bytes: length, album }, {
    kind: "tus",
    partSize: TUS.partBytes,
    partCount: Math.ceil(length / TUS.partBytes),
    createMultipart: async (key, mime) => (r2UploadId = (await env.BUCKET.createMultipartUpload(key, { httpMetadata: { contentType: mime } })).uploadId),
    abortMultipart: (key, id) => env.BUCKET.resumeMultipartUpload(key, id).abort(),
  });
  // The creator continues as an upload token's holder would, for an anonymous upload.
  const continuing: Uploader = uploader.kind === "anonymous" ? { kind: "token", fileId: started.fileId } : uploader;
  try {
    await tusState(env, started.fileId).open({
      fileId: started.fileId,
      storeKey: started.storeKey,
      r2UploadId,
      length,
      metadata: metadataHeader ?? "",
      expiresAt: started.expiresAt.getTime(),
    });
    const progress = chunk ? await appendToTusUpload(env, ctx, dbs, continuing, started.uploadId, 0, chunk) : { offset: 0, length, expiresAt: started.expiresAt };
    return { ...started, ...progress };
  } catch (err) {
    // The client never learns this upload's address: a creation that fails ends it (reservation, parts, state).
    await abandonCreated(env, dbs.shard, started.uploadId);
    throw err;
  }
}

async function abandonCreated(env: Env, db: ShardDb, uploadId: string) {
  const record = await findUploadById(db, uploadId);
  if (!record || (record.upload.state !== "pending" && record.upload.state !== "uploaded")) return; // finalized, or already failed
  const now = new Date();
  if (await endUpload(db, record.upload, "aborted", now)) await removeStoredBytes(env, db, record.upload, record.file.storeKey, now).catch(() => undefined);
}

/** PATCH: the chunk at `offset`; the last one completes the upload and answers the file too. */
export async function appendToTusUpload(env: Env, ctx: WaitUntil, dbs: DirectoryAndShard, uploader: Uploader, uploadId: string, offset: number, chunk: Chunk): Promise<TusProgress> {
  const record = await findTusUpload(dbs.shard, uploader, uploadId);
  const { upload } = record;
  if (upload.state === "uploaded" || upload.state === "finalized") {
    const carriesBytes = await hasBytes(chunk);
    if (offset !== upload.bytes) throw offsetMismatch(upload.bytes);
    // Only an empty PATCH at the end is a retried last chunk; bytes after it are past Upload-Length, as on an open upload.
    if (carriesBytes) throw lengthExceeded(upload.bytes);
    return { offset: upload.bytes, length: upload.bytes, expiresAt: upload.expiresAt, file: await completeTusUpload(env, ctx, dbs, uploader, record) };
  }
  assertOpen(record);
  const result = await tusState(env, upload.fileId).append(offset, await bodyToSend(chunk), chunk.options);
  return answerAppend(env, ctx, dbs, uploader, record, result);
}

async function answerAppend(env: Env, ctx: WaitUntil, dbs: DirectoryAndShard, uploader: Uploader, record: UploadWithFile, result: AppendResult): Promise<TusProgress> {
  const { bytes: length, expiresAt } = record.upload;
  switch (result.kind) {
    case "appended":
    case "interrupted":
      return { offset: result.offset, length, expiresAt };
    case "complete":
      return { offset: length, length, expiresAt, file: await completeTusUpload(env, ctx, dbs, uploader, record, result) };
    case "conflict":
      throw offsetMismatch(result.offset);
    case "too_long":
      throw lengthExceeded(length);
    case "checksum_mismatch":
      throw new ApiError("tus_checksum_mismatch", "Upload-Checksum does not match the chunk; none of it was kept");
    case "busy":
      throw new ApiError("upload_busy", "Another chunk of this upload is still being received; retry shortly");
    case "missing":
    case "expired":
      throw uploadNotFound();
  }
}

const lengthExceeded = (length: number) => new ApiError("upload_length_exceeded", `The chunk would end past Upload-Length (${length})`, { length });

const offsetMismatch = (offset: number) => new ApiError("offset_mismatch", `Upload-Offset must be ${offset}`, { offset });

/** Pending and not past its expiry; an upload that ended is 404 (extensions.md § 1 "Expiry"). */
function assertOpen({ upload }: UploadWithFile) {
  if (upload.state !== "pending" || upload.expiresAt.getTime() <= Date.now()) throw uploadNotFound();
}

/**
 * The last byte is in: the object is checked (magic, size) and hashed, recorded as received, and finalized by
 * finalize itself. Runs again safely: a request that died midway is finished by the next HEAD, GET or PATCH.
 */
async function completeTusUpload(
  env: Env,
  ctx: WaitUntil,
  dbs: DirectoryAndShard,
  uploader: Uploader,
  record: UploadWithFile,
  assembled?: Assembled | null,
): Promise<FinalizeResponse> {
  const { upload, file } = record;
  if (upload.state === "pending") {
    const head = await env.BUCKET.get(file.storeKey, { range: { offset: 0, length: SNIFF_BYTES } });
    if (!head) throw uploadNotFound();
    if (!magicMatches(file.mime as UploadMime, new Uint8Array(await head.arrayBuffer()))) throw await failVerification(env, dbs.shard, record, "magic_mismatch");
    if (head.size !== upload.bytes) throw await failVerification(env, dbs.shard, record, "size_mismatch", head.size);
    // The object hashed the parts as they were kept; only when it could not (it restarted mid-upload) is the
    // assembled object read back.
    const sha256 = assembled?.sha256 ?? (await storedSha256(env.BUCKET, file.storeKey));
    const storeEtag = assembled?.etag ?? head.httpEtag;
    if (!(await markBytesReceived(dbs.shard, { ...upload, sha256 }, storeEtag, new Date()))) {
      const current = await findUploadById(dbs.shard, upload.id);
      if (!current || (current.upload.state !== "uploaded" && current.upload.state !== "finalized")) throw uploadNotFound();
      return completeTusUpload(env, ctx, dbs, uploader, current, assembled);
    }
    // What the batch just wrote, without reading it back: finalize reads the record itself.
    const received = { upload: { ...upload, state: "uploaded" as const, storeEtag, sha256 }, file: { ...file, state: "uploaded" as const, storeEtag, sha256 } };
    return completeTusUpload(env, ctx, dbs, uploader, received, assembled);
  }
  // Finalize also puts the file in the album the metadata named (once: a retried last PATCH changes no album).
  return finalizeUpload(env, ctx, dbs, uploader, { uploadId: upload.id, fileId: file.id, storeKey: file.storeKey, storeEtag: upload.storeEtag ?? "" });
}

/**
 * HEAD and GET: where the upload stands. An upload whose every byte is in but whose completion did not run (its
 * request failed after the bytes were kept) is completed here, so a client that resumes sees a file, not a hang.
 */
export async function describeTusUpload(env: Env, ctx: WaitUntil, dbs: DirectoryAndShard, uploader: Uploader, uploadId: string) {
  const record = await findTusUpload(dbs.shard, uploader, uploadId);
  const { upload } = record;
  const state = await tusState(env, upload.fileId).status();
  const base = { uploadId: upload.id, length: upload.bytes, metadata: state?.metadata ?? null, expiresAt: upload.expiresAt };
  if (upload.state === "failed" || (upload.state === "finalized" && record.file.quarantinedAt)) return { ...base, offset: state?.offset ?? 0, state: "failed" as const, file: null };
  if (upload.state === "finalized") return { ...base, offset: upload.bytes, state: "complete" as const, file: await finalizedAnswer(env, dbs.shard, record) };
  if (upload.state === "pending") assertOpen(record);
  if (upload.state === "uploaded" || (state && state.offset === upload.bytes)) {
    const assembled = upload.state === "uploaded" ? null : await tusState(env, upload.fileId).finishIfFull();
    if (assembled === "busy") return { ...base, offset: state?.offset ?? 0, state: "receiving" as const, file: null };
    try {
      const file = await completeTusUpload(env, ctx, dbs, uploader, record, assembled ?? state?.assembled);
      return { ...base, offset: upload.bytes, state: "complete" as const, file };
    } catch (err) {
      if (err instanceof ApiError && err.status !== 404) return { ...base, offset: upload.bytes, state: "failed" as const, file: null };
      throw err;
    }
  }
  if (upload.state !== "pending") throw uploadNotFound();
  return { ...base, offset: state?.offset ?? 0, state: "receiving" as const, file: null };
}

/** DELETE (termination): the parts aborted, the held bytes and the reservation released; then 404 for it. */
export async function terminateTusUpload(env: Env, db: ShardDb, uploader: Uploader, uploadId: string): Promise<void> {
  const record = await findTusUpload(db, uploader, uploadId);
  const { upload, file } = record;
  if (upload.state === "finalized") throw new ApiError("already_finalized", "This upload is finalized; delete the file instead");
  if (upload.state !== "pending" && upload.state !== "uploaded") throw uploadNotFound();
  const now = new Date();
  if (!(await endUpload(db, upload, "aborted", now))) {
    const current = await findUploadById(db, upload.id);
    if (current?.upload.state === "finalized") throw new ApiError("already_finalized", "This upload is finalized; delete the file instead");
    throw uploadNotFound();
  }
  await removeStoredBytes(env, db, upload, file.storeKey, now);
}
