// Migration 0007 (fewer bytes per file) on a database with rows of the shape before it: applied to an empty
// database up to 0006, old-shape rows written as the code of then wrote them, then 0007. Existing files keep
// their near-duplicate detection (the band rows re-keyed in SQL, no re-analysis), the blocklist keeps matching,
// a repeated finalize keeps its answer.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { bandValues } from "../../src/analysis/bands";
import { matchBlocklist } from "../../src/analysis/blocklist";
import { embeddingBandValues, encodeFeatures } from "../../src/analysis/embedding";
import { files } from "../../src/db/schema";
import { findDuplicates } from "../../src/files/duplicate-lookup";
import { database0 } from "../../src/platform/data/db";
import { storedAnswer, type FinalizeResponse, type StoredFinalize } from "../../src/uploads/finalize-answer";

const old = () => env.MIGRATION_TEST_DB;
const db = () => database0(old()).shard; // the migrated database: shard 0 (and the directory)
const directory = () => database0(old()).directory;
const NOW = Date.now();

const P = "c53f706a9e352968"; // A's phash; B's is 1 bit away
const P_NEAR = "c53f706a9e352969";
const P_FAR = "3ac08f9561cad697";
const BLOCKED = "f0e1d2c3b4a59687";
const CODE = "0123456789abcdef".repeat(4);
const features = Array.from({ length: 384 }, (_, i) => Math.cos(i));
const nearFeatures = features.map((x, i) => x + (i % 7 === 0 ? 0.35 : 0));

type OldFile = { id: string; user: string | null; ordinal: number | null; phash: string | null; code?: string; features?: number[]; purged?: boolean };
const FILES: OldFile[] = [
  { id: "file_aaaaaaaaaaaaaaaaaaaaa", user: "usr_ownerone00000000000", ordinal: 1, phash: P, code: CODE, features },
  { id: "file_bbbbbbbbbbbbbbbbbbbbb", user: "usr_ownerone00000000000", ordinal: 2, phash: P_NEAR },
  { id: "file_ccccccccccccccccccccc", user: "usr_ownerone00000000000", ordinal: 3, phash: P_FAR, code: CODE, features: nearFeatures },
  { id: "file_ddddddddddddddddddddd", user: "usr_ownerone00000000000", ordinal: 4, phash: P, purged: true },
  { id: "file_eeeeeeeeeeeeeeeeeeeee", user: null, ordinal: null, phash: P },
  { id: "file_xxxxxxxxxxxxxxxxxxxxx", user: "usr_ownertwo00000000000", ordinal: 1, phash: P, code: CODE, features },
];
const [A, B, C, D] = FILES;
const X = FILES[5];

/** The answer finalize stored whole before 0007, for C's upload: with A as its exact duplicate. */
const wholeAnswer: FinalizeResponse = {
  fileId: C.id,
  url: `${env.IMAGE_URL}/${C.id}`,
  cdnUrl: `${env.CDN_URL}/uploads/2026-01-15/${C.id}/c.jpg`,
  mime: "image/jpeg",
  bytes: 1000,
  width: 640,
  height: 480,
  nsfwScore: 0.2,
  ageRestricted: false,
  visibility: "public",
  expiresAt: null,
  phash: "abcdef0123456789",
  duplicates: [{ fileId: A.id, url: `${env.IMAGE_URL}/${A.id}`, distance: 0, match: "exact" }],
  analysis: "pending",
  analysisError: null,
  placeholder: null,
  dominantColor: null,
};

beforeAll(async () => {
  await applyD1Migrations(old(), env.TEST_MIGRATIONS.filter((m) => m.name < "0007"));
  const statements: D1PreparedStatement[] = [];
  const run = (sql: string, ...params: unknown[]) => statements.push(old().prepare(sql).bind(...params));
  for (const user of ["usr_ownerone00000000000", "usr_ownertwo00000000000"]) {
    run("INSERT INTO users (id, email, username, password_hash, created_at, updated_at) VALUES (?1, ?1 || '@example.com', ?1, 'x', ?2, ?2)", user, NOW);
  }
  for (const f of FILES) {
    run(
      `INSERT INTO files (id, user_id, owner_ordinal, filename, mime, bytes, store_key, state, analysis, phash, embedding, embedding_code, purged_at, created_at, updated_at)
       VALUES (?1, ?2, ?3, 'c.jpg', 'image/jpeg', 1000, 'uploads/2026-01-15/' || ?1 || '/c.jpg', 'finalized', 'done', ?4, ?5, ?6, ?7, ?8, ?8)`,
      f.id, f.user, f.ordinal, f.phash, f.features ? encodeFeatures(f.features) : null, f.code ?? null, f.purged ? NOW : null, NOW,
    );
    // The old index: a row per (owner, band, value, ref), phash rows with the phash; anonymous files had none.
    if (!f.user) continue;
    bandValues(f.phash!).forEach((value, band) => run("INSERT INTO phash_bands (owner, band, value, ref, phash) VALUES (?, ?, ?, ?, ?)", f.user, band, value, f.id, f.phash));
    if (f.code) embeddingBandValues(f.code).forEach((value, band) => run("INSERT INTO embedding_bands (owner, band, value, ref) VALUES (?, ?, ?, ?)", f.user, band, value, f.id));
  }
  run("INSERT INTO blocklist (id, phash, created_at) VALUES ('blk_old0000000000000000', ?, ?)", BLOCKED, NOW);
  bandValues(BLOCKED).forEach((value, band) => run("INSERT INTO phash_bands (owner, band, value, ref, phash) VALUES ('blocklist', ?, ?, 'blk_old0000000000000000', ?)", band, value, BLOCKED));
  const upload = "INSERT INTO uploads (id, file_id, user_id, kind, state, bytes, sha256, r2_upload_id, store_etag, finalize_response, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1000, ?, ?, '\"etag\"', ?, ?, ?, ?)";
  run(upload, "upl_finalized0000000000", C.id, C.user, "multipart", "finalized", "a".repeat(64), "r2-multipart-id", JSON.stringify(wholeAnswer), NOW + 3_600_000, NOW, NOW);
  run(upload, "upl_pending000000000000", B.id, B.user, "direct", "pending", "b".repeat(64), null, null, NOW + 3_600_000, NOW, NOW);
  await old().batch(statements);
  await applyD1Migrations(old(), env.TEST_MIGRATIONS);
});

const rows = async <T>(sql: string, ...params: unknown[]) => (await old().prepare(sql).bind(...params).all<T>()).results;
const ownerKey = async (user: string) => (await old().prepare("SELECT id FROM owners WHERE user_id = ?").bind(user).first<{ id: number }>())!.id;

describe("migration 0007 on rows of the shape before it", () => {
  it("gives every owner with band rows an integer key", async () => {
    expect(await rows("SELECT id, user_id FROM owners ORDER BY id")).toEqual([
      { id: 1, user_id: "usr_ownerone00000000000" },
      { id: 2, user_id: "usr_ownertwo00000000000" },
    ]);
  });

  it("re-keys the band rows by owner key and ordinal: the same band values, none for purged files", async () => {
    const one = await ownerKey("usr_ownerone00000000000");
    const two = await ownerKey("usr_ownertwo00000000000");
    const expected = (owner: number, ordinal: number, values: number[]) => values.map((value, band) => ({ owner, band, value, ordinal }));
    type Row = { owner: number; band: number; value: number; ordinal: number };
    const sort = (r: Row[]) => [...r].sort((a, b) => a.owner - b.owner || a.ordinal - b.ordinal || a.band - b.band);
    expect(sort(await rows<Row>("SELECT owner, band, value, ordinal FROM phash_bands"))).toEqual(
      sort([...expected(one, 1, bandValues(P)), ...expected(one, 2, bandValues(P_NEAR)), ...expected(one, 3, bandValues(P_FAR)), ...expected(two, 1, bandValues(P))]),
    );
    expect(sort(await rows<Row>("SELECT owner, band, value, ordinal FROM embedding_bands"))).toEqual(
      sort([...expected(one, 1, embeddingBandValues(CODE)), ...expected(one, 3, embeddingBandValues(CODE)), ...expected(two, 1, embeddingBandValues(CODE))]),
    );
    expect(await rows("SELECT band, value, entry, phash FROM blocklist_bands ORDER BY band")).toEqual(
      bandValues(BLOCKED).map((value, band) => ({ band, value, entry: "blk_old0000000000000000", phash: BLOCKED })),
    );
  });

  it("existing files keep their duplicates: by phash and by the embedding, the owner's only", async () => {
    const a = (await db().select().from(files).all()).find((f) => f.id === A.id)!;
    const found = await findDuplicates(db(), env, a);
    expect(found.map((d) => [d.fileId, d.match === "similar" && d.signal])).toEqual([
      [B.id, "phash"],
      [C.id, "embedding"],
    ]);
    expect(found.map((d) => d.fileId)).not.toContain(D.id);
    expect(found.map((d) => d.fileId)).not.toContain(X.id);
    expect(await matchBlocklist(directory(), BLOCKED)).toMatchObject({ entryId: "blk_old0000000000000000", distance: 0 });
  });

  it("keeps what a repeated finalize answers, and drops what a finished upload no longer needs", async () => {
    const [finalized, pending] = await rows<Record<string, any>>("SELECT * FROM uploads ORDER BY id");
    expect(finalized).toMatchObject({ state: "finalized", sha256: null, r2_upload_id: null, store_etag: '"etag"' });
    const stored = JSON.parse(finalized.finalize_response) as StoredFinalize;
    expect(stored).toEqual({ width: 640, height: 480, nsfwScore: 0.2, ageRestricted: false, visibility: "public", expiresAt: null, phash: "abcdef0123456789", duplicates: [A.id] });
    const c = (await db().select().from(files).all()).find((f) => f.id === C.id)!;
    expect(storedAnswer(env, c, stored)).toEqual(wholeAnswer);
    expect(pending).toMatchObject({ state: "pending", sha256: "b".repeat(64), finalize_response: null });
  });

  it("leaves the tables and indexes of the schema: band tables WITHOUT ROWID with no index, partial indexes", async () => {
    for (const database of [old(), env.DB]) {
      const schema = await database.prepare("SELECT name, tbl_name, sql FROM sqlite_schema WHERE tbl_name IN ('phash_bands', 'embedding_bands', 'blocklist_bands', 'owners', 'uploads', 'files') AND sql IS NOT NULL").all<{ name: string; tbl_name: string; sql: string }>();
      const sqlOf = (name: string) => schema.results.find((r) => r.name === name)?.sql ?? "";
      for (const table of ["phash_bands", "embedding_bands", "blocklist_bands"]) {
        expect(sqlOf(table)).toMatch(/\) WITHOUT ROWID$/);
        expect(schema.results.filter((r) => r.tbl_name === table).map((r) => r.name)).toEqual([table]);
      }
      expect(sqlOf("uploads_user")).toBe("");
      expect(sqlOf("uploads_state_expires")).toMatch(/WHERE state IN \('pending', 'uploaded'\)$/);
      expect(sqlOf("files_expires")).toMatch(/WHERE expires_at IS NOT NULL$/);
      expect(sqlOf("files_deleted")).toMatch(/WHERE deleted_at IS NOT NULL$/);
    }
  });
});
