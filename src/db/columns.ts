import { integer } from "drizzle-orm/sqlite-core";

/** Every table's creation time, in epoch milliseconds. */
export const createdAt = () => integer("created_at", { mode: "timestamp_ms" }).notNull();
