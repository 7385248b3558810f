// Delivery of the outbox through the EMAIL binding (miniflare's local send_email simulation: nothing leaves the
// machine, each send answers a message id): from the queue, once per mail however often its message comes, retried
// on the schedule when the send throws, failed for good after the last try, found again by the cron when its
// message is lost, and with no token left on the row once done (outside development and test).
import { env } from "cloudflare:workers";
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { eq } from "drizzle-orm";
import worker from "../../src/index";
import { call, signup } from "../support/api";
import { createDb, directoryDb } from "../../src/platform/data/db";
import { outbox } from "../../src/db/schema";
import { recordMail } from "../../src/mail/outbox";
import { renderMail } from "../../src/mail/templates";
import { MAIL_TRIES, deliverMail, mailRetryDelaySeconds } from "../../src/mail/deliver";
import { resendLostMail } from "../../src/mail/requeue";
import { scheduledTasks } from "../../src/jobs/scheduled";
import { MAIL } from "../../src/config/mail";
import type { JobMessage, MailMessage } from "../../src/platform/data/job-messages";

const db = () => createDb(env.DB);
const rowOf = async (id: string) => (await db().select().from(outbox).where(eq(outbox.id, id)).get())!;
const TOKEN = "one-time-token-0123456789";
/** A verification mail written to the outbox with no queue message: the test decides when it is delivered. */
const written = (to = `mail-${crypto.randomUUID().slice(0, 8)}@example.com`) =>
  recordMail(directoryDb(env), to, renderMail(env, { kind: "verify_email", username: "ada", token: TOKEN }));
const tryOf = (mailId: string, attempt = 1): MailMessage => ({ type: "mail", mailId, attempt });
/** The real binding, counted: every call goes through to the simulation. */
function countingEnv(base: Env = env) {
  const sent: string[] = [];
  const EMAIL = { send: (m: EmailMessageBuilder) => (sent.push(String(m.to)), base.EMAIL.send(m)) } as SendEmail;
  return { env: { ...base, EMAIL } as Env, sent };
}
/** A sender the simulation refuses, as Email Sending refuses a domain that is not onboarded. */
const refusedSender = { ...env, MAIL_FROM: "imghost <noreply@not-onboarded.example>" } as Env;
const production = { ...env, ENVIRONMENT: "production" } as Env;
const MESSAGE_ID = /^<[A-Za-z0-9]+@example\.com>$/;

describe("mail delivery", () => {
  it("a signup's verification mail is delivered from the queue through the send_email simulation", async () => {
    const user = await signup();
    const id = (await db().select({ id: outbox.id }).from(outbox).where(eq(outbox.to, user.email)).get())!.id;
    await expect.poll(async () => (await rowOf(id)).status, { timeout: 15_000, interval: 100 }).toBe("sent");
    const row = await rowOf(id);
    expect(row).toMatchObject({ kind: "verify_email", attempts: 1, lastError: null, nextAttemptAt: null });
    expect(row.messageId).toMatch(MESSAGE_ID);
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(row.html).toContain("<!doctype html>");
    // /dev/outbox (development and test) lists it with its delivery, and still with its token.
    const [mail] = (await call(`/dev/outbox?to=${encodeURIComponent(user.email)}`)).body.messages;
    expect(mail).toMatchObject({ status: "sent", attempts: 1, messageId: row.messageId });
    expect(mail.text).toMatch(/verification token: \S+/);
  });

  it("a message delivered twice sends one mail: in one batch, and in two deliveries at once", async () => {
    const { env: counted, sent } = countingEnv();
    const id = await written();
    const twice = createMessageBatch<JobMessage>("image-jobs", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: tryOf(id) },
      { id: "m2", timestamp: new Date(), attempts: 1, body: tryOf(id) },
    ]);
    await worker.queue(twice, counted);
    const result = await getQueueResult(twice, createExecutionContext());
    expect(result.explicitAcks.sort()).toEqual(["m1", "m2"]);
    expect(result.retryMessages).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(await rowOf(id)).toMatchObject({ status: "sent", attempts: 1 });

    const other = await written();
    const outcomes = await Promise.all([deliverMail(counted, tryOf(other)), deliverMail(counted, tryOf(other))]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["sent", "skipped"]);
    // A copy of a try that already ran, and a try that is not the next one, claim nothing.
    expect(await deliverMail(counted, tryOf(other, 1))).toEqual({ status: "skipped" });
    expect(await deliverMail(counted, tryOf(other, 2))).toEqual({ status: "skipped" });
    expect(sent).toHaveLength(2);
  });

  it("a send that throws is retried on the schedule, then failed for good; the body goes in production", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    onTestFinished(() => logged.mockRestore());
    const id = await written();
    const failing = { ...refusedSender, ENVIRONMENT: "production" } as Env;
    for (let attempt = 1; attempt < MAIL_TRIES; attempt++) {
      const before = Date.now();
      const outcome = await deliverMail(failing, tryOf(id, attempt));
      expect(outcome).toMatchObject({ status: "retrying", nextDelaySeconds: MAIL.retryDelaysSeconds[attempt - 1] });
      const row = await rowOf(id);
      expect(row).toMatchObject({ status: "pending", attempts: attempt, messageId: null, sentAt: null });
      expect(row.lastError).toMatch(/not allowed/);
      expect(row.text).toContain(TOKEN); // still needed for the next try
      expect(row.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before + mailRetryDelaySeconds(attempt)! * 1000);
    }
    expect(await deliverMail(failing, tryOf(id, MAIL_TRIES))).toMatchObject({ status: "failed" });
    const row = await rowOf(id);
    expect(row).toMatchObject({ status: "failed", attempts: MAIL_TRIES, nextAttemptAt: null, text: "", html: "" });
    expect(row.lastError).toMatch(/not allowed/);
    expect(mailRetryDelaySeconds(MAIL_TRIES)).toBeNull();
    // Each failed try is logged by the mail's id, never with its body (the token).
    const log = logged.mock.calls.flat().join("\n");
    expect(log).toContain(`mail ${id} (verify_email): try ${MAIL_TRIES} of ${MAIL_TRIES} failed`);
    expect(log).not.toContain(TOKEN);
    // The queued retries (each a message of its own) find every try taken: nothing more is sent.
    expect(await deliverMail(env, tryOf(id, 2))).toEqual({ status: "skipped" });
  });

  it("once sent in production the row keeps kind, recipient, subject, status and times, and no token", async () => {
    const to = "tokens-at-rest@example.com";
    const id = await written(to);
    expect(await deliverMail(production, tryOf(id))).toMatchObject({ status: "sent", messageId: expect.stringMatching(MESSAGE_ID) });
    const row = await rowOf(id);
    expect(row).toMatchObject({ kind: "verify_email", to, subject: "Verify your e-mail address", status: "sent", text: "", html: "" });
    expect(row.createdAt).toBeInstanceOf(Date);
    expect(row.sentAt).toBeInstanceOf(Date);
    expect(JSON.stringify(row)).not.toContain(TOKEN);
  });

  it("the cron sends again a pending mail whose message was lost, and fails one whose last try never finished", async () => {
    const lost = await written();
    const fresh = await written();
    const late = Date.now() + (MAIL.lostAfterSeconds + 60) * 1000;
    // Its last try was claimed and the worker died: no try is left.
    const stuck = await written();
    await db()
      .update(outbox)
      .set({ attempts: MAIL_TRIES, nextAttemptAt: new Date(late - (MAIL.lostAfterSeconds + 30) * 1000) })
      .where(eq(outbox.id, stuck));
    await db().update(outbox).set({ nextAttemptAt: new Date(late) }).where(eq(outbox.id, fresh));

    // The cron's task (jobs/scheduled.ts), as a run 11 minutes on would call it.
    const run = (await scheduledTasks.resendLostMail(env, late)) as { resent: number; failed: number };
    expect(run.resent).toBeGreaterThanOrEqual(1);
    expect(run.failed).toBeGreaterThanOrEqual(1);
    await expect.poll(async () => (await rowOf(lost)).status, { timeout: 15_000, interval: 100 }).toBe("sent");
    expect((await rowOf(lost)).messageId).toMatch(MESSAGE_ID);
    expect(await rowOf(stuck)).toMatchObject({ status: "failed", lastError: "the last try's outcome was never recorded" });
    expect(await rowOf(fresh)).toMatchObject({ status: "pending", attempts: 0 });
    // Sent again, it is due from that run: the next run leaves it alone.
    expect((await resendLostMail(env, late)).resent).toBe(0);
  });

  it("without the EMAIL binding (development without it) the mail stays pending: the outbox is the mailbox", async () => {
    const id = await written();
    const { EMAIL: _, ...noBinding } = env;
    expect(await deliverMail(noBinding as unknown as Env, tryOf(id))).toEqual({ status: "skipped" });
    expect(await resendLostMail(noBinding as unknown as Env, Date.now() + 3600_000)).toEqual({ resent: 0, failed: 0 });
    expect(await rowOf(id)).toMatchObject({ status: "pending", attempts: 0 });
  });
});
