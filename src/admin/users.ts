// Admin work on accounts: listing and changing role, plan and ban. Each change is one transaction with its
// audit records on the directory; a ban or an unban writes the owner's shard first (serving/owner-state.ts).
// An account's usage is its shard's (owners), read beside the directory's rows.
import { and, count, desc, eq, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import { runBatch, type DirectoryAndShards, type DirectoryDb, type Statement } from "../platform/data/db";
import { users, type UserRow } from "../db/schema";
import { ApiError } from "../platform/errors/errors";
import { isId } from "../platform/data/ids";
import type { Plan, Role } from "../config";
import { applyPlanChange } from "../billing/plan-changes";
import { forgetUser } from "../auth/principal-records";
import { accessChanged } from "../serving/access-changed";
import { ownerStateStatement } from "../serving/owner-state";
import { ownerWriteShards } from "../platform/data/moved-ids";
import { auditInsert } from "../platform/data/audit";
import { ownerUsage, type Usage } from "../uploads/quota";

export function adminUserResource(u: UserRow, usage: Usage) {
  return {
    id: u.id,
    email: u.email,
    username: u.username,
    role: u.role,
    plan: u.plan,
    emailVerified: u.emailVerifiedAt !== null,
    banned: u.bannedAt !== null,
    bannedAt: u.bannedAt?.toISOString() ?? null,
    storageUsed: usage.used,
    storageReserved: usage.reserved,
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
  };
}

export type AdminUserResource = ReturnType<typeof adminUserResource>;

export type UserFilter = { search?: string; role?: Role; plan?: Plan; banned?: boolean };

/** `%` and `_` in the search text are literal, not wildcards. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

export async function listUsers(dbs: DirectoryAndShards, filter: UserFilter, limit: number, offset: number) {
  const db = dbs.directory;
  const where: SQL[] = [isNull(users.deletedAt)];
  if (filter.search) where.push(sql`${users.email} LIKE ${`%${likeEscape(filter.search.toLowerCase())}%`} ESCAPE '\\'`);
  if (filter.role) where.push(eq(users.role, filter.role));
  if (filter.plan) where.push(eq(users.plan, filter.plan));
  if (filter.banned !== undefined) where.push(filter.banned ? isNotNull(users.bannedAt) : isNull(users.bannedAt));
  const cond = and(...where);
  const [rows, total] = await Promise.all([
    db.select().from(users).where(cond).orderBy(desc(users.createdAt), desc(users.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(users).where(cond).get(),
  ]);
  const n = total?.n ?? 0;
  // The page's usage from each owner's shard: one query per shard, concurrently.
  const usage = await usageOf(dbs, rows);
  return { users: rows.map((u) => adminUserResource(u, usage.get(u.id)!)), pagination: { total: n, limit, offset, hasMore: offset + rows.length < n } };
}

export async function findLiveUser(db: DirectoryDb, id: string): Promise<UserRow> {
  const row = isId("usr", id) ? await db.select().from(users).where(and(eq(users.id, id), isNull(users.deletedAt))).get() : undefined;
  if (!row) throw new ApiError("user_not_found", "User not found");
  return row;
}

/** One account as the admin API shows it: the directory's row and its shard's usage, read side by side. */
export async function adminUser(dbs: DirectoryAndShards, id: string) {
  const user = await findLiveUser(dbs.directory, id);
  const usage = await ownerUsage(dbs.shard(user.shard), [id]);
  return adminUserResource(user, usage.get(id)!);
}

/** The users' usage, each from their own shard: one query per shard, concurrently. */
async function usageOf(dbs: DirectoryAndShards, rows: Pick<UserRow, "id" | "shard">[]): Promise<Map<string, Usage>> {
  const byShard = new Map<number, string[]>();
  for (const u of rows) byShard.set(u.shard, [...(byShard.get(u.shard) ?? []), u.id]);
  const found = await Promise.all([...byShard].map(([n, ids]) => ownerUsage(dbs.shard(n), ids)));
  return new Map(found.flatMap((m) => [...m]));
}

export type UserPatch = { role?: Role; plan?: Plan; banned?: boolean };

/** Who changes an account: an admin through the API, or the local `npm run admin` script (no actor, provider "cli"). */
export type UserChanger = { actorId: string; provider: "admin" } | { actorId: null; provider: "cli" };

/**
 * Applies an admin's change, effective on the user's next request: the principal check reads users.role, plan and
 * banned_at (from D1 or the user's edge record, dropped here), and serving/access.ts reads the owner's ban from the
 * shard's copy with each file (their files answer 410 without rewriting every row; an unban restores them exactly).
 */
export async function updateUser(dbs: DirectoryAndShards, env: Env, by: UserChanger, id: string, patch: UserPatch): Promise<AdminUserResource> {
  const db = dbs.directory;
  const { actorId } = by;
  const target = await findLiveUser(db, id);
  if (target.id === actorId && (patch.banned === true || (patch.role !== undefined && patch.role !== "admin"))) {
    throw new ApiError("cannot_modify_self", "Admins cannot ban themselves or give up their own admin role");
  }
  const now = new Date();
  const audit = (action: string, details: Record<string, unknown>) =>
    auditInsert(db, { actorId, action, targetType: "user", targetId: id, details, at: now });
  const statements: Statement[] = [];
  const set: Partial<UserRow> = {};
  if (patch.role !== undefined && patch.role !== target.role) {
    set.role = patch.role;
    statements.push(audit("user.role_change", { from: target.role, to: patch.role }));
  }
  if (patch.banned !== undefined && patch.banned !== (target.bannedAt !== null)) {
    set.bannedAt = patch.banned ? now : null;
    statements.push(audit(patch.banned ? "user.ban" : "user.unban", {}));
  }
  if (Object.keys(set).length > 0) {
    statements.unshift(db.update(users).set({ ...set, updatedAt: now }).where(eq(users.id, id)));
  }
  // A ban or an unban reaches the owner's shard first: its files and albums follow it from there. Both writes
  // are absolute, so a retry after the directory's write failed simply writes both again.
  // While the owner moves, the shard they move to too (writeShards).
  const shard = dbs.shard(target.shard);
  if (set.bannedAt !== undefined) {
    for (const db of await ownerWriteShards(dbs, target.shard, id)) await runBatch(db, [ownerStateStatement(db, id, { bannedAt: set.bannedAt })]);
  }
  if (patch.plan !== undefined && patch.plan !== target.plan) {
    // Through the plan history, like every plan change; pending requests of the user are superseded.
    await applyPlanChange(db, env, {
      userId: id,
      fromPlan: target.plan,
      toPlan: patch.plan,
      provider: by.provider,
      decidedBy: actorId,
      now,
      also: [...statements, audit("user.plan_change", { from: target.plan, to: patch.plan })],
    });
  } else if (statements.length > 0) {
    await runBatch(db, statements);
    await forgetUser(env, id); // applyPlanChange does it on the other branch
  }
  // A ban or an unban also reaches the records of the files that carry the owner's state (either branch).
  if (set.bannedAt !== undefined) await accessChanged(env, { userId: id });
  const [row, usage] = await Promise.all([db.select().from(users).where(eq(users.id, id)).get(), ownerUsage(shard, [id])]);
  return adminUserResource(row ?? target, usage.get(id)!);
}
