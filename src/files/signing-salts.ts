// The per-file salt of signed links (files.signing_salt; serving/signed-links.ts). Queries on the file's own
// shard: the caller picks it.
import { eq, sql } from "drizzle-orm";
import type { ShardDb } from "../platform/data/db";
import { files } from "../db/schema";

/** What accessChanged needs to name a file's cached entries, and the salt now in force. */
const RETURNED = { id: files.id, storeKey: files.storeKey, thumbKey: files.thumbKey, mime: files.mime, signingSalt: files.signingSalt };

/**
 * The file's salt, set to `fresh` when it has none (its first link). One statement: two first links made at
 * once both get the one that landed.
 */
export async function ensureSigningSalt(db: ShardDb, fileId: string, fresh: string) {
  return db
    .update(files)
    .set({ signingSalt: sql`coalesce(${files.signingSalt}, ${fresh})` })
    .where(eq(files.id, fileId))
    .returning(RETURNED)
    .get();
}

/** Replaces the file's salt: every link signed with the old one stops matching. */
export async function rotateSigningSalt(db: ShardDb, fileId: string, fresh: string) {
  return db.update(files).set({ signingSalt: fresh }).where(eq(files.id, fileId)).returning(RETURNED).get();
}
