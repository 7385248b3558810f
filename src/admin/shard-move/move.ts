// Moving one owner to another shard (docs/sharding.md § Moving an owner): fence the owner's writes on the old
// shard, copy their rows to the new one, verify the copy, switch the directory, delete the old copy. The step
// reached is recorded in the directory (owner_moves, with the walk's cursor inside a step), and every step can
// run again, so a move stopped anywhere is run again and goes on. `npm run shard:move` drives it through
// POST /admin/shards/move (./routes in admin/routes.ts), a bounded number of pages per call.
import { eq, sql } from "drizzle-orm";
import { files, ownerMoves, owners, users } from "../../db/schema";
import { directoryDb, runBatch, shardDb, type ShardDb } from "../../platform/data/db";
import { shardCount } from "../../platform/data/shards";
import { ApiError } from "../../platform/errors/errors";
import type { EdgeEnv } from "../../platform/edge/edge-records";
import { accessChanged } from "../../serving/access-changed";
import { forgetFileAccess } from "../../serving/edge-cache";
import { SHARD_MOVE } from "../../config";
import { PHASES, deleteStatements, idsOf, ownerCounts, readBack, readPage, writeStatements, keyString, tableName, type Cursor } from "./rows";

export const MOVE_STEPS = ["fence", "copy", "verify", "switch", "delete", "done"] as const;
export type MoveStep = (typeof MOVE_STEPS)[number];
/** Where a move stands; `waitingFor` when it cannot go on yet (uploads of the owner still in flight). */
export type MoveProgress = { userId: string; fromShard: number; toShard: number; step: MoveStep; waitingFor?: string };

type MoveEnv = Env & EdgeEnv;
type MoveRow = typeof ownerMoves.$inferSelect;

const progressOf = (m: MoveRow, waitingFor?: string): MoveProgress => ({
  userId: m.userId,
  fromShard: m.fromShard,
  toShard: m.toShard,
  step: m.step,
  ...(waitingFor ? { waitingFor } : {}),
});

async function recordedMove(env: MoveEnv, userId: string): Promise<MoveRow | undefined> {
  return directoryDb(env).select().from(ownerMoves).where(eq(ownerMoves.userId, userId)).get();
}

/**
 * Starts moving `userId` to shard `toShard`, or finds the move under way to it (or just done). Refused: an
 * unknown user (404), a shard the deployment lacks or the one the owner is on (400), another move under way (409).
 */
export async function beginMove(env: MoveEnv, userId: string, toShard: number, now = Date.now()): Promise<MoveProgress> {
  if (!Number.isInteger(toShard) || toShard < 0 || toShard >= shardCount(env)) {
    throw new ApiError("invalid_shard", `There is no shard ${toShard}: this deployment has ${shardCount(env)}`);
  }
  const directory = directoryDb(env);
  const user = await directory.select({ shard: users.shard }).from(users).where(eq(users.id, userId)).get();
  if (!user) throw new ApiError("user_not_found", "User not found");
  const known = await recordedMove(env, userId);
  if (known && known.step !== "done") {
    if (known.toShard === toShard) return progressOf(known);
    throw new ApiError("owner_move_under_way", `A move of this owner to shard ${known.toShard} is under way: run it to the end first`);
  }
  if (known && known.toShard === toShard && user.shard === toShard) return progressOf(known); // done already
  if (user.shard === toShard) throw new ApiError("invalid_shard", `The owner is already on shard ${toShard}`);
  const move: MoveRow = { userId, fromShard: user.shard, toShard, step: "fence", cursor: null, startedAt: new Date(now), updatedAt: new Date(now) };
  await directory
    .insert(ownerMoves)
    .values(move)
    .onConflictDoUpdate({ target: ownerMoves.userId, set: { fromShard: move.fromShard, toShard, step: "fence", cursor: null, startedAt: move.startedAt, updatedAt: move.updatedAt } });
  return progressOf(move);
}

async function record(env: MoveEnv, move: MoveRow, step: MoveStep, cursor: Cursor | null): Promise<MoveRow> {
  const next = { ...move, step, cursor: cursor && JSON.stringify(cursor), updatedAt: new Date() };
  await directoryDb(env).update(ownerMoves).set({ step, cursor: next.cursor, updatedAt: next.updatedAt }).where(eq(ownerMoves.userId, move.userId));
  return next;
}

const ownerKey = async (db: ShardDb, userId: string) =>
  (await db.select({ id: owners.id }).from(owners).where(eq(owners.userId, userId)).get())?.id ?? null;

/** The owner's row on the new shard, from the old one's: counters and state, not fenced (the owner lives there next). */
async function copyOwnerRow(source: ShardDb, target: ShardDb, userId: string): Promise<number> {
  const from = await source.select().from(owners).where(eq(owners.userId, userId)).get();
  const row = { storageUsed: from?.storageUsed ?? 0, storageReserved: from?.storageReserved ?? 0, bannedAt: from?.bannedAt ?? null, deletedAt: from?.deletedAt ?? null, movedTo: null };
  await target.insert(owners).values({ userId, ...row }).onConflictDoUpdate({ target: owners.userId, set: row });
  return (await ownerKey(target, userId))!;
}

/**
 * Runs the move's current step, or as much of it as `budget.pages` allows (the walks of copy, verify and delete go
 * a page at a time, record where they got to, and count the pages off the budget), and answers where the move stands.
 */
export async function runMoveStep(env: MoveEnv, userId: string, budget: { pages: number } = { pages: Infinity }): Promise<MoveProgress> {
  let move = await recordedMove(env, userId);
  if (!move) throw new ApiError("user_not_found", "No move of this owner was started");
  const source = shardDb(env, move.fromShard);
  const target = shardDb(env, move.toShard);
  switch (move.step) {
    case "fence": {
      // From here the owner's writes on the old shard answer 503 owner_moving (uploads/quota.ts, loadFile, loadAlbum).
      await source
        .insert(owners)
        .values({ userId, movedTo: move.toShard })
        .onConflictDoUpdate({ target: owners.userId, set: { movedTo: move.toShard } });
      return progressOf(await record(env, move, "copy", null));
    }
    case "copy": {
      let cursor: Cursor | null = move.cursor ? JSON.parse(move.cursor) : null;
      if (!cursor) {
        // Uploads begun before the fence, and the analyses of files finalized before it, still write the owner's
        // rows here: the copy waits until they end (the clean-up expires abandoned uploads, the requeue re-sends
        // lost analyses).
        const busy = await source.get<{ uploads: number; analyses: number }>(sql`SELECT
          (SELECT COUNT(*) FROM uploads WHERE user_id = ${userId} AND state IN ('pending', 'uploaded')) AS uploads,
          (SELECT COUNT(*) FROM files WHERE user_id = ${userId} AND analysis = 'pending') AS analyses`);
        if (busy!.uploads > 0) return progressOf(move, `${busy!.uploads} uploads in flight`);
        if (busy!.analyses > 0) return progressOf(move, `${busy!.analyses} analyses pending`);
        cursor = { phase: PHASES[0], after: null };
      }
      const sourceKey = await ownerKey(source, userId);
      const targetKey = await copyOwnerRow(source, target, userId);
      for (; budget.pages > 0; budget.pages--) {
        const page = await readPage(source, userId, sourceKey, cursor.phase, cursor.after);
        // Ids coming back to a shard they had left are found there again, not forwarded.
        const home = idsOf(page);
        await runBatch(target, [
          ...(home.length > 0 ? [target.run(sql`DELETE FROM moved_files WHERE id IN (SELECT value FROM json_each(${JSON.stringify(home)}))`)] : []),
          ...writeStatements(target, page, targetKey),
        ]);
        const next = nextCursor(cursor, page.next);
        if (!next) return progressOf(await record(env, move, "verify", null));
        move = await record(env, move, "copy", (cursor = next));
      }
      return progressOf(move);
    }
    case "verify": {
      let cursor: Cursor = move.cursor ? JSON.parse(move.cursor) : { phase: PHASES[0], after: null };
      const sourceKey = await ownerKey(source, userId);
      const targetKey = await ownerKey(target, userId);
      for (; budget.pages > 0; budget.pages--) {
        const page = await readPage(source, userId, sourceKey, cursor.phase, cursor.after);
        const found = await readBack(target, page, targetKey);
        for (const [table, rows] of page.tables) {
          const missing = rows.filter((r) => !found.get(table)!.has(keyString(table, r)));
          if (missing.length > 0) await unverified(env, move, `${tableName(table)} on shard ${move.toShard} lacks ${missing.length} of ${rows.length} rows of a page, or has them older (${keyString(table, missing[0])} first)`);
        }
        const next = nextCursor(cursor, page.next);
        if (!next) {
          const [a, b] = await Promise.all([ownerCounts(source, userId), ownerCounts(target, userId)]);
          const differ = Object.keys(a).filter((t) => a[t] !== b[t]);
          if (differ.length > 0) await unverified(env, move, differ.map((t) => `${t}: ${a[t]} on shard ${move!.fromShard}, ${b[t]} on shard ${move!.toShard}`).join("; "));
          return progressOf(await record(env, move, "switch", null));
        }
        move = await record(env, move, "verify", (cursor = next));
      }
      return progressOf(move);
    }
    case "switch": {
      // The counters again: the purge may have freed storage since the copy (nothing else writes them: fenced).
      await copyOwnerRow(source, target, userId);
      await directoryDb(env).update(users).set({ shard: move.toShard }).where(eq(users.id, userId));
      // The principal's records carry the shard, the owner-state records were read on the old shard.
      await accessChanged(env, { userId });
      return progressOf(await record(env, move, "delete", null));
    }
    case "delete": {
      let cursor: Cursor = move.cursor ? JSON.parse(move.cursor) : { phase: PHASES[0], after: null };
      const sourceKey = await ownerKey(source, userId);
      for (; budget.pages > 0; budget.pages--) {
        // Always the phase's first page: the last one's rows are gone.
        const page = await readPage(source, userId, sourceKey, cursor.phase, null);
        await runBatch(source, deleteStatements(source, page, sourceKey, move.toShard));
        // The files' edge records name the shard they were read on: forgotten, the next view finds the new one.
        const moved = (page.tables.get(files) ?? []).map((r) => String(r.id));
        if (moved.length > 0) await forgetFileAccess(env, moved);
        const next = nextCursor(cursor, page.next === null ? null : "more");
        if (!next) {
          // The old row stays, fenced and empty: a writer with the owner's old shard still cached is sent away.
          await source.update(owners).set({ storageUsed: 0, storageReserved: 0, movedTo: move.toShard }).where(eq(owners.userId, userId));
          return progressOf(await record(env, move, "done", null));
        }
        move = await record(env, move, "delete", (cursor = next));
      }
      return progressOf(move);
    }
    case "done":
      return progressOf(move);
  }
}

/** The cursor after a page: further in the phase, the next phase's start, or null when the walk is over. */
function nextCursor(cursor: Cursor, after: string | null): Cursor | null {
  if (after !== null) return { phase: cursor.phase, after };
  const i = PHASES.indexOf(cursor.phase);
  return i + 1 < PHASES.length ? { phase: PHASES[i + 1], after: null } : null;
}

/** Verify failed: the move goes back to its copy (run again, it fills what is missing), and says why, loudly. */
async function unverified(env: MoveEnv, move: MoveRow, why: string): Promise<never> {
  await record(env, move, "copy", null);
  console.error(`shard move of ${move.userId}: verify failed: ${why}`);
  throw new ApiError("owner_move_unverified", `The copy did not verify, nothing was switched: ${why}. Run the move again to copy what is missing`);
}

/** Starts or goes on with a move and runs it until it is done, must wait, or has run `pages` pages. */
export async function moveOwner(env: MoveEnv, userId: string, toShard: number, pages: number = SHARD_MOVE.pagesPerCall): Promise<MoveProgress> {
  let progress = await beginMove(env, userId, toShard);
  const budget = { pages };
  while (progress.step !== "done" && !progress.waitingFor && budget.pages > 0) progress = await runMoveStep(env, userId, budget);
  return progress;
}
