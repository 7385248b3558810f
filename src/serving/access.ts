// Who may see a file. The one place that turns a file's state and a caller into 200 / 403 / 404 / 410,
// used by the files API, byte serving, album listings and the pages. What a cached decision carries: records.ts.
import { eq } from "drizzle-orm";
import type { ShardDb } from "../platform/data/db";
import { files, owners, type FileRow } from "../db/schema";
import type { Principal } from "../platform/http/env";
import { ApiError } from "../platform/errors/errors";
import type { CodeWithStatus, ErrorCode } from "../platform/errors/error-codes";
import { isId } from "../platform/data/ids";
import { lookupFollowing } from "../platform/data/moved-ids";

/** A file row plus what its owner's account state says about it (a banned owner's files are gone). */
export type LoadedFile<F extends ReadableFile = FileRow> = {
  file: F;
  ownerGoneAt: Date | null;
  /** The owner is being moved to another shard (owners.moved_to): their changes wait. Known from loadFile only. */
  ownerMoving?: boolean;
  /** The shard the owner is being moved to, where takedowns write too (platform/data/moved-ids.ts writeShards). From loadFile only. */
  ownerMovedTo?: number | null;
  /** The shard the row was found on (a moved owner's ids name the shard they were made on). From loadFile only. */
  shard?: number;
};

/** What the read rules look at: byte serving decides from records that hold little more than this. */
export type ReadableFile = Pick<
  FileRow,
  "userId" | "state" | "visibility" | "deletedAt" | "bannedAt" | "hiddenAt" | "quarantinedAt" | "expiresAt" | "purgedAt" | "ageRestricted" | "ageRestrictedOverride"
>;

/** The caller as far as visibility is concerned. API keys act as their user. */
export type Viewer = {
  userId: string | null;
  /** Signed in, age confirmed and safe mode off: may see age-restricted files. */
  adult: boolean;
};

export const ANONYMOUS_VIEWER: Viewer = { userId: null, adult: false };

export function viewerOf(p: Principal): Viewer {
  if (p.kind === "session" || p.kind === "key") {
    return { userId: p.user.id, adult: p.user.ageConfirmed && !p.user.safeMode };
  }
  return ANONYMOUS_VIEWER;
}

export function isOwner(file: Pick<FileRow, "userId">, viewer: Viewer): boolean {
  return viewer.userId !== null && file.userId === viewer.userId;
}

/** A moderator's override wins over the score-derived flag, either way. */
export function isAgeRestricted(file: Pick<FileRow, "ageRestricted" | "ageRestrictedOverride">): boolean {
  return file.ageRestrictedOverride ?? file.ageRestricted;
}

/**
 * The analysis refused to decode the image for the decoder's own safety (the header guard's pixel or frame
 * limits in analysis/header.ts: a decompression bomb, a million frames). A visitor's browser should not be
 * made to decode it either: pages show a notice and a download link, and link previews get no image.
 */
export function isUnsafeToRender(file: Pick<FileRow, "analysis" | "analysisFailure">): boolean {
  if (file.analysis !== "failed") return false;
  // Unclassified (recorded by the previous deploy after migration 0006 ran): not known to be safe.
  return file.analysisFailure === null || file.analysisFailure === "pixel_limit" || file.analysisFailure === "frame_limit";
}

/** The analysis has written its result (done or failed); clients see anything else as `pending`. */
export function analysisLanded(file: Pick<FileRow, "analysis">): boolean {
  return file.analysis === "done" || file.analysis === "failed";
}

export type GoneReason = "deleted" | "expired" | "banned" | "hidden" | "quarantined" | "owner_unavailable" | "purged";

/** The review states: hidden by a csam/terrorism report, or quarantined by the blocklist, until a moderator decides. */
export type ReviewReason = "hidden" | "quarantined";

/** Why a file is under moderation review, or null. A review hides a file from everyone, its owner included. */
export function reviewReason(f: Pick<ReadableFile, "hiddenAt" | "quarantinedAt">): ReviewReason | null {
  if (f.hiddenAt) return "hidden";
  if (f.quarantinedAt) return "quarantined";
  return null;
}

/** Why a finalized file no longer reads (410), or null while it is live. */
export function goneReason(loaded: LoadedFile<ReadableFile>, now: number): GoneReason | null {
  const f = loaded.file;
  if (f.deletedAt) return "deleted";
  if (f.bannedAt) return "banned";
  return reviewReason(f) ?? goneApartFromReview(loaded, now);
}

/**
 * Why a file is gone whatever a review decides, or null while it is live or only under review. This is what
 * refuses an owner's change (410): a review does not, because it may end in a dismissal that shows the file
 * again, and an owner's delete made meanwhile must still stand then (files/routes.ts).
 */
export function goneApartFromReview(loaded: LoadedFile<ReadableFile>, now: number): Exclude<GoneReason, ReviewReason> | null {
  const f = loaded.file;
  if (f.deletedAt) return "deleted";
  if (f.bannedAt) return "banned";
  if (loaded.ownerGoneAt) return "owner_unavailable";
  if (f.expiresAt && f.expiresAt.getTime() <= now) return "expired";
  if (f.purgedAt) return "purged";
  return null;
}

const GONE_MESSAGE: Record<GoneReason, [string, CodeWithStatus<410>]> = {
  deleted: ["This file has been deleted", "file_deleted"],
  expired: ["This file has expired", "file_expired"],
  banned: ["This file has been removed", "file_banned"],
  // Review and blocklist states are not spelled out to the public: they read like a removal.
  hidden: ["This file is not available", "file_unavailable"],
  quarantined: ["This file is not available", "file_unavailable"],
  owner_unavailable: ["This file is not available", "file_unavailable"],
  purged: ["This file has been deleted", "file_deleted"],
};

export function goneError(reason: GoneReason): ApiError {
  const [message, code] = GONE_MESSAGE[reason];
  return new ApiError(code, message);
}

export const fileNotFound = () => new ApiError("file_not_found", "File not found");

/** What looking a file up can answer (fileNotFound, goneError): the routes that look one up declare these. */
export const FILE_LOOKUP_ERRORS = ["file_not_found", "file_deleted", "file_expired", "file_banned", "file_unavailable"] as const satisfies readonly ErrorCode[];

export type ReadCheck = {
  /** Apply safe mode (the API and pages do; byte links do not, see serving/routes.ts). */
  safeMode: boolean;
};

/**
 * Throws the contract's error when `viewer` may not read the file, in this order:
 * missing or not finalized -> 404; private and not the owner -> 404 (existence not revealed, even when gone);
 * deleted / expired / banned / hidden / quarantined / owner banned -> 410; age-restricted under safe mode -> 403.
 */
export function assertReadable<F extends ReadableFile>(loaded: LoadedFile<F> | undefined, viewer: Viewer, now: number, check: ReadCheck): asserts loaded is LoadedFile<F> {
  if (!loaded || loaded.file.state !== "finalized") throw fileNotFound();
  const owner = isOwner(loaded.file, viewer);
  if (loaded.file.visibility === "private" && !owner) throw fileNotFound();
  const reason = goneReason(loaded, now);
  if (reason) throw goneError(reason);
  if (check.safeMode && isAgeRestricted(loaded.file) && !owner && !viewer.adult) {
    throw new ApiError("content_restricted", "This file is age-restricted; sign in with an age-confirmed account and turn safe mode off to see it");
  }
}

/**
 * One indexed read on the file's shard: the file by primary key and its owner's ban / deletion state, the
 * shard's copy (owners; serving/owner-state.ts). No row there: the owner was never banned nor deleted.
 */
export async function loadFile(db: ShardDb, id: string): Promise<LoadedFile | undefined> {
  if (!isId("file", id)) return undefined;
  const row = await lookupFollowing(db, id, () =>
    db
      .select({ file: files, ownerBannedAt: owners.bannedAt, ownerDeletedAt: owners.deletedAt, ownerMovedTo: owners.movedTo })
      .from(files)
      .leftJoin(owners, eq(owners.userId, files.userId))
      .where(eq(files.id, id))
      .get(),
  );
  if (!row) return undefined;
  const ownerGoneAt = row.ownerBannedAt ?? row.ownerDeletedAt ?? null;
  return { file: row.file, ownerGoneAt, ownerMoving: row.ownerMovedTo !== null, ownerMovedTo: row.ownerMovedTo, shard: db.$client.shard };
}

/** Loads and checks in one step; returns the live file. */
export async function readableFile(db: ShardDb, id: string, viewer: Viewer, now: number, check: ReadCheck): Promise<LoadedFile> {
  const loaded = await loadFile(db, id);
  assertReadable(loaded, viewer, now, check);
  return loaded;
}
