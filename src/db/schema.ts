// The one drizzle schema. `npm run db:generate` turns changes here into a migration under migrations/.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const createdAt = () => integer("created_at", { mode: "timestamp_ms" }).notNull();

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    /** Lower-cased. Unique among live accounts only, so a deleted account's address can sign up again. */
    email: text("email").notNull(),
    username: text("username").notNull(),
    firstName: text("first_name").notNull().default(""),
    lastName: text("last_name").notNull().default(""),
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: ["user", "moderator", "admin"] }).notNull().default("user"),
    plan: text("plan", { enum: ["free", "pro", "enterprise"] }).notNull().default("free"),
    ageConfirmed: integer("age_confirmed", { mode: "boolean" }).notNull().default(false),
    safeMode: integer("safe_mode", { mode: "boolean" }).notNull().default(true),
    emailVerifiedAt: integer("email_verified_at", { mode: "timestamp_ms" }),
    /** Bytes of finalized files (committed) and of uploads in flight (reserved); see uploads/quota.ts. */
    storageUsed: integer("storage_used").notNull().default(0),
    storageReserved: integer("storage_reserved").notNull().default(0),
    bannedAt: integer("banned_at", { mode: "timestamp_ms" }),
    deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    uniqueIndex("users_email_live").on(t.email).where(sql`deleted_at IS NULL`),
    uniqueIndex("users_username_live").on(sql`lower(${t.username})`).where(sql`deleted_at IS NULL`),
  ],
);

/** A login session = one refresh-token family. Access tokens carry its id (`sid`), so logout ends them at once. */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    revokedReason: text("revoked_reason"),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("sessions_user").on(t.userId)],
);

export const refreshTokens = sqliteTable(
  "refresh_tokens",
  {
    /** SHA-256 hex of the opaque token; the token itself is never stored. */
    tokenHash: text("token_hash").primaryKey(),
    sessionId: text("session_id").notNull().references(() => sessions.id),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("refresh_tokens_session").on(t.sessionId), index("refresh_tokens_expires").on(t.expiresAt)],
);

/** One-time tokens sent by mail (e-mail verification, password reset). */
export const emailTokens = sqliteTable(
  "email_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    purpose: text("purpose", { enum: ["verify_email", "reset_password"] }).notNull(),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("email_tokens_user").on(t.userId), index("email_tokens_expires").on(t.expiresAt)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    name: text("name").notNull(),
    /** SHA-256 hex of the whole key. */
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    /** JSON array of permissions: read, upload, manage. */
    permissions: text("permissions", { mode: "json" }).$type<("read" | "upload" | "manage")[]>().notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [index("api_keys_user").on(t.userId, t.createdAt)],
);

/** Mail outbox. Development reads it at /api/v1/dev/outbox; production delivers it through a mail binding. */
export const outbox = sqliteTable(
  "outbox",
  {
    id: text("id").primaryKey(),
    to: text("to_address").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    kind: text("kind").notNull(),
    createdAt: createdAt(),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("outbox_to_created").on(t.to, t.createdAt)],
);

// Two-factor sign-in (extensions.md §5; auth/totp-factor.ts, auth/recovery-codes.ts, auth/second-factor.ts) and
// passkeys (auth/passkeys.ts, auth/passkey-sign-in.ts).

/** An account's TOTP factor: pending from enrolment until a first code confirms it. One per account. */
export const totpFactors = sqliteTable("totp_factors", {
  userId: text("user_id").primaryKey().references(() => users.id),
  /** The seed sealed with AES-GCM (platform/secret-box.ts), bound to user_id; never stored in clear. */
  secretSealed: text("secret_sealed").notNull(),
  /** The latest 30-second step whose code was accepted: a code is taken only for a later step (single use). */
  lastUsedStep: integer("last_used_step"),
  confirmedAt: integer("confirmed_at", { mode: "timestamp_ms" }),
  createdAt: createdAt(),
});

/** Single-use recovery codes, each stored as a SHA-256 (80 random bits: no offline guessing). */
export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    userId: text("user_id").notNull().references(() => users.id),
    codeHash: text("code_hash").notNull(),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.codeHash] })],
);

/** The password step's proof, waiting for the second factor: SHA-256 of the token, single use, 5 minutes. */
export const mfaTokens = sqliteTable(
  "mfa_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    /** SHA-256 of the WebAuthn challenge handed out for this sign-in's passkey step; cleared when claimed. */
    passkeyChallengeHash: text("passkey_challenge_hash"),
  },
  (t) => [index("mfa_tokens_user").on(t.userId), index("mfa_tokens_expires").on(t.expiresAt)],
);

/** An account's passkeys (WebAuthn credentials, auth/passkeys.ts): a second factor, and a sign-in of their own. */
export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    name: text("name").notNull(),
    /** The credential ID the authenticator chose, base64url: what an assertion names. */
    credentialId: text("credential_id").notNull().unique(),
    /** The COSE public key, base64url. A public key: nothing here signs anything. */
    publicKey: text("public_key").notNull(),
    /** The authenticator's signature counter as last seen (0: it keeps none). */
    counter: integer("counter").notNull().default(0),
    /** JSON array of the transports the browser reported (usb, nfc, internal, hybrid...), handed back as hints. */
    transports: text("transports", { mode: "json" }).$type<string[]>(),
    createdAt: createdAt(),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("passkeys_user").on(t.userId)],
);

/**
 * WebAuthn challenges of a registration (the user's) and of a sign-in without a password (no user yet): SHA-256 of
 * the challenge, single use (deleted when claimed), a few minutes. The second step's challenge lives in mfa_tokens.
 */
export const passkeyChallenges = sqliteTable(
  "passkey_challenges",
  {
    challengeHash: text("challenge_hash").primaryKey(),
    purpose: text("purpose", { enum: ["register", "login"] }).notNull(),
    userId: text("user_id").references(() => users.id),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("passkey_challenges_expires").on(t.expiresAt)],
);

export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

// ---------------------------------------------------------------------------------------------------------
// Files and uploads (uploads/, files/, serving/, analysis/)

export const VISIBILITIES = ["public", "unlisted", "private"] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const files = sqliteTable(
  "files",
  {
    id: text("id").primaryKey(),
    /** Null for anonymous uploads. */
    userId: text("user_id").references(() => users.id),
    title: text("title").notNull().default(""),
    description: text("description").notNull().default(""),
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
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    index("files_user_created").on(t.userId, t.createdAt),
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

export const uploads = sqliteTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    fileId: text("file_id").notNull().references(() => files.id),
    userId: text("user_id").references(() => users.id),
    kind: text("kind", { enum: ["direct", "multipart"] }).notNull(),
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
 * Owners' small integer keys: the band indexes below name an owner by `id` (1 to 3 bytes) instead of its
 * 25-character user id. A row is made, if missing, in the analysis job's batch before an owner's first band
 * rows (analysis/band-rows.ts); lookups read the key by a subquery in the same statement.
 */
export const owners = sqliteTable("owners", {
  id: integer("id").primaryKey(),
  userId: text("user_id").notNull().unique(),
});

// The owners' near-duplicate indexes (multi-index hashing, analysis/bands.ts and embedding-index.ts): a row per
// (owner, band, value, ordinal), where `ordinal` is the file's files.owner_ordinal (unique with user_id), and
// nothing else: the lookups join files on (user_id, owner_ordinal). Both tables are WITHOUT ROWID (migration
// 0007; drizzle cannot declare it; test/db/migration-0007.test.ts checks it): the primary key is the table, so a
// row is stored once, in ~13 bytes. There is no index by file: a file's rows are deleted by their exact keys,
// recomputed from the phash and embedding code its files row keeps (analysis/band-rows.ts).

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

/**
 * The blocklist's phash index (analysis/blocklist.ts): global, not an owner's, so a table of its own (a row per
 * entry and band, with the entry's phash to verify the distance). WITHOUT ROWID too; an entry's rows are deleted
 * by their keys, recomputed from its phash.
 */
export const blocklistBands = sqliteTable(
  "blocklist_bands",
  {
    band: integer("band").notNull(),
    value: integer("value").notNull(),
    entry: text("entry").notNull(),
    phash: text("phash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.band, t.value, t.entry] })],
);

// ---------------------------------------------------------------------------------------------------------
// Albums

export const albums = sqliteTable(
  "albums",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    visibility: text("visibility", { enum: VISIBILITIES }).notNull().default("public"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    /** Self-describing password hash (platform/passwords.ts); null when the album has no password. */
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

export const albumFiles = sqliteTable(
  "album_files",
  {
    albumId: text("album_id").notNull().references(() => albums.id),
    fileId: text("file_id").notNull().references(() => files.id),
    addedAt: integer("added_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.albumId, t.fileId] }), index("album_files_file").on(t.fileId), index("album_files_album_added").on(t.albumId, t.addedAt)],
);

// ---------------------------------------------------------------------------------------------------------
// Moderation, audit, billing

export const REPORT_REASONS = ["csam", "terrorism", "adult_content", "violence", "harassment", "hate_speech", "self_harm", "spam", "copyright", "other"] as const;

export const reports = sqliteTable(
  "reports",
  {
    id: text("id").primaryKey(),
    fileId: text("file_id").notNull(),
    reason: text("reason", { enum: REPORT_REASONS }).notNull(),
    details: text("details").notNull().default(""),
    email: text("email"),
    reporterUserId: text("reporter_user_id"),
    /** SHA-256 of the reporter's IP: enough to spot abuse, not enough to identify anyone. */
    reporterIpHash: text("reporter_ip_hash"),
    priority: text("priority", { enum: ["high", "normal"] }).notNull().default("normal"),
    status: text("status", { enum: ["pending", "resolved"] }).notNull().default("pending"),
    /** Repeated reports of one file aggregate into the open report. */
    reportCount: integer("report_count").notNull().default(1),
    action: text("action", { enum: ["dismiss", "remove_file", "ban_file", "ban_user"] }),
    resolvedBy: text("resolved_by"),
    resolvedAt: integer("resolved_at", { mode: "timestamp_ms" }),
    note: text("note"),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    index("reports_queue").on(t.status, t.priority, t.createdAt),
    uniqueIndex("reports_open_per_file").on(t.fileId).where(sql`status = 'pending'`),
    index("reports_reporter").on(t.reporterUserId),
  ],
);

export const blocklist = sqliteTable("blocklist", {
  id: text("id").primaryKey(),
  phash: text("phash").notNull(),
  sourceFileId: text("source_file_id"),
  reportId: text("report_id"),
  createdBy: text("created_by"),
  createdAt: createdAt(),
});

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    actorId: text("actor_id"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
    createdAt: createdAt(),
  },
  (t) => [index("audit_target").on(t.targetType, t.targetId), index("audit_created").on(t.createdAt)],
);

export const planChanges = sqliteTable(
  "plan_changes",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    fromPlan: text("from_plan").notNull(),
    toPlan: text("to_plan").notNull(),
    provider: text("provider").notNull(),
    status: text("status", { enum: ["pending", "applied", "rejected", "cancelled"] }).notNull().default("pending"),
    providerRef: text("provider_ref"),
    decidedBy: text("decided_by"),
    decidedAt: integer("decided_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [index("plan_changes_user").on(t.userId, t.createdAt), index("plan_changes_status").on(t.status, t.createdAt)],
);

/** Webhook event ids already applied: a replayed delivery changes nothing. */
export const webhookEvents = sqliteTable("webhook_events", {
  id: text("id").primaryKey(),
  provider: text("provider").notNull(),
  receivedAt: integer("received_at", { mode: "timestamp_ms" }).notNull(),
});

export type FileRow = typeof files.$inferSelect;
export type UploadRow = typeof uploads.$inferSelect;
export type AlbumRow = typeof albums.$inferSelect;
export type ReportRow = typeof reports.$inferSelect;
