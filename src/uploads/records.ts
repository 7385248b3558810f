// D1 access for upload and file records. Every state change is a conditional UPDATE inside one db.batch
// (D1 has no interactive transactions), so racing requests and the cleanup job can never both win.
import { and, eq, inArray, sql } from "drizzle-orm";
import { runBatch, type ShardDb, type Statement } from "../platform/data/db";
import { files, uploadParts, uploads, type FileRow, type UploadRow } from "../db/schema";
import { lookupFollowing } from "../platform/data/moved-ids";
import { ApiError } from "../platform/errors/errors";
import { commitUploadReservationStatement, releaseUploadReservationStatement } from "./quota";

export type UploadState = UploadRow["state"];
export type FileState = FileRow["state"];
export type UploadWithFile = { upload: UploadRow; file: FileRow };

/**
 * What a route of another flow answers about an upload: the flow it really uses (direct, multipart or tus) and
 * where its bytes go, so a client that mixed up the flows learns which one to call.
 */
export function wrongFlow(code: "not_multipart" | "multipart_upload" | "not_uploaded", upload: Pick<UploadRow, "kind" | "id" | "fileId">): ApiError {
  const send = {
    direct: `This is a direct upload: PUT its bytes to /upload/direct/${upload.fileId}`,
    multipart: `This is a multipart upload: PUT its parts to /upload/multipart/${upload.id}/parts/<partNumber>`,
    tus: `This is a tus upload: PATCH its bytes to /upload/tus/${upload.id}`,
  }[upload.kind];
  const then = code !== "not_uploaded" ? "" : upload.kind === "tus" ? "; its last PATCH finalizes it" : upload.kind === "direct" ? ", then finalize" : ", complete it, then finalize";
  return new ApiError(code, send + then, { flow: upload.kind });
}

/** States in which an upload is still in flight (holds a reservation, may still become a file). */
export const LIVE_UPLOAD_STATES: readonly UploadState[] = ["pending", "uploaded"];
/** States in which an upload ended without a file; its objects must not stay in R2. */
export const ENDED_UPLOAD_STATES: readonly UploadState[] = ["aborted", "failed", "expired"];

export async function insertUploadRecords(db: ShardDb, file: typeof files.$inferInsert, upload: typeof uploads.$inferInsert) {
  await runBatch(db, [db.insert(files).values({ ...file, ownerOrdinal: file.userId ? nextOwnerOrdinal(file.userId) : null }), db.insert(uploads).values(upload)]);
}

/**
 * One more than the owner's highest: within the INSERT, so racing uploads get distinct numbers, and no two rows
 * of an owner share one (a removed failed upload's number may be given again: it never carried anything).
 */
export const nextOwnerOrdinal = (userId: string) => sql`(SELECT COALESCE(MAX(${files.ownerOrdinal}), 0) + 1 FROM ${files} WHERE ${files.userId} = ${userId})`;

/** An upload by id; a moved owner's is followed to its shard (platform/data/moved-ids.ts). */
export async function findUploadById(db: ShardDb, uploadId: string): Promise<UploadWithFile | undefined> {
  return lookupFollowing(db, uploadId, () =>
    db.select({ upload: uploads, file: files }).from(uploads).innerJoin(files, eq(files.id, uploads.fileId)).where(eq(uploads.id, uploadId)).get(),
  );
}

/** A file has exactly one upload (created together at presign / init). */
export async function findUploadByFileId(db: ShardDb, fileId: string): Promise<UploadWithFile | undefined> {
  return lookupFollowing(db, fileId, () =>
    db.select({ upload: uploads, file: files }).from(uploads).innerJoin(files, eq(files.id, uploads.fileId)).where(eq(uploads.fileId, fileId)).get(),
  );
}

export type Transition = {
  upload: Pick<UploadRow, "id" | "fileId">;
  from: readonly UploadState[];
  to: UploadState;
  /** What happens to the upload's quota reservation: moved to used storage, given back, or left alone. */
  quota: "commit" | "release" | "keep";
  uploadSet?: Partial<typeof uploads.$inferInsert>;
  /** The file follows the upload when it is in one of `fileFrom`. */
  fileFrom?: readonly FileState[];
  fileSet?: Partial<typeof files.$inferInsert>;
  /** Further statements for the same batch (they run whether or not the transition applied: keep them idempotent). */
  extra?: Statement[];
  now: Date;
};

/** pending -> uploaded once the bytes are in R2 (direct PUT, multipart complete); the quota stays reserved. */
export function markBytesReceived(db: ShardDb, upload: UploadRow, etag: string, now: Date, extra: Statement[] = []) {
  return transitionUpload(db, {
    upload,
    from: ["pending"],
    to: "uploaded",
    quota: "keep",
    uploadSet: { storeEtag: etag },
    fileFrom: ["created"],
    fileSet: { state: "uploaded", storeEtag: etag, sha256: upload.sha256 },
    extra,
    now,
  });
}

/**
 * Moves an upload from one of `from` to `to` (and its file along), settling the quota in the same batch.
 * Returns false when the upload was not in `from` any more (someone else changed it first): nothing changed.
 */
export async function transitionUpload(db: ShardDb, t: Transition): Promise<boolean> {
  const { upload, from, to, now } = t;
  const statements: Statement[] = [];
  // The quota statement reads uploads.reserved_bytes, so it must run before the UPDATE that zeroes it.
  if (t.quota === "commit") statements.push(commitUploadReservationStatement(db, upload.id, from));
  if (t.quota === "release") statements.push(releaseUploadReservationStatement(db, upload.id, from));
  const uploadIndex = statements.length;
  statements.push(
    db
      .update(uploads)
      .set({ ...t.uploadSet, state: to, ...(t.quota === "keep" ? {} : { reservedBytes: 0 }), updatedAt: now })
      .where(and(eq(uploads.id, upload.id), inArray(uploads.state, [...from]))),
  );
  if (t.fileSet && t.fileFrom) {
    statements.push(
      db
        .update(files)
        .set({ ...t.fileSet, updatedAt: now })
        .where(
          and(
            eq(files.id, upload.fileId),
            inArray(files.state, [...t.fileFrom]),
            // only when the upload really is in `to` now (this batch moved it, or it already was)
            sql`(SELECT state FROM uploads WHERE id = ${upload.id}) = ${to}`,
          ),
        ),
    );
  }
  statements.push(...(t.extra ?? []));
  const results = await runBatch(db, statements);
  return results[uploadIndex].meta.changes === 1;
}

/** Ends an upload without a file (verification failed, aborted, expired): reservation released, file failed. */
export function endUpload(db: ShardDb, upload: Pick<UploadRow, "id" | "fileId">, to: "failed" | "aborted" | "expired", now: Date, from = LIVE_UPLOAD_STATES) {
  return transitionUpload(db, {
    upload,
    from,
    to,
    quota: "release",
    fileFrom: ["created", "uploaded"],
    fileSet: { state: "failed" },
    // parts only matter while a multipart upload is open
    extra: [db.delete(uploadParts).where(and(eq(uploadParts.uploadId, upload.id), sql`(SELECT state FROM uploads WHERE id = ${upload.id}) = ${to}`))],
    now,
  });
}

/** Marks the storage of an ended upload's file as removed (its object deleted, its multipart upload aborted). */
export async function markFilePurged(db: ShardDb, fileId: string, now: Date) {
  await db.update(files).set({ purgedAt: now, updatedAt: now }).where(and(eq(files.id, fileId), eq(files.state, "failed")));
}
