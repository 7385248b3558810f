// The fill bench's rows, written by direct SQL into a local D1 file (bench/fill.bench.mjs): for each file, its
// files row, its finalized uploads row, its 3 phash and 16 embedding band rows (the values the app computes,
// analysis/bands.ts and embedding.ts), and for some its album; owners rows as owners appear. Rows look like the
// app's (the d1-bytes bench's rows: ids, a 512-character embedding, the stored finalize answer), so bytes and
// page counts are realistic. One transaction per chunk, prepared statements.
import { randomBytes } from "node:crypto";
import { flipBits, leaningCode, randomHex, randomId, title } from "./fill-random.mjs";

/** Seconds between uploads on the shard: 1 M files over about a year. */
const UPLOAD_INTERVAL_MS = 30_000;
const CHUNK = 20_000;
/** Share of files that are a near copy of their owner's previous file (phash and code a few bits apart). */
const NEAR_COPY = 0.05;
/** Share of files put into an album, and an album's size. */
const IN_ALBUM = 0.3;
const ALBUM_FILES = 25;

const FILE_COLUMNS = [
  "id", "user_id", "title", "filename", "mime", "bytes", "width", "height", "sha256", "store_key", "store_etag", "thumb_key",
  "visibility", "state", "view_count", "download_count", "nsfw_score", "age_restricted", "phash", "placeholder", "dominant_color",
  "embedding", "embedding_code", "analysis", "analyzed_at", "expires_at", "deleted_at", "finalized_at", "owner_ordinal", "created_at", "updated_at",
];
const UPLOAD_COLUMNS = ["id", "file_id", "user_id", "kind", "state", "bytes", "sha256", "reserved_bytes", "store_etag", "finalize_response", "expires_at", "created_at", "updated_at"];
const insert = (table, columns) => `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;

export class Filler {
  /**
   * @param {import("node:sqlite").DatabaseSync} db
   * @param {import("./fill-owners.mjs").Owners} owners
   * @param {{ bandValues(hex: string): number[]; embeddingBandValues(code: string): number[] }} bands the app's
   */
  constructor(db, owners, bands, random, { start }) {
    this.db = db;
    this.owners = owners;
    this.bands = bands;
    this.random = random;
    this.start = start;
    this.position = 0;
    this.ids = [];
    this.nextOwnerKey = 1;
    this.lean = Array.from({ length: 256 }, () => 0.3 + 0.4 * random());
    this.file = db.prepare(insert("files", FILE_COLUMNS));
    this.upload = db.prepare(insert("uploads", UPLOAD_COLUMNS));
    this.owner = db.prepare("INSERT INTO owners (id, user_id, storage_used, storage_reserved) VALUES (?, ?, 0, 0)");
    this.storage = db.prepare("UPDATE owners SET storage_used = storage_used + ?, storage_reserved = storage_reserved + ? WHERE id = ?");
    this.phash = db.prepare(`INSERT INTO phash_bands (owner, band, value, ordinal) VALUES ${"(?, ?, ?, ?), ".repeat(2)}(?, ?, ?, ?)`);
    this.embedding = db.prepare(`INSERT INTO embedding_bands (owner, band, value, ordinal) VALUES ${"(?, ?, ?, ?), ".repeat(15)}(?, ?, ?, ?)`);
    this.album = db.prepare("INSERT INTO albums (id, user_id, title, description, visibility, cover_file_id, file_count, created_at, updated_at) VALUES (?, ?, ?, '', ?, ?, 0, ?, ?)");
    this.albumFile = db.prepare("INSERT INTO album_files (album_id, file_id, added_at) VALUES (?, ?, ?)");
    this.albumCount = db.prepare("UPDATE albums SET file_count = file_count + 1, updated_at = ? WHERE id = ?");
  }

  ownerKey(owner) {
    if (owner.key === null) {
      owner.key = this.nextOwnerKey++;
      this.owner.run(owner.key, owner.userId);
    }
    return owner.key;
  }

  /** Adds finalized files until the shard holds `total`. */
  fillTo(total) {
    while (this.position < total) {
      const end = Math.min(total, this.position + CHUNK);
      this.db.exec("BEGIN");
      for (; this.position < end; this.position++) this.addFile(this.owners.ownerAt(this.position), this.start + this.position * UPLOAD_INTERVAL_MS);
      this.db.exec("COMMIT");
    }
  }

  addFile(owner, at) {
    const r = this.random;
    const key = this.ownerKey(owner);
    const ordinal = ++owner.ordinal;
    const fileId = `file_${randomId(r)}`;
    const near = owner.last && r() < NEAR_COPY;
    const phash = near ? flipBits(owner.last.phash, Math.floor(r() * 7), r) : randomHex(r, 16);
    const code = near ? flipBits(owner.last.code, 4 + Math.floor(r() * 20), r) : leaningCode(this.lean, r);
    const embedding = near ? owner.last.embedding : randomBytes(384).toString("base64");
    owner.last = { phash, code, embedding };
    const bytes = 200_000 + Math.floor(r() * 4_800_000);
    const sha256 = randomHex(r, 64);
    const jpeg = r() < 0.75;
    const filename = `IMG_${20250000 + Math.floor(r() * 9999)}_${Math.floor(r() * 1e6)}.${jpeg ? "jpg" : "png"}`;
    const day = new Date(at).toISOString().slice(0, 10);
    const v = r();
    const visibility = v < 0.8 ? "public" : v < 0.95 ? "unlisted" : "private";
    const score = r() * r();
    const gone = r();
    const expiresAt = gone < 0.01 ? at + 7 * 86_400_000 : null;
    const deletedAt = gone >= 0.01 && gone < 0.03 ? at + 86_400_000 : null;
    const [width, height] = r() < 0.5 ? [4032, 3024] : [1920, 1080];
    this.file.run(
      fileId, owner.userId, title(r), filename, jpeg ? "image/jpeg" : "image/png", bytes, width, height, sha256,
      `uploads/${day}/${fileId}/${filename}`, randomHex(r, 32), `thumbs/${fileId}.webp`, visibility, "finalized",
      Math.floor(r() * r() * 5000), Math.floor(r() * 20), score, score >= 0.8 ? 1 : 0, phash, `${randomId(r)}${randomId(r)}`,
      `#${randomHex(r, 6)}`, embedding, code, "done", at + 2_000, expiresAt, deletedAt, at + 1_000, ordinal, at, at + 2_000,
    );
    const answer = JSON.stringify({ width, height, nsfwScore: score, ageRestricted: score >= 0.8, visibility, expiresAt: null, phash: null, duplicates: [] });
    this.upload.run(`upl_${randomId(r)}`, fileId, owner.userId, "direct", "finalized", bytes, null, 0, randomHex(r, 32), answer, at + 3_600_000, at, at + 1_000);
    this.phash.run(...this.bands.bandValues(phash).flatMap((value, band) => [key, band, value, ordinal]));
    this.embedding.run(...this.bands.embeddingBandValues(code).flatMap((value, band) => [key, band, value, ordinal]));
    this.storage.run(bytes, 0, key);
    if (r() < IN_ALBUM) this.addToAlbum(owner, fileId, at);
    this.ids.push(fileId);
    if (owner.kind === "measured") (owner.fileIds ??= []).push(fileId);
  }

  addToAlbum(owner, fileId, at) {
    if (!owner.album || owner.album.files >= ALBUM_FILES) {
      owner.album = { id: `alb_${randomId(this.random)}`, files: 0 };
      this.album.run(owner.album.id, owner.userId, title(this.random) || "Untitled album", this.random() < 0.7 ? "public" : "unlisted", fileId, at, at);
    }
    owner.album.files++;
    this.albumFile.run(owner.album.id, fileId, at);
    this.albumCount.run(at, owner.album.id);
  }

  /**
   * `count` uploads of `owner` with their bytes in and the quota reserved, as presign and the PUT leave them:
   * what finalize's batch then moves (one each). Returns `[{ uploadId, fileId }]`.
   */
  uploadsToFinalize(owner, count, now) {
    const r = this.random;
    const key = this.ownerKey(owner);
    const made = [];
    this.db.exec("BEGIN");
    for (let i = 0; i < count; i++) {
      const fileId = `file_${randomId(r)}`;
      const uploadId = `upl_${randomId(r)}`;
      const bytes = 1_000_000 + Math.floor(r() * 3_000_000);
      const sha256 = randomHex(r, 64);
      this.db
        .prepare("INSERT INTO files (id, user_id, filename, mime, bytes, sha256, store_key, store_etag, state, owner_ordinal, created_at, updated_at) VALUES (?, ?, 'photo.jpg', 'image/jpeg', ?, ?, ?, ?, 'uploaded', ?, ?, ?)")
        .run(fileId, owner.userId, bytes, sha256, `uploads/x/${fileId}/photo.jpg`, randomHex(r, 32), ++owner.ordinal, now, now);
      this.db
        .prepare("INSERT INTO uploads (id, file_id, user_id, kind, state, bytes, sha256, reserved_bytes, store_etag, expires_at, created_at, updated_at) VALUES (?, ?, ?, 'direct', 'uploaded', ?, ?, ?, ?, ?, ?, ?)")
        .run(uploadId, fileId, owner.userId, bytes, sha256, bytes, randomHex(r, 32), now + 3_600_000, now, now);
      this.storage.run(0, bytes, key);
      made.push({ uploadId, fileId });
    }
    this.db.exec("COMMIT");
    return made;
  }
}
