// The directory's mail table (database DB). Re-exported with the rest by ./schema.ts.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

/**
 * Every mail the service sends, written beside the change it tells of and delivered from the queue
 * (src/mail/deliver.ts). Once sent or failed for good, the bodies are emptied outside development and test: they
 * may hold a one-time token, and support needs only the kind, recipient, subject, status and times.
 */
export const outbox = sqliteTable(
  "outbox",
  {
    id: text("id").primaryKey(),
    to: text("to_address").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull().default(""),
    kind: text("kind").notNull(),
    status: text("status", { enum: ["pending", "sent", "failed"] }).notNull().default("pending"),
    /** Tries claimed so far; a queue message names the try it is for (attempts + 1), so a repeated one claims nothing. */
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** What the mail binding answered (`messageId`), for tracing a mail with the provider. */
    messageId: text("message_id"),
    /** When the message for the next try is due; a pending row long past it lost its message (the cron re-sends). */
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }),
    lastAttemptAt: integer("last_attempt_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("outbox_to_created").on(t.to, t.createdAt), index("outbox_pending").on(t.nextAttemptAt).where(sql`status = 'pending'`)],
);

export type OutboxRow = typeof outbox.$inferSelect;
