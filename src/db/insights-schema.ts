// Insights' daily rows on an owner's shard (extensions.md § 10, src/insights/). A day is an integer: days since
// 1970-01-01 UTC (2-3 bytes instead of a 10-byte date). Both tables are WITHOUT ROWID (by hand in the
// migrations): the key is the table. Rows older than INSIGHTS.keepDays are pruned by the cron.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A file's views and downloads on a day, and its referring hosts ({"host": views}, capped), written by the view
 * counter's flush as absolute values (serving/view-counter.ts). No foreign key: a deleted file's rows age out.
 */
export const fileDays = sqliteTable(
  "file_days",
  {
    fileId: text("file_id").notNull(),
    day: integer("day").notNull(),
    /** The file's owner when the row was written: the account's charts read by it. */
    userId: text("user_id").notNull(),
    views: integer("views").notNull().default(0),
    downloads: integer("downloads").notNull().default(0),
    referrers: text("referrers", { mode: "json" }).$type<Record<string, number>>().notNull().default({}),
  },
  (t) => [primaryKey({ columns: [t.fileId, t.day] }), index("file_days_user_day").on(t.userId, t.day), index("file_days_day").on(t.day)],
);

/** An owner's finalized uploads on a day and the storage used at its end, written once by the cron after it. */
export const ownerDays = sqliteTable(
  "owner_days",
  {
    userId: text("user_id").notNull(),
    day: integer("day").notNull(),
    uploads: integer("uploads").notNull().default(0),
    storageBytes: integer("storage_bytes").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] }), index("owner_days_day").on(t.day)],
);
