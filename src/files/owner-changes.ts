// What the owner's PATCH and DELETE /files/:id may do by the file's state. A file under moderation review is hidden
// from its owner too, but a dismissal may show it again, and a delete made meanwhile must still stand: so a delete is
// recorded whatever the review state (the report stays open, the objects stay for the purge's retention), while a
// PATCH is 409 until the review ends, since the title, description and tags may be what was reported.
import type { Principal } from "../platform/http/env";
import type { ShardDb } from "../platform/data/db";
import type { FileRow } from "../db/schema";
import { ApiError } from "../platform/errors/errors";
import { ownerMoving } from "../platform/data/moved-ids";
import { assertReadable, fileNotFound, goneApartFromReview, goneError, isOwner, loadFile, reviewReason, viewerOf } from "../serving/access";

/**
 * Loads a file the caller must own. Someone else gets what a read gives them (invisible -> 404, gone -> 410),
 * then 403 when they could see it. The owner gets 410 only when the file is gone apart from a review.
 */
export async function ownFile(db: ShardDb, principal: Principal, id: string, now: number): Promise<FileRow> {
  const viewer = viewerOf(principal);
  const loaded = await loadFile(db, id);
  if (!loaded || loaded.file.state !== "finalized") throw fileNotFound();
  if (!isOwner(loaded.file, viewer)) {
    assertReadable(loaded, viewer, now, { safeMode: false });
    throw new ApiError("not_owner", "Only the file's owner can change it");
  }
  const gone = goneApartFromReview(loaded, now);
  if (gone) throw goneError(gone);
  if (loaded.ownerMoving) throw ownerMoving();
  return loaded.file;
}

export const underReview = () =>
  new ApiError(
    "file_under_review",
    "This file is hidden while moderators review a report of it: it cannot be changed until the review ends, but it can be deleted",
  );

/** Why a PATCH that passed ownFile did not apply (the file changed in between): under review (409), or gone (410). */
export async function patchRefusal(db: ShardDb, id: string, now: number): Promise<ApiError> {
  const loaded = await loadFile(db, id);
  if (!loaded) return fileNotFound();
  const gone = goneApartFromReview(loaded, now);
  if (gone) return goneError(gone);
  return reviewReason(loaded.file) ? underReview() : goneError("deleted");
}
