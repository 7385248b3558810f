// DELETE /account: the password again, then two transactions, the owner's shard first (state, files, albums: what
// reads decide from), then the directory. A request stopping between leaves a live account whose data is gone, and
// the retry runs both again (each write is conditional or absolute); the other order could leave a signed-out
// account with live files. What is revoked, deleted and kept: docs/moderation-and-accounts.md.
import { and, eq, isNull } from "drizzle-orm";
import { runBatch, type DirectoryAndShards, type ShardDb } from "../platform/data/db";
import { ownerWriteShards } from "../platform/data/moved-ids";
import { albums, apiKeys, files, planChanges, sessions, users, webhookEndpoints } from "../db/schema";
import { ApiError, unauthorized } from "../platform/errors/errors";
import { reenteredPasswordOk } from "../auth/login-guard";
import { secondFactorDeletions } from "../auth/second-factor";
import { auditInsert } from "../platform/data/audit";
import { accessChanged } from "../serving/access-changed";
import { ownerStateStatement } from "../serving/owner-state";

export type DeletionResult = { files: number; albums: number; sessions: number; apiKeys: number };

export async function deleteAccount(dbs: DirectoryAndShards, env: Env, userId: string, password: string, ip: string, now = new Date()): Promise<DeletionResult> {
  const db = dbs.directory;
  const user = await db.select().from(users).where(and(eq(users.id, userId), isNull(users.deletedAt))).get();
  if (!user) throw unauthorized();
  if (!(await reenteredPasswordOk(env, user, password, ip))) throw new ApiError("invalid_password", "The password is not correct");

  const deletion = (shard: ShardDb) => [
    // The owner's state first: what its files' and albums' reads decide from (serving/owner-state.ts).
    ownerStateStatement(shard, userId, { deletedAt: now }, { keepFirst: true }),
    shard.update(files).set({ deletedAt: now, updatedAt: now }).where(and(eq(files.userId, userId), isNull(files.deletedAt))),
    // Counted by its rows: D1's `changes` counts the search index's trigger writes too (migration 0019).
    shard.update(albums).set({ deletedAt: now, updatedAt: now }).where(and(eq(albums.userId, userId), isNull(albums.deletedAt))).returning({ id: albums.id }),
  ];
  // While the owner moves, the shard they move to gets the deletion too (writeShards).
  const [shard, ...moving] = await ownerWriteShards(dbs, user.shard, userId);
  const [, filesResult, albumsResult] = await runBatch(shard, deletion(shard));
  const [deletedFiles, deletedAlbums] = [filesResult.meta.changes, albumsResult.results.length];
  for (const other of moving) await runBatch(other, deletion(other));
  const [, revokedSessions, revokedKeys] = (
    await runBatch(db, [
      db.update(users).set({ deletedAt: now, updatedAt: now }).where(and(eq(users.id, userId), isNull(users.deletedAt))),
      db.update(sessions).set({ revokedAt: now, revokedReason: "account_deleted" }).where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt))),
      db.update(apiKeys).set({ revokedAt: now }).where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt))),
      db.update(planChanges).set({ status: "cancelled", decidedAt: now }).where(and(eq(planChanges.userId, userId), eq(planChanges.status, "pending"))),
      // Nothing more is sent for an account that is gone (webhooks/: only enabled endpoints get deliveries).
      db.update(webhookEndpoints).set({ enabled: false, updatedAt: now }).where(and(eq(webhookEndpoints.userId, userId), eq(webhookEndpoints.enabled, true))),
      auditInsert(db, { actorId: userId, action: "account.delete", targetType: "user", targetId: userId, at: now }),
      // The sealed TOTP seed and the recovery codes are of no use to anyone now: they go at once.
      ...secondFactorDeletions(db, userId),
    ])
  ).map((r) => r.meta.changes);
  // Their sessions and keys stop at once (the user record says deleted) and their files answer 410 on byte links.
  await accessChanged(env, { userId });
  return { files: deletedFiles, albums: deletedAlbums, sessions: revokedSessions, apiKeys: revokedKeys };
}
