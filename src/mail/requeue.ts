// A mail whose message is lost (the queue refused it, or a worker died mid-try) would stay pending for good. The
// cron sends its next try again once that try is well overdue. Repeats are harmless: a try is claimed once
// (./deliver.ts), so a late original and its copy send one mail.
import { and, asc, eq, gte, inArray, lt } from "drizzle-orm";
import { MAIL } from "../config/mail";
import { outbox } from "../db/schema";
import { directoryDb } from "../platform/data/db";
import { jobQueue } from "../platform/data/job-messages";
import { MAIL_TRIES, emptiedBodies } from "./deliver";
import { mailSender } from "./sender";

export async function resendLostMail(env: Env, now: number): Promise<{ resent: number; failed: number }> {
  if (!mailSender(env)) return { resent: 0, failed: 0 };
  const db = directoryDb(env);
  const overdue = and(eq(outbox.status, "pending"), lt(outbox.nextAttemptAt, new Date(now - MAIL.lostAfterSeconds * 1000)));
  // outbox_pending (a partial index on next_attempt_at) keeps this a read of pending mail only.
  const lost = await db
    .select({ id: outbox.id, attempts: outbox.attempts })
    .from(outbox)
    .where(overdue)
    .orderBy(asc(outbox.nextAttemptAt))
    .limit(MAIL.requeueBatch);
  const again = lost.filter((m) => m.attempts < MAIL_TRIES);
  // The last try was claimed and never finished: whether it was sent is unknown, and there is no try left.
  const done = lost.filter((m) => m.attempts >= MAIL_TRIES).map((m) => m.id);
  if (done.length > 0) {
    await db
      .update(outbox)
      .set({ status: "failed", lastError: "the last try's outcome was never recorded", nextAttemptAt: null, ...emptiedBodies(env) })
      .where(and(inArray(outbox.id, done), overdue, gte(outbox.attempts, MAIL_TRIES)));
  }
  if (again.length > 0) {
    await jobQueue(env).sendBatch(again.map((m) => ({ body: { type: "mail", mailId: m.id, attempt: m.attempts + 1 } })));
    // Due again from now: the next run waits another grace period before sending them again.
    await db
      .update(outbox)
      .set({ nextAttemptAt: new Date(now) })
      .where(and(inArray(outbox.id, again.map((m) => m.id)), overdue));
  }
  return { resent: again.length, failed: done.length };
}
