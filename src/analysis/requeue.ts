// Finalize sends the analysis message after its D1 batch; if that send fails (or a message is lost), the file
// would stay `analysis: "pending"` for good. This cron task re-sends the message for files whose analysis has
// not landed after a grace period. The job is idempotent, so a late original delivery changes nothing.
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { ShardDb } from "../platform/data/db";
import { files } from "../db/schema";
import { ANALYSIS } from "../config";
import { jobQueue } from "../platform/data/job-messages";

export async function requeueStalledAnalysis(env: Env, db: ShardDb, now: number): Promise<{ requeued: number }> {
  const cutoff = new Date(now - ANALYSIS.requeueAfterSeconds * 1000);
  // files_analysis_pending (a partial index on finalized_at) keeps this a read of pending files only.
  const stalled = await db
    .select({ id: files.id })
    .from(files)
    .where(and(eq(files.analysis, "pending"), lt(files.finalizedAt, cutoff), lt(files.updatedAt, cutoff)))
    .orderBy(files.finalizedAt)
    .limit(ANALYSIS.requeueBatch);
  if (stalled.length === 0) return { requeued: 0 };
  await jobQueue(env).sendBatch(stalled.map((f) => ({ body: { type: "analyze", fileId: f.id } })));
  // Touch them so the next run waits another grace period before sending again.
  await db
    .update(files)
    .set({ updatedAt: new Date(now) })
    .where(and(inArray(files.id, stalled.map((f) => f.id)), sql`analysis = 'pending'`));
  return { requeued: stalled.length };
}
