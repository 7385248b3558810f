// The directory's tables: what spans owners (accounts and their credentials, mail, the blocklist, reports, audit,
// plans and billing). The directory is database `DB`; docs/sharding.md. `src/db/schema.ts` re-exports this file
// with the shard's for drizzle-kit, which generates migrations/ from both.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

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
    /** The shard that holds this owner's files, uploads and albums (docs/sharding.md); 0 for every owner from before shards. */
    shard: integer("shard").notNull().default(0),
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

export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * The blocklist's phash index (analysis/blocklist.ts): global, not an owner's, so a table of its own (a row per
 * entry and band, with the entry's phash to verify the distance). WITHOUT ROWID, as the owners' band tables are (migration 0007); an entry's rows are deleted
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
    /**
     * When the resolution's effects on the file's shard were applied (moderation/resolve-effects.ts): null on a
     * resolved report until then, so the cron applies what a resolution that stopped half-way left undone.
     */
    effectsAppliedAt: integer("effects_applied_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    index("reports_queue").on(t.status, t.priority, t.createdAt),
    index("reports_effects_pending").on(t.resolvedAt).where(sql`status = 'resolved' AND effects_applied_at IS NULL`),
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

/**
 * How full each shard is, as the cron last measured it (D1's size of the database): new owners go to the least
 * full of the open shards (platform/data/placement.ts). A shard with no row has not been measured yet.
 */
export const shardFill = sqliteTable("shard_fill", {
  shard: integer("shard").primaryKey(),
  bytes: integer("bytes").notNull(),
  measuredAt: integer("measured_at", { mode: "timestamp_ms" }).notNull(),
});

/**
 * Owners being moved to another shard (admin/shard-move): the step the move has reached, so that a run stopped
 * half-way is run again and goes on. The row stays once the move is done (step "done"), as its record.
 */
export const ownerMoves = sqliteTable("owner_moves", {
  userId: text("user_id").primaryKey(),
  fromShard: integer("from_shard").notNull(),
  toShard: integer("to_shard").notNull(),
  step: text("step", { enum: ["fence", "copy", "verify", "switch", "delete", "done"] }).notNull(),
  /** Where the step's walk over the owner's rows has got to (JSON, admin/shard-move/pages.ts); null: its start. */
  cursor: text("cursor"),
  startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

export type ReportRow = typeof reports.$inferSelect;

/** The service's day (extensions.md § 10, admin stats): every shard's sums, written by the cron (insights/). */
export const serviceDays = sqliteTable("service_days", {
  /** Days since 1970-01-01 UTC. */
  day: integer("day").primaryKey(),
  signups: integer("signups").notNull().default(0),
  uploads: integer("uploads").notNull().default(0),
  uploadBytes: integer("upload_bytes").notNull().default(0),
  views: integer("views").notNull().default(0),
  reports: integer("reports").notNull().default(0),
  storageBytes: integer("storage_bytes").notNull().default(0),
});
