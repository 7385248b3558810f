// Finalize waits, within FINALIZE_WAIT_MS, for the queue consumer's analysis (docs/uploads.md), rereading the file's
// row with growing pauses (no CPU between reads), so the consumer stays the one place that decodes. The reads go to
// D1's primary (env.DB outside any session): the consumer writes there, and a replica could still show the file as
// pending after the analysis has landed.
import { eq } from "drizzle-orm";
import { files, type FileRow } from "../db/schema";
import { lookupFollowing, shardDbOf } from "../platform/data/moved-ids";
import { config } from "../config/env";

export const ANALYSIS_WAIT = {
  maxReads: 10,
  firstPauseMs: 150,
  growth: 1.6,
} as const;

/** FINALIZE_WAIT_MS as a number of milliseconds: default 10 s, 0 to answer at once, at most a minute. */
export const finalizeWaitMs = (env: Env): number => config(env).finalizeWaitMs;

/**
 * The pauses before each read after the first: growing geometrically from firstPauseMs, scaled so they
 * never add up to more than `budgetMs`. A short analysis is seen within ~150 ms; a long one costs at most
 * maxReads reads.
 */
export function pauseSchedule(budgetMs: number): number[] {
  if (budgetMs <= 0) return [];
  const raw: number[] = [];
  for (let i = 0, pause = ANALYSIS_WAIT.firstPauseMs; i < ANALYSIS_WAIT.maxReads - 1; i++, pause *= ANALYSIS_WAIT.growth) raw.push(pause);
  const total = raw.reduce((a, b) => a + b, 0);
  const scale = total > budgetMs ? budgetMs / total : 1;
  const pauses = raw.map((p) => Math.max(1, Math.floor(p * scale)));
  // Past the geometric run, the rest of the budget goes to the last pause.
  const spent = pauses.reduce((a, b) => a + b, 0);
  if (spent < budgetMs) pauses[pauses.length - 1] += budgetMs - spent;
  return pauses;
}

const settled = (row: FileRow | undefined) => !row || row.analysis === "done" || row.analysis === "failed" || row.deletedAt !== null;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The file's row once its analysis has settled, or as it stands when the budget runs out. */
export async function waitForAnalysis(env: Env, fileId: string, budgetMs: number): Promise<FileRow | undefined> {
  const primary = shardDbOf(env, "file", fileId);
  const read = () => lookupFollowing(primary, fileId, () => primary.select().from(files).where(eq(files.id, fileId)).get());
  let row = await read();
  for (const ms of pauseSchedule(budgetMs)) {
    if (settled(row)) break;
    await pause(ms);
    row = await read();
  }
  return row;
}
