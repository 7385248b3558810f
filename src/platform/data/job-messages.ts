// Every message the image-jobs queue carries: one discriminated union, checked where messages are sent
// (jobQueue) and where they are handled (the handler map in jobs/queue.ts). Imports nothing, so both the
// senders and the handlers can depend on it without a circle.

/** Analyse a finalized file (sent by finalize and by the cron that re-sends lost messages). */
export type AnalyzeMessage = { type: "analyze"; fileId: string; /** Re-analyse even when done or failed. */ force?: boolean };

/**
 * Send try `attempt` (1-based) of one webhook delivery (webhooks/deliver.ts). One message per try: a failed try
 * sends the next one with the schedule's delay (delaySeconds), so the schedule lives in the queue.
 */
export type WebhookMessage = { type: "webhook"; deliveryId: string; attempt: number };

/**
 * Send try `attempt` (1-based) of one outbox mail (mail/deliver.ts). The row is claimed for exactly that try, so
 * a message the queue hands over twice, or one the cron sent again, sends the mail once.
 */
export type MailMessage = { type: "mail"; mailId: string; attempt: number };

/**
 * Look up an address that asked for a password reset and, for a live account, mail a reset link (auth/password-reset.ts).
 * Every address is sent alike, so the answer to POST /auth/password/forgot never waits on the lookup.
 */
export type PasswordResetMessage = { type: "password_reset"; email: string };

export type JobMessage = AnalyzeMessage | WebhookMessage | MailMessage | PasswordResetMessage;
export type JobType = JobMessage["type"];

export type JobHandler<M extends JobMessage = JobMessage> = {
  run: (env: Env, body: M) => Promise<void>;
  /** Runs for messages that exhausted their retries (e.g. record `analysis: failed`). */
  onDeadLetter?: (env: Env, body: M) => Promise<void>;
};

/** One handler per message type, each taking exactly its own message. */
export type JobHandlers = { [T in JobType]: JobHandler<Extract<JobMessage, { type: T }>> };

const JOB_TYPES: ReadonlySet<string> = new Set<JobType>(["analyze", "webhook", "mail", "password_reset"]);

/** A queue body is our own message (queues deliver what we sent, but a stray or old one must not crash the consumer). */
export function isJobMessage(body: unknown): body is JobMessage {
  return typeof body === "object" && body !== null && JOB_TYPES.has((body as { type?: unknown }).type as string);
}

/** The JOBS binding with its message type (wrangler's generated `Queue` cannot know it). */
export const jobQueue = (env: Pick<Env, "JOBS">) => env.JOBS as Queue<JobMessage>;
