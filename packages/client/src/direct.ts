// A file below the tus threshold: POST /upload/presign (with its size, SHA-256 and the file's metadata, tags and
// album included: extensions.md § 8, so a key with `upload` alone is enough), PUT the bytes to the answered
// uploadUrl, POST /upload/finalize. No call follows finalize: the file has its metadata from there on.
import { errorFromResponse, ImghostError } from "./errors.js";
import { jsonBody, sha256Hex, type Transport } from "./transport.js";
import type { components } from "./schema.gen.js";
import type { FinalizeResponse } from "./types.js";
import type { UploadJob } from "./job.js";

type PresignResponse = components["schemas"]["PresignResponse"];
type PresignRequest = components["schemas"]["PresignRequest"];

export async function directUpload(t: Transport, job: UploadJob): Promise<FinalizeResponse> {
  const { source } = job;
  const bytes = await source.read(0, source.size);
  const sha256 = await sha256Hex(bytes);
  job.progress(0);
  try {
    return await presignPutFinalize(t, job, bytes, sha256);
  } catch (err) {
    // A PUT whose answer was lost was stored all the same: its retry is refused (409 already_uploaded) and its
    // ETag, which finalize needs, is gone with the answer. That upload is left to expire; start once more.
    if (!(err instanceof RetriedPutStored)) throw err;
    return presignPutFinalize(t, job, bytes, sha256);
  }
}

class RetriedPutStored extends Error {}

const withAuth = (t: Transport, r: { body: string; headers: Record<string, string> }, token = t.token) => ({ body: r.body, headers: t.headers(r.headers, token) });

async function presignPutFinalize(t: Transport, job: UploadJob, bytes: Uint8Array, sha256: string): Promise<FinalizeResponse> {
  const { options, signal } = job;
  const request: PresignRequest = {
    filename: job.filename,
    mime: job.mime,
    bytes: bytes.byteLength,
    sha256,
    ...(options.title !== undefined && { title: options.title }),
    ...(options.description !== undefined && { description: options.description }),
    ...(options.alt !== undefined && { alt: options.alt }),
    ...(options.visibility !== undefined && { visibility: options.visibility }),
    ...(options.expiresIn !== undefined && { expiresIn: options.expiresIn }),
    ...(options.tags?.length && { tags: options.tags }),
    ...(options.albumId !== undefined && { albumId: options.albumId }),
  };
  const presign = await t.json<PresignResponse>("POST /upload/presign", t.url("/upload/presign"), () => ({ method: "POST", ...withAuth(t, jsonBody(request)) }), signal);
  // Anonymous callers continue with the upload's own token.
  const token = presign.uploadToken ?? t.token;

  let tries = 0;
  const put = await t.send(
    "PUT uploadUrl",
    t.url(presign.uploadUrl),
    () => (tries++, { method: "PUT", headers: t.headers({ "content-type": job.mime }, token), body: bytes as Uint8Array<ArrayBuffer> }),
    signal,
  );
  if (!put.ok) {
    const error = await errorFromResponse(put);
    if (tries > 1 && error.code === "already_uploaded") throw new RetriedPutStored();
    throw error;
  }
  const storeEtag = put.headers.get("etag");
  await put.arrayBuffer();
  job.progress(bytes.byteLength);
  if (!storeEtag) throw new ImghostError({ status: put.status, code: "missing_etag", message: "The direct PUT answered without an ETag (a proxy may hide it)", requestId: put.headers.get("x-request-id") });

  const finalize = jsonBody({ uploadId: presign.uploadId, fileId: presign.fileId, storeKey: presign.storeKey, storeEtag });
  return t.json<FinalizeResponse>("POST /upload/finalize", t.url("/upload/finalize"), () => ({ method: "POST", ...withAuth(t, finalize, token) }), signal);
}
