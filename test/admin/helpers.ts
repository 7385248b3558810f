// Shared by the admin, billing and account-lifecycle tests: users in a given role, stored rows, audit reads.
import { env } from "cloudflare:workers";
import { createKey, verifiedUser, type TestUser } from "../support/api";
import { ownerDb, shardOfUser } from "../support/shard-db";
import { shardedId } from "../../src/platform/data/shard-ids";

export async function userWithRole(role: "user" | "moderator" | "admin", plan = "free"): Promise<TestUser> {
  const u = await verifiedUser();
  await env.DB.prepare("UPDATE users SET role = ?, plan = ? WHERE id = ?").bind(role, plan, u.id).run();
  return u;
}

/** One of each role plus an admin's API key, for role checks. */
export async function roleCast() {
  const [user, moderator, admin] = await Promise.all([userWithRole("user"), userWithRole("moderator"), userWithRole("admin")]);
  const adminKey = (await createKey(admin, { permissions: ["read", "upload", "manage"] })).key;
  return { user, moderator, admin, adminKey };
}

export async function userRow(id: string) {
  return env.DB.prepare("SELECT * FROM users WHERE id = ?").bind(id).first<Record<string, any>>();
}

export async function auditFor(targetId: string) {
  const { results } = await env.DB.prepare("SELECT * FROM audit_log WHERE target_id = ? ORDER BY created_at, rowid").bind(targetId).all<Record<string, any>>();
  return results.map((r) => ({ ...r, details: JSON.parse(r.details) }) as Record<string, any>);
}

export async function planChangesOf(userId: string) {
  const { results } = await env.DB.prepare("SELECT * FROM plan_changes WHERE user_id = ? ORDER BY created_at, rowid").bind(userId).all<Record<string, any>>();
  return results;
}

let fileCounter = 0;
/** A finalized file row with its stored bytes, as if uploaded (the upload flow has its own tests). */
export async function storedFile(ownerId: string | null, visibility: "public" | "unlisted" | "private" = "public") {
  fileCounter += 1;
  // On the owner's shard (an anonymous file on shard 0), numbered so that ids sort in the order made.
  const shard = ownerId ? await shardOfUser(ownerId) : 0;
  const id = shardedId("file", shard, `${String(fileCounter).padStart(4, "0")}${crypto.randomUUID().replace(/-/g, "").slice(0, 14)}`);
  const storeKey = `uploads/2026-01-01/${id}/pic.png`;
  const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
  await env.BUCKET.put(storeKey, bytes, { httpMetadata: { contentType: "image/png" } });
  const now = Date.now();
  await ownerDb.prepare(
    `INSERT INTO files (id, user_id, title, filename, mime, bytes, width, height, sha256, store_key, store_etag, visibility, state,
       analysis, finalized_at, created_at, updated_at)
     VALUES (?, ?, 'A picture', 'pic.png', 'image/png', ?, 1, 1, ?, ?, 'etag', ?, 'finalized', 'done', ?, ?, ?)`,
  )
    .bind(id, ownerId, bytes.byteLength, "0".repeat(64), storeKey, visibility, now, now, now)
    .run();
  return { id, storeKey };
}
