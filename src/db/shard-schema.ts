// A shard's tables: one owner's data lives together on one shard (files, uploads, albums, the near-duplicate
// indexes, the owners' integer keys). Database `DB` is shard 0 as well as the directory; docs/sharding.md.
// Nothing here refers to the directory's tables except the foreign keys to users that predate shards (kept so
// that drizzle-kit generates no table rebuild; a shard's own migrations will not have them: docs/sharding.md).
// The three tables that have one are built by a function, once with it and once without (shard-only-schema.ts).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { users } from "./directory-schema";

/** `user_id` of files, uploads and albums: keyed to users on database DB, not on a shard's own database. */
const userIdColumn = (keyedToUsers: boolean) => (keyedToUsers ? text("user_id").references(() => users.id) : text("user_id"));

// ---------------------------------------------------------------------------------------------------------
// Files and uploads (uploads/, files/, serving/, analysis/)

export const VISIBILITIES = ["public", "unlisted", "private"] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const filesTable = (keyedToUsers: boolean) =>
  sqliteTable(
    "files",
    {
      id: text("id").primaryKey(),
      /** Null for anonymous uploads. */
      userId: userIdColumn(keyedToUsers),
      title: text("title").notNull().default(""),
      description: text("description").notNull().default(""),
      /** Alt text for pages and embed codes (extensions.md § 9); empty: the title stands in. */
      alt: text("alt").notNull().default(""),
      /** The sanitised client filename, as it appears in storeKey and the CDN link. */
      filename: text("filename").notNull(),
      mime: text("mime").notNull(),
      bytes: integer("bytes").notNull(),
      width: integer("width"),
      height: integer("height"),
      /** Hex SHA-256 of the original bytes: the exact-duplicate key. Null until known (multipart without one). */
      sha256: text("sha256"),
      storeKey: text("store_key").notNull(),
      storeEtag: text("store_etag"),
      thumbKey: text("thumb_key"),
      visibility: text("visibility", { enum: VISIBILITIES }).notNull().default("public"),
      /** created -> uploaded (bytes stored, status "ready") -> finalized; failed when verification failed. */
      state: text("state", { enum: ["created", "uploaded", "finalized", "failed"] }).notNull().default("created"),
      tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
      hotlinkPolicy: text("hotlink_policy", { enum: ["allow", "whitelist", "block"] }).notNull().default("allow"),
      hotlinkDomains: text("hotlink_domains", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
      viewCount: integer("view_count").notNull().default(0),
      downloadCount: integer("download_count").notNull().default(0),
      nsfwScore: real("nsfw_score"),
      /** Client-sent hint; the server's own score never goes below it (decisions.md § Uploads). */
      clientNsfwScore: real("client_nsfw_score"),
      ageRestricted: integer("age_restricted", { mode: "boolean" }).notNull().default(false),
      /** Set by a moderator: overrides the score either way. */
      ageRestrictedOverride: integer("age_restricted_override", { mode: "boolean" }),
      phash: text("phash"),
      /** Client-sent phash hint, used until the server's analysis lands. */
      clientPhash: text("client_phash"),
      /** Base64 ThumbHash of the picture (analysis/placeholder.ts), painted by pages while the image loads. */
      placeholder: text("placeholder"),
      /** `#rrggbb`, the most common colour of the picture. */
      dominantColor: text("dominant_color"),
      /** The NSFW model's near-duplicate features, 384 signed bytes as base64 (analysis/embedding.ts); null before analysis. */
      embedding: text("embedding"),
      /** Their 256-bit code (64 hex digits), the key of the file's embedding_bands rows. */
      embeddingCode: text("embedding_code"),
      analysis: text("analysis", { enum: ["none", "pending", "done", "failed"] }).notNull().default("none"),
      analysisError: text("analysis_error"),
      /** Why a failed analysis failed, as a code (the message is analysis_error): pages and previews decide from it. */
      analysisFailure: text("analysis_failure", { enum: ["file_too_large", "pixel_limit", "frame_limit", "unreadable", "gave_up"] }),
      analyzedAt: integer("analyzed_at", { mode: "timestamp_ms" }),
      /** SHA-256 hex of an anonymous uploader's delete token. */
      deleteTokenHash: text("delete_token_hash"),
      expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
      deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
      /** Hidden while a high-priority report is under review (csam, terrorism). */
      hiddenAt: integer("hidden_at", { mode: "timestamp_ms" }),
      /** Banned by a moderator (ban_file, remove_file) or because its owner was banned. */
      bannedAt: integer("banned_at", { mode: "timestamp_ms" }),
      /** Matched the blocklist at analysis. */
      quarantinedAt: integer("quarantined_at", { mode: "timestamp_ms" }),
      /** When storage objects were removed and quota released; the row stays for 410s and audit. */
      purgedAt: integer("purged_at", { mode: "timestamp_ms" }),
      finalizedAt: integer("finalized_at", { mode: "timestamp_ms" }),
      /**
       * The file's place among its owner's files, 1, 2, 3... in the order they were created (null for anonymous
       * uploads), set once at insert. Edge-cached records of the first SERVING.ownerStateCarriedFiles carry the
       * owner's state, so an owner's ban names a bounded list of them (serving/owner-state.ts).
       */
      ownerOrdinal: integer("owner_ordinal"),
      /**
       * Random, per file: with the server's SIGNED_URL_SECRET it keys the HMAC of the file's signed links
       * (serving/signed-links.ts). Null until the first link is made; replaced on revoke, which voids every
       * link made so far. Not secret on its own: it travels in the edge-cached access records.
       */
      signingSalt: text("signing_salt"),
      createdAt: createdAt(),
      updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
    },
    (t) => [
      // The owner's list (files/queries.ts): by date, and every column its filters read after it, so the total and
      // the rows an offset skips are decided from the index alone: an owner's files rows lie across the whole table
      // (bench/README.md § fill: ~20 bytes a file, the list of a 9,000-file owner 10x faster).
      index("files_user_created").on(
        t.userId,
        t.createdAt,
        t.state,
        t.visibility,
        t.deletedAt,
        t.bannedAt,
        t.hiddenAt,
        t.quarantinedAt,
        t.purgedAt,
        t.expiresAt,
        t.ageRestricted,
        t.ageRestrictedOverride,
      ),
      uniqueIndex("files_user_ordinal").on(t.userId, t.ownerOrdinal),
      index("files_user_views").on(t.userId, t.viewCount),
      index("files_user_bytes").on(t.userId, t.bytes),
      index("files_user_sha256").on(t.userId, t.sha256),
      // Partial: most files never expire and are never deleted. The purge's range conditions imply NOT NULL,
      // so SQLite still walks them (test/files/purge.test.ts checks the plans).
      index("files_expires").on(t.expiresAt).where(sql`expires_at IS NOT NULL`),
      index("files_deleted").on(t.deletedAt).where(sql`deleted_at IS NOT NULL`),
      index("files_state_created").on(t.state, t.createdAt),
      // Small by design: only files whose analysis has not landed, for the job that re-sends lost messages.
      index("files_analysis_pending").on(t.finalizedAt).where(sql`analysis = 'pending'`),
    ],
  );
export const files = filesTable(true);

export const uploadsTable = (keyedToUsers: boolean) =>
  sqliteTable(
    "uploads",
    {
      id: text("id").primaryKey(),
      fileId: text("file_id").notNull().references(() => files.id),
      userId: userIdColumn(keyedToUsers),
      kind: text("kind", { enum: ["direct", "multipart", "tus"] }).notNull(),
      /** pending -> uploaded (direct PUT / multipart complete) -> finalized; or aborted / failed / expired. */
      state: text("state", { enum: ["pending", "uploaded", "finalized", "aborted", "failed", "expired"] }).notNull().default("pending"),
      bytes: integer("bytes").notNull(),
      /** What the PUT must match; cleared at finalize (files.sha256 keeps it). */
      sha256: text("sha256"),
      /** Quota held for this upload until finalize commits it or cleanup releases it; 0 once settled. */
      reservedBytes: integer("reserved_bytes").notNull().default(0),
      /** R2 multipart upload id; cleared at finalize (a finalized upload is never aborted). */
      r2UploadId: text("r2_upload_id"),
      partSize: integer("part_size"),
      partCount: integer("part_count"),
      storeEtag: text("store_etag"),
      /**
       * The album the upload's creator named (extensions.md § 8): the file joins it in finalize's batch. Checked to
       * be the creator's when the upload started; an album deleted meanwhile is simply not joined.
       */
      albumId: text("album_id"),
      /**
       * What a repeated finalize answers besides the file row (uploads/finalize-answer.ts): the values finalize
       * answered that the row may no longer hold (visibility, expiry, score, size, hints, the exact duplicates'
       * ids), so a repeated call answers the same body.
       */
      finalizeResponse: text("finalize_response", { mode: "json" }),
      expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
      createdAt: createdAt(),
      updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
    },
    (t) => [
      index("uploads_file").on(t.fileId),
      // Only uploads in flight, the clean-up's expiry walk (uploads/cleanup.ts); ended and finalized ones drop out.
      // No index by user_id: nothing reads uploads by owner, and users rows are never deleted (no foreign-key check).
      index("uploads_state_expires").on(t.state, t.expiresAt).where(sql`state IN ('pending', 'uploaded')`),
    ],
  );
export const uploads = uploadsTable(true);

export const uploadParts = sqliteTable(
  "upload_parts",
  {
    uploadId: text("upload_id").notNull().references(() => uploads.id),
    partNumber: integer("part_number").notNull(),
    etag: text("etag").notNull(),
    bytes: integer("bytes").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.uploadId, t.partNumber] })],
);

/**
 * What a shard knows of each owner on it (docs/sharding.md § owners, also when a row is made); its small integer key
 * names an owner in the band rows in 1 to 3 bytes instead of a 25-character user id (read by a subquery in the same
 * statement).
 */
export const owners = sqliteTable("owners", {
  id: integer("id").primaryKey(),
  userId: text("user_id").notNull().unique(),
  /** Bytes of finalized files (committed) and of uploads in flight (reserved); see uploads/quota.ts. */
  storageUsed: integer("storage_used").notNull().default(0),
  storageReserved: integer("storage_reserved").notNull().default(0),
  /** Copies of the directory's users.banned_at / deleted_at, written first: what the read rules decide from. */
  bannedAt: integer("banned_at", { mode: "timestamp_ms" }),
  deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
  /**
   * Set while the owner is being moved to that shard, and kept on the old shard once moved (admin/shard-move):
   * the owner's writes that reach this shard then answer 503 owner_moving. Null: the owner lives here.
   */
  movedTo: integer("moved_to"),
});

/**
 * Ids of files, uploads and albums whose owner moved off this shard (admin/shard-move): the shard now holding
 * them. Ids name the shard they were made on, so a lookup by id that misses here reads this table and follows
 * it (platform/data/moved-ids.ts). WITHOUT ROWID (by hand in the migrations, as for the bands): the key is the table.
 */
export const movedFiles = sqliteTable("moved_files", {
  id: text("id").primaryKey(),
  shard: integer("shard").notNull(),
});

// The owners' near-duplicate indexes (analysis/bands.ts, embedding-index.ts): a row per (owner, band, value, ordinal),
// `ordinal` being files.owner_ordinal, joined back to files on (user_id, owner_ordinal). WITHOUT ROWID (migration
// 0007; drizzle cannot declare it, test/db/migration-0007.test.ts checks it), ~13 bytes a row, and no index by file:
// a file's rows are deleted by exact keys recomputed from its row (src/analysis/README.md § Near-duplicate index).

/** Each 64-bit phash cut into 3 bands (bands.ts). Only owners' files; the blocklist has blocklist_bands. */
export const phashBands = sqliteTable(
  "phash_bands",
  {
    owner: integer("owner").notNull(),
    band: integer("band").notNull(),
    value: integer("value").notNull(),
    ordinal: integer("ordinal").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.band, t.value, t.ordinal] })],
);

/** Each 256-bit embedding code cut into 16 bands of 16 bits (embedding-index.ts). */
export const embeddingBands = sqliteTable(
  "embedding_bands",
  {
    owner: integer("owner").notNull(),
    band: integer("band").notNull(),
    value: integer("value").notNull(),
    ordinal: integer("ordinal").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.band, t.value, t.ordinal] })],
);
// ---------------------------------------------------------------------------------------------------------
// Albums

export const albumsTable = (keyedToUsers: boolean) =>
  sqliteTable(
    "albums",
    {
      id: text("id").primaryKey(),
      userId: userIdColumn(keyedToUsers).notNull(),
      title: text("title").notNull(),
      description: text("description").notNull().default(""),
      visibility: text("visibility", { enum: VISIBILITIES }).notNull().default("public"),
      tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
      /** Self-describing password hash (platform/crypto/passwords.ts); null when the album has no password. */
      passwordHash: text("password_hash"),
      coverFileId: text("cover_file_id"),
      viewCount: integer("view_count").notNull().default(0),
      fileCount: integer("file_count").notNull().default(0),
      deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
      createdAt: createdAt(),
      updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
    },
    (t) => [index("albums_user_created").on(t.userId, t.createdAt)],
  );
export const albums = albumsTable(true);

export const albumFiles = sqliteTable(
  "album_files",
  {
    albumId: text("album_id").notNull().references(() => albums.id),
    fileId: text("file_id").notNull().references(() => files.id),
    addedAt: integer("added_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.albumId, t.fileId] }), index("album_files_file").on(t.fileId), index("album_files_album_added").on(t.albumId, t.addedAt)],
);

export type FileRow = typeof files.$inferSelect;
export type UploadRow = typeof uploads.$inferSelect;
export type AlbumRow = typeof albums.$inferSelect;

export * from "./insights-schema";
