// The queue consumer: each message names a job type; its handler is a plain function. Messages are acked
// when the handler succeeds and retried with exponential backoff when it throws; after max_retries the
// platform moves them to the dead-letter queue, whose consumer runs the type's `onDeadLetter`.
import { analyzeJobWith } from "../analysis/job";
import { announceAnalysis } from "./analysis-events";
import { webhookJob } from "../webhooks/deliver";
import { mailJob } from "../mail/deliver";
import { passwordResetJob } from "../auth/password-reset";
import { isJobMessage, type JobHandler, type JobHandlers, type JobMessage } from "../platform/data/job-messages";
import { config } from "../config/env";

/** Features register their handlers here, one per message type (the compiler checks every type has one). */
export const jobHandlers = {
  analyze: analyzeJobWith(announceAnalysis),
  webhook: webhookJob,
  mail: mailJob,
  password_reset: passwordResetJob,
} satisfies JobHandlers as JobHandlers;

export const DEAD_LETTER_QUEUE = "image-jobs-dlq";

export function retryDelaySeconds(attempts: number, baseSeconds = 5): number {
  return Math.min(600, 2 ** Math.max(0, attempts - 1) * baseSeconds);
}

const retryBase = (env: Env): number => config(env).queueRetryBaseSeconds;

export async function handleQueue(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  const deadLetters = batch.queue === DEAD_LETTER_QUEUE;
  for (const message of batch.messages) {
    const body: unknown = message.body;
    if (!isJobMessage(body)) {
      // A message nobody can handle will never succeed: drop it loudly instead of retrying forever.
      console.error(`queue ${batch.queue}: no handler for message ${message.id}`, (body as { type?: unknown } | null)?.type);
      message.ack();
      continue;
    }
    const handler = jobHandlers[body.type] as JobHandler;
    try {
      if (deadLetters) await handler.onDeadLetter?.(env, body);
      else await handler.run(env, body);
      message.ack();
    } catch (err) {
      console.error(`queue ${batch.queue}: job ${body.type} failed (attempt ${message.attempts})`, err);
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts, retryBase(env)) });
    }
  }
}
