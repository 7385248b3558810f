// GET /account/export (GDPR): everything held about the caller as one JSON document, streamed. Each section
// is read in keyset pages (an index walk per page, never OFFSET) and written as it arrives, so memory stays
// at one page however large the account. Secrets never leave: no password hash, key hash, token hashes,
// album password hashes or delete-token hashes, no TOTP seed or recovery code hashes, and no mail bodies (they
// carry one-time tokens).
import { and, asc, eq, gt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { DirectoryAndShard } from "../platform/data/db";
import { albumFiles, albums, apiKeys, auditLog, files, outbox, planChanges, reports, sessions, users, type AlbumRow, type FileRow, type UserRow } from "../db/schema";
import { accountResource } from "../auth/queries";
import { keyResource } from "../auth/api-keys";
import { secondFactorRecords } from "../auth/second-factor";
import { planChangeResource } from "../billing/plan-changes";
import { albumUrl, cdnUrl, filePageUrl, fileUrl, thumbnailUrl } from "../platform/http/urls";
import { ownerUsage, type Usage } from "../uploads/quota";

export const EXPORT_FORMAT = "image-host-export/1";
/** Rows per query. Small enough for a steady stream, big enough to keep the number of queries low. */
export const EXPORT_PAGE_SIZE = 200;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function profile(u: UserRow, usage: Usage) {
  return {
    ...accountResource(u),
    storageUsed: usage.used,
    storageReserved: usage.reserved,
    updatedAt: u.updatedAt.toISOString(),
  };
}

function exportedFile(env: Env, f: FileRow) {
  return {
    id: f.id,
    url: fileUrl(env, f.id),
    cdnUrl: cdnUrl(env, f.storeKey),
    thumbnailUrl: thumbnailUrl(env, f.id),
    pageUrl: filePageUrl(env, f.id),
    title: f.title,
    description: f.description,
    filename: f.filename,
    mime: f.mime,
    bytes: f.bytes,
    width: f.width,
    height: f.height,
    sha256: f.sha256,
    phash: f.phash ?? f.clientPhash,
    visibility: f.visibility,
    state: f.state,
    tags: f.tags,
    hotlinkPolicy: f.hotlinkPolicy,
    hotlinkDomains: f.hotlinkDomains,
    viewCount: f.viewCount,
    downloadCount: f.downloadCount,
    nsfwScore: f.nsfwScore,
    ageRestricted: f.ageRestrictedOverride ?? f.ageRestricted,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
    expiresAt: iso(f.expiresAt),
    deletedAt: iso(f.deletedAt),
    removedAt: iso(f.bannedAt ?? f.hiddenAt ?? f.quarantinedAt),
  };
}

function exportedAlbum(env: Env, a: AlbumRow) {
  return {
    id: a.id,
    url: albumUrl(env, a.id),
    title: a.title,
    description: a.description,
    visibility: a.visibility,
    tags: a.tags,
    passwordProtected: a.passwordHash !== null,
    coverImageId: a.coverFileId,
    viewCount: a.viewCount,
    fileCount: a.fileCount,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
    deletedAt: iso(a.deletedAt),
  };
}

type Page<T> = (after: T | undefined) => Promise<T[]>;

/** Keyset paging over (time, id): rows strictly after the last one seen, in index order. */
function after(time: SQLiteColumn, id: SQLiteColumn, last: { t: Date; id: string } | undefined): SQL | undefined {
  if (!last) return undefined;
  return or(gt(time, last.t), and(eq(time, last.t), gt(id, last.id)));
}

async function* pages<T>(page: Page<T>): AsyncGenerator<T[]> {
  let last: T | undefined;
  for (;;) {
    const rows = await page(last);
    if (rows.length > 0) yield rows;
    if (rows.length < EXPORT_PAGE_SIZE) return;
    last = rows[rows.length - 1];
  }
}

type Section = { name: string; rows: () => AsyncGenerator<unknown[]> };

function sections(dbs: DirectoryAndShard, env: Env, user: UserRow): Section[] {
  // The owner's data from its shard, the rest from the directory: every section is queries of its own.
  const { directory, shard } = dbs;
  const n = EXPORT_PAGE_SIZE;
  const byTime = <R extends { createdAt: Date; id: string }>(r: R | undefined) => (r ? { t: r.createdAt, id: r.id } : undefined);
  return [
    {
      name: "files",
      rows: async function* () {
        for await (const rows of pages<FileRow>((last) =>
          shard.select().from(files).where(and(eq(files.userId, user.id), after(files.createdAt, files.id, byTime(last)))).orderBy(asc(files.createdAt), asc(files.id)).limit(n),
        )) yield rows.map((f) => exportedFile(env, f));
      },
    },
    {
      name: "albums",
      rows: async function* () {
        for await (const rows of pages<AlbumRow>((last) =>
          shard.select().from(albums).where(and(eq(albums.userId, user.id), after(albums.createdAt, albums.id, byTime(last)))).orderBy(asc(albums.createdAt), asc(albums.id)).limit(n),
        )) yield rows.map((a) => exportedAlbum(env, a));
      },
    },
    {
      // Album membership as its own list: one album may hold thousands of files, so it is paged per album.
      name: "albumFiles",
      rows: async function* () {
        for await (const albumPage of pages<{ id: string; createdAt: Date }>((last) =>
          shard.select({ id: albums.id, createdAt: albums.createdAt }).from(albums).where(and(eq(albums.userId, user.id), after(albums.createdAt, albums.id, byTime(last)))).orderBy(asc(albums.createdAt), asc(albums.id)).limit(n),
        )) {
          for (const album of albumPage) {
            type Member = { fileId: string; addedAt: Date };
            for await (const rows of pages<Member>((last) =>
              shard
                .select({ fileId: albumFiles.fileId, addedAt: albumFiles.addedAt })
                .from(albumFiles)
                .where(and(eq(albumFiles.albumId, album.id), last ? after(albumFiles.addedAt, albumFiles.fileId, { t: last.addedAt, id: last.fileId }) : undefined))
                .orderBy(asc(albumFiles.addedAt), asc(albumFiles.fileId))
                .limit(n),
            )) yield rows.map((m) => ({ albumId: album.id, fileId: m.fileId, addedAt: m.addedAt.toISOString() }));
          }
        }
      },
    },
    {
      name: "apiKeys",
      rows: async function* () {
        for await (const rows of pages<typeof apiKeys.$inferSelect>((last) =>
          directory.select().from(apiKeys).where(and(eq(apiKeys.userId, user.id), after(apiKeys.createdAt, apiKeys.id, byTime(last)))).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id)).limit(n),
        )) yield rows.map(keyResource);
      },
    },
    {
      name: "sessions",
      rows: async function* () {
        for await (const rows of pages<typeof sessions.$inferSelect>((last) =>
          directory.select().from(sessions).where(and(eq(sessions.userId, user.id), after(sessions.createdAt, sessions.id, byTime(last)))).orderBy(asc(sessions.createdAt), asc(sessions.id)).limit(n),
        ))
          yield rows.map((s) => ({ createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt.toISOString(), revokedAt: iso(s.revokedAt), revokedReason: s.revokedReason }));
      },
    },
    // At most one TOTP factor and ten recovery codes: one read, no pages.
    { name: "secondFactors", rows: async function* () { yield await secondFactorRecords(directory, user.id); } },
    {
      // Reports the caller filed. Moderators' notes and identities are theirs, not the reporter's.
      name: "reports",
      rows: async function* () {
        for await (const rows of pages<typeof reports.$inferSelect>((last) =>
          directory.select().from(reports).where(and(eq(reports.reporterUserId, user.id), after(reports.createdAt, reports.id, byTime(last)))).orderBy(asc(reports.createdAt), asc(reports.id)).limit(n),
        ))
          yield rows.map((r) => ({
            reportId: r.id,
            fileId: r.fileId,
            reason: r.reason,
            details: r.details,
            email: r.email,
            status: r.status,
            createdAt: r.createdAt.toISOString(),
            resolvedAt: iso(r.resolvedAt),
          }));
      },
    },
    {
      name: "planChanges",
      rows: async function* () {
        for await (const rows of pages<typeof planChanges.$inferSelect>((last) =>
          directory.select().from(planChanges).where(and(eq(planChanges.userId, user.id), after(planChanges.createdAt, planChanges.id, byTime(last)))).orderBy(asc(planChanges.createdAt), asc(planChanges.id)).limit(n),
        )) yield rows.map(planChangeResource);
      },
    },
    {
      // What administrators did to the account (role, plan, ban). Who did it is left out.
      name: "accountHistory",
      rows: async function* () {
        for await (const rows of pages<typeof auditLog.$inferSelect>((last) =>
          directory
            .select()
            .from(auditLog)
            .where(and(eq(auditLog.targetType, "user"), eq(auditLog.targetId, user.id), after(auditLog.createdAt, auditLog.id, byTime(last))))
            .orderBy(asc(auditLog.createdAt), asc(auditLog.id))
            .limit(n),
        )) yield rows.map((a) => ({ action: a.action, details: a.details, createdAt: a.createdAt.toISOString() }));
      },
    },
    {
      name: "mail",
      rows: async function* () {
        for await (const rows of pages<typeof outbox.$inferSelect>((last) =>
          directory.select().from(outbox).where(and(eq(outbox.to, user.email), after(outbox.createdAt, outbox.id, byTime(last)))).orderBy(asc(outbox.createdAt), asc(outbox.id)).limit(n),
        )) yield rows.map((m) => ({ subject: m.subject, kind: m.kind, createdAt: m.createdAt.toISOString(), sentAt: iso(m.sentAt) }));
      },
    },
  ];
}

/** The document, piece by piece: a header, then each section's array, one page of rows per chunk. */
async function* exportChunks(dbs: DirectoryAndShard, env: Env, userId: string, now: Date): AsyncGenerator<string> {
  const [user, usage] = await Promise.all([dbs.directory.select().from(users).where(eq(users.id, userId)).get(), ownerUsage(dbs.shard, [userId])]);
  if (!user) throw new Error("export: user vanished");
  yield `{"format":${JSON.stringify(EXPORT_FORMAT)},"exportedAt":${JSON.stringify(now.toISOString())},"profile":${JSON.stringify(profile(user, usage.get(userId)!))}`;
  for (const section of sections(dbs, env, user)) {
    yield `,${JSON.stringify(section.name)}:[`;
    let first = true;
    for await (const rows of section.rows()) {
      if (rows.length === 0) continue;
      yield (first ? "" : ",") + rows.map((r) => JSON.stringify(r)).join(",");
      first = false;
    }
    yield "]";
  }
  yield "}\n";
}

/** A byte stream of the export that reads the database only as the client reads the response (pull). */
export function exportStream(dbs: DirectoryAndShard, env: Env, userId: string, now = new Date()): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const chunks = exportChunks(dbs, env, userId, now);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (err) {
        // Headers are gone already: the client sees a cut-off (invalid) document rather than a false one.
        console.error("account export failed", err);
        controller.error(err);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}
