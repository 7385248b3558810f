// Who may start and continue uploads. Built on the shared principal and requirePermission guard:
//   start (presign, multipart init): anonymous callers, sessions, API keys with `upload`;
//   continue (PUT, parts, complete, finalize, status, abort): the owner's session or `upload` key, or the
//   anonymous uploader's upload token (a JWT scoped to exactly one file).
import { createMiddleware } from "hono/factory";
import type { AppEnv, AuthUser, Principal } from "../platform/http/env";
import { requirePermission } from "../middleware/guards";
import { refusing } from "../platform/http/route-errors";
import { ApiError, unauthorized } from "../platform/errors/errors";
import type { UploadWithFile } from "./records";
import { placeAnonymous } from "../platform/data/placement";

export type Uploader = { kind: "user"; user: AuthUser } | { kind: "anonymous" } | { kind: "token"; fileId: string };

const needsUpload = requirePermission("upload");

export const canStartUpload = () =>
  refusing(["upload_token_scope", "unauthorized", "missing_permission"], createMiddleware<AppEnv>(async (c, next) => {
    const p = c.get("principal");
    if (p.kind === "anonymous") return next();
    if (p.kind === "upload") {
      throw new ApiError("upload_token_scope", "An upload token only works for the file it was issued for; start a new upload without it");
    }
    return needsUpload(c, next);
  }));

export const canContinueUpload = () =>
  refusing(["unauthorized", "missing_permission"], createMiddleware<AppEnv>(async (c, next) => {
    if (c.get("principal").kind === "upload") return next();
    return needsUpload(c, next);
  }));

export function uploaderOf(p: Principal): Uploader {
  switch (p.kind) {
    case "session":
    case "key":
      return { kind: "user", user: p.user };
    case "upload":
      return { kind: "token", fileId: p.fileId };
    case "anonymous":
      return { kind: "anonymous" };
  }
}

/**
 * The shard a new upload goes to: the user's own, or for an anonymous one (no account to place) a shard picked by
 * a random seed among those open to new data (platform/data/placement.ts). Its ids then carry that shard.
 */
export function startShard(env: Env, uploader: Uploader): number {
  return uploader.kind === "user" ? uploader.user.shard : placeAnonymous(env, crypto.randomUUID());
}

export const wrongUploadToken = () => new ApiError("invalid_upload_token", "This upload token is not valid for this upload");
export const uploadNotFound = () => new ApiError("upload_not_found", "Upload not found");

/**
 * The record when the caller may act on it. Someone else's upload is 404 (existence is not revealed); an
 * upload token presented for another file is 401 (it is simply the wrong credential here).
 */
export function ownedBy(uploader: Uploader, record: UploadWithFile | undefined): UploadWithFile {
  if (uploader.kind === "anonymous") throw unauthorized();
  if (uploader.kind === "token") {
    if (!record || record.upload.fileId !== uploader.fileId || record.upload.userId !== null) throw wrongUploadToken();
    return record;
  }
  if (!record || record.upload.userId !== uploader.user.id) throw uploadNotFound();
  return record;
}
