// A resolution's effects on the file's shard (moderation/resolve.ts claims the report in the directory first):
// restore, remove or ban the file, and for ban_user the owner's state on the shard. Each write is absolute or
// conditional on the state it changes, so applying them again changes nothing; the report's
// `effects_applied_at` is set once they are done, and the cron applies those of a resolution that stopped
// between the claim and its effects (applyPendingEffects).
import { and, asc, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import { runBatch, type DirectoryAndShards, type ShardDb, type Statement } from "../platform/data/db";
import { files, reports, type FileRow, type ReportRow } from "../db/schema";
import { shardOfIdIn } from "../platform/data/shards";
import { writeShards } from "../platform/data/moved-ids";
import { filesOf, type FileShards } from "./queue";
import { accessChanged } from "../serving/access-changed";
import { ownerStateStatement } from "../serving/owner-state";
import { detachFileFromAlbumsStatements } from "../files/album-membership";
import { emitWebhookEvent } from "../webhooks/emit";
import type { FlagReason } from "../webhooks/events";

export type ShardEffects = { fileRestored: boolean; fileRemoved: boolean; fileBanned: boolean };

type Resolved = Pick<ReportRow, "id" | "fileId" | "action" | "resolvedAt">;

/**
 * The file's shard's writes for a claimed resolution. `restore`: whether a dismissal may unhide (no other
 * high-priority report of the file is open; decided from the directory after the claim). `ownerId`: the owner a
 * ban_user bans. `where`: the shard the file was found on (filesOf), and the one its owner is being moved to.
 */
export async function applyShardEffects(
  env: Env,
  dbs: DirectoryAndShards,
  r: Resolved,
  opts: { restore: boolean; ownerId: string | null; file: FileRow | null; where: FileShards | null },
): Promise<ShardEffects> {
  const effects: ShardEffects = { fileRestored: false, fileRemoved: false, fileBanned: false };
  const at = r.resolvedAt ?? new Date();
  const [db, ...alsoMovingTo] = writeShards(dbs, opts.where ?? { shard: shardOfIdIn(env, "file", r.fileId), movedTo: null });
  const statements = (db: ShardDb): Statement[] => {
    if (r.action === "dismiss" && opts.restore) {
      return [db.update(files).set({ hiddenAt: null, quarantinedAt: null, updatedAt: at }).where(and(eq(files.id, r.fileId), or(isNotNull(files.hiddenAt), isNotNull(files.quarantinedAt))))];
    }
    if (r.action === "remove_file") return [db.update(files).set({ deletedAt: at, updatedAt: at }).where(and(eq(files.id, r.fileId), isNull(files.deletedAt)))];
    if (r.action !== "ban_file" && r.action !== "ban_user") return [];
    return [
      db.update(files).set({ bannedAt: at, updatedAt: at }).where(and(eq(files.id, r.fileId), isNull(files.bannedAt))),
      // The owner's state on the shard, keeping a first ban's time (what its files' reads decide from).
      ...(r.action === "ban_user" && opts.ownerId ? [ownerStateStatement(db, opts.ownerId, { bannedAt: at }, { keepFirst: true })] : []),
    ];
  };
  const results = await runBatch(db, statements(db));
  // While the owner moves, the shard they move to gets the same writes (absolute: a row the copy brings later
  // carries them from here), so the move cannot lose a takedown (docs/sharding.md § Moving an owner).
  for (const other of alsoMovingTo) await runBatch(other, statements(other));
  const changed = results[0]?.meta.changes > 0;
  if (r.action === "dismiss") effects.fileRestored = changed;
  if (r.action === "remove_file") effects.fileRemoved = changed;
  if (r.action === "ban_file" || r.action === "ban_user") effects.fileBanned = changed;
  await afterEffects(env, dbs, [db, ...alsoMovingTo], r, opts, effects);
  await dbs.directory.update(reports).set({ effectsAppliedAt: new Date() }).where(eq(reports.id, r.id));
  return effects;
}

/** Byte links and principals forget what changed; a gone file leaves its albums (idempotent, as a delete does it). */
async function afterEffects(env: Env, dbs: DirectoryAndShards, shards: ShardDb[], r: Resolved, opts: { ownerId: string | null; file: FileRow | null }, effects: ShardEffects) {
  if (effects.fileRestored) await accessChanged(env, { fileIds: [r.fileId] });
  if (r.action === "ban_user" && opts.ownerId) await accessChanged(env, { userId: opts.ownerId });
  if (r.action === "remove_file" || r.action === "ban_file" || r.action === "ban_user") {
    if (opts.file) await accessChanged(env, { files: [opts.file] });
    else await accessChanged(env, { fileIds: [r.fileId] });
    if (opts.file && (effects.fileRemoved || effects.fileBanned)) {
      await emitWebhookEvent(env, dbs.directory, opts.file.userId, "file.flagged", { fileId: r.fileId, reason: "removed" satisfies FlagReason });
    }
    try {
      for (const db of shards) await runBatch(db, detachFileFromAlbumsStatements(db, r.fileId, at(r)));
    } catch (err) {
      console.error(`moderation: could not detach ${r.fileId} from its albums`, err);
    }
  }
}

const at = (r: Resolved) => (r.resolvedAt ?? new Date()).getTime();

/** The cron: effects of resolutions claimed over a minute ago and not applied (the request stopped between). */
export async function applyPendingEffects(env: Env, dbs: DirectoryAndShards, now: number): Promise<{ applied: number }> {
  const pending = await dbs.directory
    .select()
    .from(reports)
    .where(and(eq(reports.status, "resolved"), isNull(reports.effectsAppliedAt), lt(reports.resolvedAt, new Date(now - 60_000))))
    .orderBy(asc(reports.resolvedAt))
    .limit(50);
  for (const r of pending) {
    // A dismissal restores only while no other high-priority report of the file is open, as at the claim.
    const open = await dbs.directory.select({ id: reports.id }).from(reports).where(and(eq(reports.fileId, r.fileId), eq(reports.status, "pending"), eq(reports.priority, "high"))).get();
    const { file, where } = (await filesOf(env, dbs, [r.fileId])).get(r.fileId) ?? { file: null, where: null };
    await applyShardEffects(env, dbs, r, { restore: !open, ownerId: r.action === "ban_user" ? (file?.userId ?? null) : null, file, where });
  }
  return { applied: pending.length };
}
