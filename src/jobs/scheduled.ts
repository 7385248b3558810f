// The cron trigger's work. Each task is a plain function over the database/bindings so tests can call it.
import { and, isNotNull, lt, or } from "drizzle-orm";
import { directoryDb, primaries, shardDb, type DirectoryDb, type ShardDb } from "../platform/data/db";
import { applyPendingEffects } from "../moderation/resolve-effects";
import { allShards } from "../platform/data/shards";
import { measureShards } from "../platform/data/shard-fill";
import { emailTokens, mfaTokens, refreshTokens } from "../db/schema";
import { cleanupUploads } from "../uploads/cleanup";
import { purgeGoneFiles } from "./purge";
import { requeueStalledAnalysis } from "../analysis/requeue";
import { deleteExpiredChallenges } from "../auth/passkey-challenges";
import { resendLostMail } from "../mail/requeue";
import { rollInsights } from "../insights/rollup";

/** Deletes refresh, e-mail and second-step tokens and passkey challenges that can no longer be used (expired, or used). */
export async function purgeDeadTokens(db: DirectoryDb, now = Date.now()): Promise<{ refresh: number; email: number; mfa: number; passkeyChallenges: number }> {
  const cutoff = new Date(now);
  const dayAgo = new Date(now - 24 * 3600 * 1000);
  // A used refresh token is kept for a day so that its reuse is still recognised (and revokes the family).
  const [refresh, email, mfa, challenges] = await Promise.all([
    db.delete(refreshTokens).where(or(lt(refreshTokens.expiresAt, cutoff), and(isNotNull(refreshTokens.usedAt), lt(refreshTokens.usedAt, dayAgo)))).run(),
    db.delete(emailTokens).where(or(lt(emailTokens.expiresAt, cutoff), isNotNull(emailTokens.usedAt))).run(),
    db.delete(mfaTokens).where(or(lt(mfaTokens.expiresAt, cutoff), isNotNull(mfaTokens.usedAt))).run(),
    deleteExpiredChallenges(db, cutoff),
  ]);
  return { refresh: refresh.meta.changes, email: email.meta.changes, mfa: mfa.meta.changes, passkeyChallenges: challenges.meta.changes };
}

export type ScheduledTask = (env: Env, now: number) => Promise<unknown>;

type Counts = Record<string, number>;

/**
 * A task over owner data, run on every shard's primary one after another (each shard's work is bounded per run);
 * the result is the sum of the shards' counts.
 */
function onEveryShard(task: (env: Env, db: ShardDb, now: number) => Promise<Counts>): ScheduledTask {
  return async (env, now) => {
    const total: Counts = {};
    for (const n of allShards(env)) {
      for (const [k, v] of Object.entries(await task(env, shardDb(env, n), now))) total[k] = (total[k] ?? 0) + v;
    }
    return total;
  };
}

/** Later features add their tasks (upload cleanup, purge) here, each on the primary of the database it works on. */
export const scheduledTasks: Record<string, ScheduledTask> = {
  purgeDeadTokens: (env, now) => purgeDeadTokens(directoryDb(env), now),
  uploads: onEveryShard(cleanupUploads),
  purgeGoneFiles: onEveryShard(purgeGoneFiles),
  requeueStalledAnalysis: onEveryShard(requeueStalledAnalysis),
  measureShards: async (env, now) => Object.fromEntries(await measureShards(env, now)),
  resolutionEffects: (env, now) => applyPendingEffects(env, primaries(env), now),
  resendLostMail,
  insights: rollInsights,
};

export async function runScheduled(env: Env, now = Date.now()): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  // Tasks are independent: one failing must not stop the others.
  for (const [name, task] of Object.entries(scheduledTasks)) {
    try {
      results[name] = await task(env, now);
    } catch (err) {
      console.error(`scheduled task ${name} failed`, err);
      results[name] = { error: String(err) };
    }
  }
  return results;
}
