// POST /upload/form: a one-request upload (multipart/form-data, field `file`) for tools that cannot do
// presign -> PUT -> finalize, such as ShareX custom uploaders. It runs the same three steps in-process, with
// the same checks (plan size, quota, mime allow-list, magic bytes, digest), so nothing about the file differs
// from one uploaded through the direct flow. The body is parsed whole, so it is bounded by the plan's size limit.
import { PLAN_LIMITS, type PlanOrAnonymous } from "../config";
import type { DirectoryAndShard } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import { bytesToHex } from "../platform/crypto/crypto";
import type { Uploader } from "./access";
import { startUpload, type StartInput } from "./start";
import { receiveDirectUpload } from "./direct";
import { finalizeUpload } from "./finalize";
import type { FinalizeResponse } from "./finalize-answer";

/** Multipart framing around the file: boundaries, headers and the small text fields. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** The form's text fields: the file's metadata (extensions.md § 8). */
export type FormFields = Omit<StartInput, "filename" | "mime" | "bytes" | "sha256">;

export async function uploadFromForm(
  env: Env,
  ctx: Pick<ExecutionContext, "waitUntil">,
  dbs: DirectoryAndShard,
  uploader: Uploader,
  request: Request,
  fields: (form: FormData) => FormFields,
): Promise<FinalizeResponse & { deleteToken?: string }> {
  const plan: PlanOrAnonymous = uploader.kind === "user" ? uploader.user.plan : "anonymous";
  const limit = PLAN_LIMITS[plan].maxFileBytes;
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (!Number.isFinite(length)) throw new ApiError("length_required", "Send the form with a Content-Length");
  if (length > limit + FORM_OVERHEAD_BYTES) {
    throw new ApiError("file_too_large", `The ${plan} plan allows files up to ${limit} bytes`, { limit, plan });
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw new ApiError("invalid_form", "Send multipart/form-data with the image in the field `file`");
  }
  const file = form.get("file");
  if (!file || typeof file === "string") throw new ApiError("missing_file", "The form has no file in the field `file`");
  const bytes = new Uint8Array(await file.arrayBuffer());
  const sha256 = bytesToHex(await crypto.subtle.digest("SHA-256", bytes));

  const started = await startUpload(env, dbs.shard, uploader, { filename: file.name || "upload", mime: file.type, bytes: bytes.byteLength, sha256, ...fields(form) }, { kind: "direct" });
  // Anonymous callers continue as the holder of the new file's upload token, as in the three-step flow.
  const continuing: Uploader = uploader.kind === "anonymous" ? { kind: "token", fileId: started.fileId } : uploader;
  // The bytes are already in memory: they are checked and stored as they are (no streaming tee); the request
  // only carries the headers the direct PUT checks.
  const headers = new Request("https://upload.internal/", {
    method: "PUT",
    headers: { "content-type": file.type, "content-length": String(bytes.byteLength) },
  });
  const stored = await receiveDirectUpload(env, dbs.shard, continuing, started.fileId, headers, bytes);
  const body = await finalizeUpload(env, ctx, dbs, continuing, {
    uploadId: started.uploadId,
    fileId: started.fileId,
    storeKey: started.storeKey,
    storeEtag: stored.etag,
  });
  return started.deleteToken ? { ...body, deleteToken: started.deleteToken } : body;
}
