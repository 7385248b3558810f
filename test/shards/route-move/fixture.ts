// The owner whose routes move-routes.test.ts takes before and after a move: on shard 0, with one object of each
// kind for the reads (a public file with a thumbnail and a near duplicate, an album, an open report, a signed
// link, three uploads: direct, multipart, tus) and two identical twin sets for the writes (set a is written
// before the move, set b after it). Rows are seeded straight into D1 (fast, as test/support/files.ts does);
// the uploads go through the API, since their routes are what is tested.
// `legacy`: every seeded file and album id is one from before shards that passes the check for shard 1 by
// chance, its rows on shard 0 (test/shards/legacy-ids.test.ts); its reports were filed by that service too.
import { env } from "cloudflare:test";
import { call, signup, type TestUser } from "../../support/api";
import { pngLikeBytes, seedFile, type SeedOptions } from "../../support/files";
import { report } from "../../support/moderation";
import { makePng, presign, putDirect, finalize, sha256 } from "../../uploads/helpers";
import { create as tusCreate, patch as tusPatch, pathOf } from "../../uploads/tus/support";
import { newShardedId, shardedId } from "../../../src/platform/data/shard-ids";
import { newId, randomId } from "../../../src/platform/data/ids";
import { shardDb, runBatch } from "../../../src/platform/data/db";
import { indexFileStatements } from "../../../src/analysis/band-rows";
import type { FileRow } from "../../../src/db/schema";

/** What each twin set holds, by name: the objects one write of the recipes (routes.ts) acts on. */
export const TWIN_FILES = ["patchFile", "deleteFile", "signFile", "revokeFile", "reportFile", "dismissFile", "removeFile", "banFile", "coverFile", "addFile", "pullFile", "newAlbumFile"] as const;
export const TWIN_ALBUMS = ["patchAlbum", "deleteAlbum", "addAlbum", "pullAlbum", "urlAlbum", "tusAlbum", "presignAlbum", "multipartAlbum", "formAlbum"] as const;
export const TWIN_REPORTS = ["dismissReport", "removeReport", "banReport"] as const;
type TwinName = (typeof TWIN_FILES)[number] | (typeof TWIN_ALBUMS)[number] | (typeof TWIN_REPORTS)[number];
export type Twin = Record<TwinName, string> & { side: "a" | "b" };

export type Uploads = {
  direct: { uploadId: string; fileId: string; storeKey: string; bytes: Uint8Array; storeEtag?: string };
  multipart: { uploadId: string; fileId: string; storeKey: string; bytes: Uint8Array; partEtag: string; storeEtag?: string };
  tus: { uploadId: string; path: string; bytes: Uint8Array };
};

export type Fixture = {
  owner: TestUser;
  moderator: TestUser;
  read: { file: FileRow; dup: FileRow; album: string; report: string; signedUrl: string };
  uploads: Uploads;
  twins: { a: Twin; b: Twin };
  /** Every fixture id and the name it is compared under (a twin's id and its other twin's share one). */
  names: Map<string, string>;
};

export const THUMB = pngLikeBytes(300, 99);
export const REPORTER_IP = "198.51.100.35";

export type FixtureOptions = { moderator: TestUser; legacy: boolean; uploadsInFlight: boolean };

export async function ownerFixture(opts: FixtureOptions): Promise<Fixture> {
  const owner = await signup();
  // On shard 0 (signup spreads owners over both shards), before any data is made: it moves to shard 1.
  await env.DB.prepare("UPDATE users SET shard = 0 WHERE id = ?").bind(owner.id).run();
  let seed = 0;
  const idFor = (prefix: "file" | "alb") => (opts.legacy ? shardedId(prefix, 1, randomId(18)) : newShardedId(prefix, 0));
  const file = (extra: SeedOptions = {}) =>
    seedFile(owner.id, { id: idFor("file"), shard: 0, title: "Moving", description: "prepared twice", content: pngLikeBytes(2048, ++seed), ...extra });
  const album = async (fileIds: string[]) => {
    const id = idFor("alb");
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO albums (id, user_id, title, visibility, file_count, created_at, updated_at) VALUES (?, ?, 'Moving album', 'public', ?, ?, ?)").bind(id, owner.id, fileIds.length, now, now),
      ...fileIds.map((f, i) => env.DB.prepare("INSERT INTO album_files (album_id, file_id, added_at) VALUES (?, ?, ?)").bind(id, f, now + i)),
    ]);
    return id;
  };
  const openReport = async (fileId: string) => {
    if (!opts.legacy) {
      const filed = await report({ fileId, reason: "spam", details: "spam before the move" }, { ip: REPORTER_IP });
      if (filed.status !== 201) throw new Error(`fixture: reporting ${fileId}: ${filed.status} ${filed.text}`);
      return filed.body.reportId as string;
    }
    const id = newId("rep");
    const now = Date.now();
    await env.DB.prepare("INSERT INTO reports (id, file_id, reason, details, priority, status, created_at, updated_at) VALUES (?, ?, 'spam', 'spam before the move', 'normal', 'pending', ?, ?)")
      .bind(id, fileId, now, now)
      .run();
    return id;
  };

  // The reads: a near-duplicate pair (phash distance 1) in the owner's band index, in an album, reported.
  const readFile = await file({ phash: "ffff0000ffff0000", thumb: THUMB });
  const dup = await file({ phash: "ffff0000ffff0001" });
  const db = shardDb(env, 0);
  for (const f of [readFile, dup]) await runBatch(db, indexFileStatements(db, { ...f, phash: null, embeddingCode: null }, { phash: f.phash!, embeddingCode: null }));
  const readAlbum = await album([readFile.id, dup.id]);
  const readReport = await openReport(readFile.id);
  const signed = await call(`/files/${readFile.id}/signed-url`, { token: owner.access, body: { expiresIn: 3600 } });
  if (signed.status !== 200) throw new Error(`fixture: signed link: ${signed.status} ${signed.text}`);

  const twin = async (side: "a" | "b"): Promise<Twin> => {
    const t = { side } as Twin;
    for (const name of TWIN_FILES) t[name] = (await file()).id;
    t.patchAlbum = await album([t.coverFile]);
    t.deleteAlbum = await album([]);
    t.addAlbum = await album([]);
    t.pullAlbum = await album([t.pullFile]);
    t.urlAlbum = await album([]);
    t.tusAlbum = await album([]);
    for (const name of ["presignAlbum", "multipartAlbum", "formAlbum"] as const) t[name] = await album([]);
    t.dismissReport = await openReport(t.dismissFile);
    t.removeReport = await openReport(t.removeFile);
    t.banReport = await openReport(t.banFile);
    return t;
  };
  const twins = { a: await twin("a"), b: await twin("b") };

  const uploads = await startUploads(owner);
  if (!opts.uploadsInFlight) await finishUploads(owner, uploads);

  const names = new Map<string, string>([
    [readFile.id, "<read file>"],
    [dup.id, "<duplicate>"],
    [readAlbum, "<read album>"],
    [readReport, "<read report>"],
    ...(["direct", "multipart"] as const).flatMap((k) => [
      [uploads[k].uploadId, `<${k} upload>`],
      [uploads[k].fileId, `<${k} file>`],
    ]) as [string, string][],
    [uploads.tus.uploadId, "<tus upload>"],
  ]);
  for (const t of [twins.a, twins.b]) for (const name of [...TWIN_FILES, ...TWIN_ALBUMS, ...TWIN_REPORTS]) names.set(t[name], `<${name}>`);
  return { owner, moderator: opts.moderator, read: { file: readFile, dup, album: readAlbum, report: readReport, signedUrl: signed.body.url }, uploads, twins, names };
}

/** Three uploads left in flight: a presign not yet PUT, a multipart upload with its one part, a tus upload with no bytes. */
async function startUploads(owner: TestUser): Promise<Uploads> {
  const token = owner.access;
  const [d, m, t] = [makePng(8, 8, 351), makePng(8, 8, 352), makePng(8, 8, 353)];
  const pre = await presign({ token, bytes: d, filename: "direct.png" });
  if (pre.status !== 201) throw new Error(`fixture: presign ${pre.status} ${pre.text}`);
  const init = await call("/upload/multipart/init", { token, body: { filename: "multipart.png", mime: "image/png", totalBytes: m.length, sha256: await sha256(m) } });
  if (init.status !== 201) throw new Error(`fixture: multipart init ${init.status} ${init.text}`);
  const part = await call(`/upload/multipart/${init.body.uploadId}/parts/1`, { method: "PUT", token, raw: m, headers: { "content-type": "application/octet-stream" } });
  if (part.status !== 200) throw new Error(`fixture: multipart part ${part.status} ${part.text}`);
  const created = await tusCreate({ token }, t.length, { filename: "tus.png", filetype: "image/png" });
  if (created.status !== 201) throw new Error(`fixture: tus create ${created.status} ${created.text}`);
  const path = pathOf(created);
  return {
    direct: { uploadId: pre.body.uploadId, fileId: pre.body.fileId, storeKey: pre.body.storeKey, bytes: d },
    multipart: { uploadId: init.body.uploadId, fileId: init.body.fileId, storeKey: init.body.storeKey, bytes: m, partEtag: part.body.etag },
    tus: { uploadId: path.split("/").pop()!, path, bytes: t },
  };
}

/** Ends the three uploads as their clients would: PUT and finalize, complete and finalize, the tus bytes. */
export async function finishUploads(owner: TestUser, u: Uploads): Promise<void> {
  const token = owner.access;
  const put = await putDirect(u.direct.fileId, u.direct.bytes, token);
  if (put.status !== 200) throw new Error(`fixture: direct PUT ${put.status} ${put.text}`);
  u.direct.storeEtag = put.headers.get("etag")!;
  const fin = await finalize(u.direct, u.direct.storeEtag, token);
  if (fin.status !== 200) throw new Error(`fixture: finalize ${fin.status} ${fin.text}`);
  const m = u.multipart;
  const done = await call("/upload/multipart/complete", { token, body: { uploadId: m.uploadId, fileId: m.fileId, storeKey: m.storeKey, parts: [{ partNumber: 1, etag: m.partEtag }] } });
  if (done.status !== 200) throw new Error(`fixture: multipart complete ${done.status} ${done.text}`);
  m.storeEtag = done.body.storeEtag;
  const mfin = await finalize(m, m.storeEtag!, token);
  if (mfin.status !== 200) throw new Error(`fixture: multipart finalize ${mfin.status} ${mfin.text}`);
  const tus = await tusPatch({ token }, u.tus.path, 0, u.tus.bytes);
  if (tus.status !== 204) throw new Error(`fixture: tus PATCH ${tus.status} ${tus.text}`);
}
