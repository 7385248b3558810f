// One try of one mail ({ type: "mail", mailId, attempt }), claimed for the try its message names, so a message handed
// over twice, or one the cron sent again beside a late original, sends nothing (docs/mail.md § Delivery).
// A mail that is done (sent or failed) keeps no body outside development and test: it may hold a one-time token, and
// support needs only the kind, recipient, subject, status and times. Development and test keep it because GET
// /dev/outbox answers the mail's text with its token there (decisions.md § Email verification).
import { and, eq } from "drizzle-orm";
import { MAIL } from "../config/mail";
import { outbox, type OutboxRow } from "../db/schema";
import { directoryDb, type DirectoryDb } from "../platform/data/db";
import { isDevEnvironment } from "../platform/http/env";
import type { JobHandler, MailMessage } from "../platform/data/job-messages";
import { sendTry } from "./outbox";
import { mailSender } from "./sender";

export type DeliveryResult =
  | { status: "skipped" }
  | { status: "sent"; messageId: string }
  | { status: "retrying"; error: string; nextDelaySeconds: number }
  | { status: "failed"; error: string };

/** Seconds until try `attempt + 1` after try `attempt` failed (1-based), or null when `attempt` was the last. */
export function mailRetryDelaySeconds(attempt: number): number | null {
  return MAIL.retryDelaysSeconds[attempt - 1] ?? null;
}

/** How many tries a mail gets. */
export const MAIL_TRIES = MAIL.retryDelaysSeconds.length + 1;

/** The columns that empty a finished mail's bodies, where they must not stay. */
export const emptiedBodies = (env: Env) => (isDevEnvironment(env) ? {} : { text: "", html: "" });

const errorText = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, MAIL.errorChars);

/** The row of this try, as long as no later try has claimed it. */
const thisTry = (row: OutboxRow, attempt: number) => and(eq(outbox.id, row.id), eq(outbox.attempts, attempt));

export async function deliverMail(env: Env, message: MailMessage, now = Date.now()): Promise<DeliveryResult> {
  const { mailId, attempt } = message;
  const sender = mailSender(env);
  // Without a binding (development without one) the mail stays pending: the outbox is the mailbox.
  if (!sender || attempt < 1 || attempt > MAIL_TRIES) return { status: "skipped" };
  const db = directoryDb(env);
  // The claim also sets when this try's outcome is due: a worker that dies mid-send leaves the row for the cron.
  const [row] = await db
    .update(outbox)
    .set({ attempts: attempt, lastAttemptAt: new Date(now), nextAttemptAt: new Date(now + MAIL.claimSeconds * 1000) })
    .where(and(eq(outbox.id, mailId), eq(outbox.status, "pending"), eq(outbox.attempts, attempt - 1)))
    .returning();
  if (!row) return { status: "skipped" };

  let messageId: string;
  try {
    ({ messageId } = await sender.binding.send({ from: sender.from, to: row.to, subject: row.subject, text: row.text, ...(row.html ? { html: row.html } : {}) }));
  } catch (err) {
    return failedTry(env, db, row, attempt, errorText(err), now);
  }
  await db
    .update(outbox)
    .set({ status: "sent", sentAt: new Date(), messageId, lastError: null, nextAttemptAt: null, ...emptiedBodies(env) })
    .where(thisTry(row, attempt));
  return { status: "sent", messageId };
}

async function failedTry(env: Env, db: DirectoryDb, row: OutboxRow, attempt: number, error: string, now: number): Promise<DeliveryResult> {
  const delay = mailRetryDelaySeconds(attempt);
  // The body stays out of the log (it may hold a token): the id finds the row.
  console.error(`mail ${row.id} (${row.kind}): try ${attempt} of ${MAIL_TRIES} failed: ${error}`);
  if (delay === null) {
    await db.update(outbox).set({ status: "failed", lastError: error, nextAttemptAt: null, ...emptiedBodies(env) }).where(thisTry(row, attempt));
    return { status: "failed", error };
  }
  await db.update(outbox).set({ lastError: error, nextAttemptAt: new Date(now + delay * 1000) }).where(thisTry(row, attempt));
  await sendTry(env, row.id, attempt + 1, delay);
  return { status: "retrying", error, nextDelaySeconds: delay };
}

/** The queue's handler: a failed send is retried by the schedule above, never by throwing. */
export const mailJob: JobHandler<MailMessage> = {
  run: async (env, body) => {
    await deliverMail(env, body);
  },
};
