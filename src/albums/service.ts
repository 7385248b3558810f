// Album access: visibility, owner state and the album password, shared by the API and the album page.
import type { ShardDb } from "../platform/data/db";
import type { AlbumRow } from "../db/schema";
import { ApiError, RateLimitError } from "../platform/errors/errors";
import { ownerMoving } from "../platform/data/moved-ids";
import { verifyPassword } from "../platform/crypto/passwords";
import { limiterFor } from "../limits/rate-limiter";
import { albumUrl } from "../platform/http/urls";
import { ALBUMS } from "../config";
import type { Viewer } from "../serving/access";
import { loadAlbum, type LoadedAlbum } from "./queries";

export const albumNotFound = () => new ApiError("album_not_found", "Album not found");

export function isAlbumOwner(album: Pick<AlbumRow, "userId">, viewer: Viewer): boolean {
  return viewer.userId !== null && album.userId === viewer.userId;
}

/** What a viewer is told of an album's contents: counted and chosen among the files it shows them. */
export type AlbumView = { fileCount: number; coverFileId: string | null };

export function albumResource(env: Env, a: AlbumRow, view: AlbumView = { fileCount: a.fileCount, coverFileId: a.coverFileId }) {
  return {
    id: a.id,
    title: a.title,
    description: a.description,
    visibility: a.visibility,
    tags: a.tags,
    url: albumUrl(env, a.id),
    coverImageId: view.coverFileId,
    passwordProtected: a.passwordHash !== null,
    viewCount: a.viewCount,
    fileCount: view.fileCount,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

/**
 * Loads an album the viewer may see (password aside): missing, deleted, or owned by a banned or deleted
 * account -> 404; private -> 404 to all but the owner (existence not revealed).
 */
export async function visibleAlbum(db: ShardDb, id: string, viewer: Viewer): Promise<LoadedAlbum> {
  const loaded = await loadAlbum(db, id);
  if (!loaded || loaded.ownerGoneAt) throw albumNotFound();
  if (loaded.album.visibility === "private" && !isAlbumOwner(loaded.album, viewer)) throw albumNotFound();
  return loaded;
}

/** An album the viewer must own to change: invisible -> 404, visible but someone else's -> 403. */
export async function ownAlbum(db: ShardDb, id: string, viewer: Viewer): Promise<AlbumRow> {
  const { album, ownerMoving: moving } = await visibleAlbum(db, id, viewer);
  if (!isAlbumOwner(album, viewer)) throw new ApiError("not_owner", "Only the album's owner can change it");
  if (moving) throw ownerMoving();
  return album;
}

const PASSWORD_BUCKET = "album-password-failures";

/**
 * The album password gate (owners pass): missing -> 401 album_password_required, wrong -> 403 invalid_album_password.
 * Every attempt is counted (album, client) BEFORE the constant-time hash check (platform/crypto/passwords.ts), in one
 * atomic limiter step, a right one refunded: a parallel burst has only the window's failures checked, the rest 429.
 */
export async function checkAlbumPassword(env: Env, album: AlbumRow, viewer: Viewer, ip: string, presented: string | undefined): Promise<void> {
  if (album.passwordHash === null || isAlbumOwner(album, viewer)) return;
  if (presented === undefined || presented === "") {
    throw new ApiError("album_password_required", "This album is password-protected; send the password in X-Album-Password");
  }
  const limiter = limiterFor(env, `album:${album.id}:${ip}`);
  // A guard against guessing, like the login limits: not scaled by RATE_LIMIT_MULTIPLIER.
  const limit = ALBUMS.passwordFailuresPerWindow;
  const attempt = await limiter.hit(PASSWORD_BUCKET, limit, ALBUMS.passwordWindowSeconds);
  if (!attempt.allowed) throw tooManyAttempts(attempt.reset, limit);
  const { ok } = await verifyPassword(presented.slice(0, 1024), album.passwordHash);
  if (!ok) throw new ApiError("invalid_album_password", "The album password is wrong");
  await limiter.refund(PASSWORD_BUCKET, ALBUMS.passwordWindowSeconds);
}

function tooManyAttempts(reset: number, limit: number) {
  const retryAfter = Math.max(1, reset - Math.floor(Date.now() / 1000));
  return new RateLimitError(retryAfter, limit, reset, "Too many wrong album passwords; try again later");
}
