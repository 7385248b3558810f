// The one drizzle schema. `npm run db:generate` turns changes here into a migration under migrations/.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

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

/** One-time tokens sent by mail (e-mail verification). */
export const emailTokens = sqliteTable(
  "email_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    purpose: text("purpose", { enum: ["verify_email"] }).notNull(),
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

export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
