// An owner's state and usage as the app keeps them (docs/sharding.md § owners): the shard's `owners` row is what
// the read rules and the quota decide from; the directory's users row keeps the account's own copy of the ban
// and the deletion (sign-in, principals). Tests set them up here, the way the app's writes leave them.
import { env } from "cloudflare:workers";
import { ownerDb } from "./shard-db";

export type OwnerRow = { id: number; user_id: string; storage_used: number; storage_reserved: number; banned_at: number | null; deleted_at: number | null };

/** Where a test writes an owner's state: both copies (what the app does), or one alone (which one decides). */
export type Copies = "both" | "shard" | "directory";

/** The owner's row on its shard (database DB is shard 0), or null when the shard has none. */
export async function ownerRow(userId: string): Promise<OwnerRow | null> {
  return ownerDb.prepare("SELECT * FROM owners WHERE user_id = ?").bind(userId).first<OwnerRow>();
}

async function setState(column: "banned_at" | "deleted_at", userId: string, at: number | null, copies: Copies) {
  // Two databases when the owner is on shard 1: the shard's copy first, as the app writes it.
  if (copies !== "directory") {
    await ownerDb.prepare(`INSERT INTO owners (user_id, ${column}) VALUES (?1, ?2) ON CONFLICT (user_id) DO UPDATE SET ${column} = excluded.${column}`).bind(userId, at).run();
  }
  if (copies !== "shard") await env.DB.prepare(`UPDATE users SET ${column} = ?2 WHERE id = ?1`).bind(userId, at).run();
}

/** Bans (at a time) or unbans (null) an owner, straight in D1 (its edge records are not forgotten). */
export const setOwnerBan = (userId: string, at: number | null = Date.now(), copies: Copies = "both") => setState("banned_at", userId, at, copies);

/** Marks an owner's account deleted (or not), straight in D1. */
export const setOwnerDeleted = (userId: string, at: number | null = Date.now(), copies: Copies = "both") => setState("deleted_at", userId, at, copies);

/** The owner's quota counters on its shard; an owner with no row there has used and reserved nothing. */
export async function storage(userId: string): Promise<{ used: number; reserved: number }> {
  const row = await ownerRow(userId);
  return { used: row?.storage_used ?? 0, reserved: row?.storage_reserved ?? 0 };
}

/** Sets the owner's quota counters on its shard (the row made if missing, as a first upload makes it). */
export async function setStorage(userId: string, used: number, reserved = 0) {
  await ownerDb.prepare(
    "INSERT INTO owners (user_id, storage_used, storage_reserved) VALUES (?1, ?2, ?3) ON CONFLICT (user_id) DO UPDATE SET storage_used = excluded.storage_used, storage_reserved = excluded.storage_reserved",
  )
    .bind(userId, used, reserved)
    .run();
}
