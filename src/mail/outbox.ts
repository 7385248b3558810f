// Outgoing mail: each mail is a row of the D1 outbox, written beside the change it tells of, then delivered from
// the queue (./deliver.ts; a `mail` message per try). Writing the row is the only part a request waits for: a
// send that fails, or a queue that will not take the message, never fails the request (the cron sends lost
// messages again, ./requeue.ts). Development prints each mail and serves it at GET /api/v1/dev/outbox.
import { desc, eq } from "drizzle-orm";
import type { DirectoryDb } from "../platform/data/db";
import { outbox } from "../db/schema";
import { newId } from "../platform/data/ids";
import { jobQueue } from "../platform/data/job-messages";
import { renderMail, type MailContent, type RenderedMail } from "./templates";
import { mailSender } from "./sender";
import { config } from "../config/env";

/** Writes the mail as pending, its first try due now; answers its id. Sends nothing (queueMail does). */
export async function recordMail(db: DirectoryDb, to: string, mail: RenderedMail, now = new Date()): Promise<string> {
  const id = newId("msg");
  await db.insert(outbox).values({ id, to, ...mail, status: "pending", attempts: 0, nextAttemptAt: now, createdAt: now });
  return id;
}

/** Queues try `attempt` of the mail; a queue that refuses it is logged, not thrown (the cron sends it later). */
export async function sendTry(env: Env, mailId: string, attempt: number, delaySeconds = 0): Promise<void> {
  try {
    await jobQueue(env).send({ type: "mail", mailId, attempt }, delaySeconds > 0 ? { delaySeconds } : undefined);
  } catch (err) {
    console.error(`mail ${mailId}: try ${attempt} could not be queued; the cron sends it later:`, err instanceof Error ? err.message : String(err));
  }
}

/** Renders the mail, writes it to the outbox and queues its first try. */
export async function queueMail(db: DirectoryDb, env: Env, to: string, content: MailContent): Promise<void> {
  const mail = renderMail(env, content);
  const id = await recordMail(db, to, mail);
  // Only development prints mail: it carries one-time tokens, which must not reach production logs.
  if (config(env).environment === "development") console.log(`[outbox] to=${to} subject=${mail.subject}\n${mail.text}`);
  // Without a way to send (development without the EMAIL binding) the outbox is the mailbox.
  if (mailSender(env)) await sendTry(env, id, 1);
}

export async function readOutbox(db: DirectoryDb, to: string, limit = 50) {
  const rows = await db
    .select({
      to: outbox.to,
      subject: outbox.subject,
      text: outbox.text,
      status: outbox.status,
      attempts: outbox.attempts,
      messageId: outbox.messageId,
      createdAt: outbox.createdAt,
    })
    .from(outbox)
    .where(eq(outbox.to, to))
    .orderBy(desc(outbox.createdAt), desc(outbox.id))
    .limit(limit);
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
}
