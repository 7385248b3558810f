// Starting an upload (presign for the direct flow, init for multipart): the checks of decisions.md § Uploads
// in order (mime 415, plan size 413, direct-body limit 413, quota 402), then the atomic quota reservation and
// the file + upload records, created together.
import { jwtConfig } from "../platform/http/env";
import { PLAN_LIMITS, type PlanOrAnonymous } from "../config";
import { UPLOADS, type UploadMime } from "../config/uploads";
import type { Visibility } from "../db/schema";
import type { ShardDb } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import { newShardedId } from "../platform/data/shard-ids";
import { randomToken, sha256Hex } from "../platform/crypto/crypto";
import { signToken } from "../platform/crypto/jwt";
import { SESSION } from "../config/auth";
import type { Uploader } from "./access";
import { assertUploadAlbum, type UploadAlbum } from "./album";
import { buildStoreKey, sanitizeFilename, titleFromFilename } from "./filename";
import { insertUploadRecords } from "./records";
import { releaseReservationStatement, reserveQuota } from "./quota";

export type StartInput = {
  filename: string;
  mime: string;
  bytes: number;
  sha256?: string;
  title?: string;
  description?: string;
  alt?: string;
  visibility?: Visibility;
  /** File lifetime in seconds; none = the file does not expire. */
  expiresIn?: number;
  tags?: string[];
  /** The caller's album the file joins at finalize (extensions.md § 8); checked here, before anything is reserved. */
  album?: UploadAlbum;
};

export type StartOptions =
  /** `fetched`: the worker itself fetches the bytes (upload from a URL), so no request body carries them. */
  | { kind: "direct"; fetched?: boolean }
  /** multipart: the client's own parts; tus: chunks assembled into parts by the server (uploads/tus/). */
  | { kind: "multipart" | "tus"; partSize: number; partCount: number; createMultipart: (storeKey: string, mime: UploadMime) => Promise<string>; abortMultipart: (storeKey: string, r2UploadId: string) => Promise<void> };

export type Started = {
  uploadId: string;
  fileId: string;
  storeKey: string;
  expiresAt: Date;
  /** Anonymous callers only: the Bearer token for this file's PUT / parts / finalize, and the delete token. */
  uploadToken?: string;
  deleteToken?: string;
};

export function isAllowedMime(mime: string): mime is UploadMime {
  return (UPLOADS.mimeTypes as readonly string[]).includes(mime);
}

/**
 * The mime allow-list, the plan's size limit, and the limit on bytes sent in one request body when they will be
 * (`requestBody`); throws the contract's 415 / 413.
 */
export function checkUploadable(plan: PlanOrAnonymous, mime: string, bytes: number, requestBody: boolean): UploadMime {
  const type = mime.trim().toLowerCase();
  if (!isAllowedMime(type)) {
    throw new ApiError("unsupported_media_type", `Only ${UPLOADS.mimeTypes.join(", ")} can be uploaded`, { allowed: [...UPLOADS.mimeTypes] });
  }
  const limit = PLAN_LIMITS[plan].maxFileBytes;
  if (bytes > limit) {
    throw new ApiError("file_too_large", `The ${plan} plan allows files up to ${limit} bytes`, { limit, plan });
  }
  if (requestBody && bytes > UPLOADS.maxDirectBytes) {
    throw new ApiError("use_multipart", `Bodies through the direct upload are limited to ${UPLOADS.maxDirectBytes} bytes; use POST /upload/multipart/init`, {
      limit: UPLOADS.maxDirectBytes,
    });
  }
  return type;
}

/**
 * On the owner's shard alone: the quota reservation (with the owner's row, on a first upload), then the file and
 * upload records. The plan, and so the limit, comes with the uploader (the principal).
 */
export async function startUpload(env: Env, db: ShardDb, uploader: Uploader, input: StartInput, opts: StartOptions): Promise<Started> {
  if (uploader.kind === "token") throw new Error("upload tokens cannot start uploads"); // the guard refuses them
  const user = uploader.kind === "user" ? uploader.user : null;
  const plan: PlanOrAnonymous = user ? user.plan : "anonymous";
  const mime = checkUploadable(plan, input.mime, input.bytes, opts.kind === "direct" && !opts.fetched);
  const visibility = input.visibility ?? "public";
  if (!user && visibility === "private") {
    throw new ApiError("private_requires_account", "Anonymous uploads cannot be private: nobody could ever read them. Use unlisted, or sign in.");
  }
  if (input.album) await assertUploadAlbum(uploader, input.album);

  const now = new Date();
  // The ids carry the shard that holds them, so every later request finds it with no lookup.
  const fileId = newShardedId("file", db.$client.shard);
  const uploadId = newShardedId("upl", db.$client.shard);
  const filename = sanitizeFilename(input.filename, mime);
  const storeKey = buildStoreKey(fileId, filename, now);
  // An anonymous uploader can only act while its upload token lives, so its upload ends with the token.
  const ttl = Math.min(opts.kind === "direct" ? UPLOADS.directTtlSeconds : UPLOADS.multipartTtlSeconds, user ? Infinity : SESSION.uploadTokenSeconds);
  const expiresAt = new Date(now.getTime() + ttl * 1000);
  const deleteToken = user ? undefined : randomToken();

  if (user && !(await reserveQuota(db, user.id, user.plan, input.bytes))) {
    throw new ApiError("quota_exceeded", "This upload would exceed your storage quota", {
      quota: PLAN_LIMITS[user.plan].storageQuotaBytes,
      requested: input.bytes,
    });
  }
  // From here on a reservation is held: any failure gives it back.
  let r2UploadId: string | null = null;
  try {
    if (opts.kind !== "direct") r2UploadId = await opts.createMultipart(storeKey, mime);
    await insertUploadRecords(
      db,
      {
        id: fileId,
        userId: user?.id ?? null,
        title: input.title?.trim() || titleFromFilename(input.filename),
        description: input.description ?? "",
        alt: input.alt ?? "",
        filename,
        mime,
        bytes: input.bytes,
        sha256: null,
        storeKey,
        visibility,
        ...(input.tags ? { tags: input.tags } : {}),
        state: "created",
        deleteTokenHash: deleteToken ? await sha256Hex(deleteToken) : null,
        expiresAt: input.expiresIn !== undefined ? new Date(now.getTime() + input.expiresIn * 1000) : null,
        createdAt: now,
        updatedAt: now,
      },
      {
        id: uploadId,
        fileId,
        userId: user?.id ?? null,
        kind: opts.kind,
        state: "pending",
        bytes: input.bytes,
        sha256: input.sha256?.toLowerCase() ?? null,
        reservedBytes: user ? input.bytes : 0,
        r2UploadId,
        albumId: input.album?.id ?? null,
        partSize: opts.kind !== "direct" ? opts.partSize : null,
        partCount: opts.kind !== "direct" ? opts.partCount : null,
        expiresAt,
        createdAt: now,
        updatedAt: now,
      },
    );
  } catch (err) {
    if (user) await releaseReservationStatement(db, user.id, input.bytes).catch(() => undefined);
    if (r2UploadId && opts.kind !== "direct") await opts.abortMultipart(storeKey, r2UploadId).catch(() => undefined);
    throw err;
  }

  const started: Started = { uploadId, fileId, storeKey, expiresAt };
  if (!user) {
    started.uploadToken = await signToken(jwtConfig(env), { sub: "anonymous", typ: "upload", fid: fileId }, SESSION.uploadTokenSeconds);
    started.deleteToken = deleteToken;
  }
  return started;
}
