// One try of one delivery ({ type: "webhook", deliveryId, attempt }): the row is claimed for the try the message
// names, so a message handed over twice, or one a manual retry overtook, sends nothing. The outcomes (2xx resets the
// failure count, 410 disables at once, 20 failures in a row disable) and the schedule: docs/webhooks.md § Delivery.
import { and, eq, sql } from "drizzle-orm";
import { WEBHOOKS } from "../config";
import { webhookAttempts, webhookDeliveries, webhookEndpoints, type WebhookEndpointRow } from "../db/schema";
import { directoryDb, runBatch, type DirectoryDb } from "../platform/data/db";
import { newId } from "../platform/data/ids";
import { jobQueue, type JobHandler, type WebhookMessage } from "../platform/data/job-messages";
import { checkOutboundUrl, outboundRules } from "../platform/outbound/outbound-address";
import { signingKey } from "./endpoints";
import { mailEndpointDisabled } from "./disabled-mail";
import { retryDelaySeconds } from "./retry-schedule";
import { signedHeaders } from "./signing";

type Answer = { statusCode: number | null; error: string | null; durationMs: number };

/** POSTs the body, never following redirects (each hop would need the address rules again), within the timeout. */
async function post(url: string, headers: Record<string, string>, body: string): Promise<Answer> {
  const started = Date.now();
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "edge-image-host-webhooks/1", ...headers },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(WEBHOOKS.timeoutMs),
    });
    const ok = res.status >= 200 && res.status < 300;
    const text = ok ? "" : (await res.text().catch(() => "")).slice(0, WEBHOOKS.errorBodyChars);
    await res.body?.cancel().catch(() => {});
    return { statusCode: res.status, error: ok ? null : `HTTP ${res.status}${text ? `: ${text}` : ""}`, durationMs: Date.now() - started };
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    const error = timedOut ? `no answer within ${WEBHOOKS.timeoutMs / 1000} s` : `request failed: ${err instanceof Error ? err.message : String(err)}`;
    return { statusCode: null, error, durationMs: Date.now() - started };
  }
}

async function attemptSend(env: Env, endpoint: WebhookEndpointRow, eventId: string, payload: string): Promise<Answer> {
  if (!endpoint.enabled) return { statusCode: null, error: "the endpoint is disabled", durationMs: 0 };
  const checked = checkOutboundUrl(endpoint.url, outboundRules(env));
  if (!checked.ok) return { statusCode: null, error: `address refused: ${checked.reason}`, durationMs: 0 };
  const key = await signingKey(env, endpoint);
  if (!key) return { statusCode: null, error: "the signing secret does not open (was TOTP_ENCRYPTION_SECRET changed?)", durationMs: 0 };
  return post(checked.url.href, signedHeaders(key, eventId, new Date(), payload), payload);
}

/** Disables the endpoint if it is still on; true for the one call that did (so the owner is mailed once). */
async function disable(db: DirectoryDb, endpointId: string, reason: "gone" | "failures"): Promise<boolean> {
  const done = await db
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, updatedAt: new Date() })
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.enabled, true)))
    .returning({ id: webhookEndpoints.id });
  return done.length > 0;
}

/** The endpoint's failed tries in a row, this one counted. */
async function countFailure(db: DirectoryDb, endpointId: string): Promise<number> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1` })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning({ n: webhookEndpoints.consecutiveFailures });
  return row?.n ?? 0;
}

export type AttemptResult = { status: "skipped" } | { status: "succeeded" | "failed" | "retrying"; statusCode: number | null; nextDelaySeconds: number | null };

export async function deliverAttempt(env: Env, message: WebhookMessage): Promise<AttemptResult> {
  const db = directoryDb(env);
  const { deliveryId, attempt } = message;
  const claimed = await db
    .update(webhookDeliveries)
    .set({ attempts: attempt, nextAttemptAt: null })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.attempts, attempt - 1), eq(webhookDeliveries.status, "pending")))
    .returning();
  const delivery = claimed[0];
  if (!delivery) return { status: "skipped" };
  const endpoint = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, delivery.endpointId)).get();
  if (!endpoint) return { status: "skipped" };

  const answer = await attemptSend(env, endpoint, delivery.eventId, delivery.payload);
  const succeeded = answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300;
  let nextDelaySeconds: number | null = null;
  let disabledNow = false;
  if (succeeded) {
    await db.update(webhookEndpoints).set({ consecutiveFailures: 0 }).where(eq(webhookEndpoints.id, endpoint.id));
  } else if (endpoint.enabled) {
    const failures = await countFailure(db, endpoint.id);
    if (answer.statusCode === 410) disabledNow = await disable(db, endpoint.id, "gone");
    else if (failures >= WEBHOOKS.disableAfterFailures) disabledNow = await disable(db, endpoint.id, "failures");
    else nextDelaySeconds = retryDelaySeconds(attempt);
  }
  const now = Date.now();
  const nextAttemptAt = nextDelaySeconds === null ? null : new Date(now + nextDelaySeconds * 1000);
  const status = succeeded ? "succeeded" : nextAttemptAt ? "pending" : "failed";
  await runBatch(db, [
    db.update(webhookDeliveries).set({ status, nextAttemptAt }).where(eq(webhookDeliveries.id, delivery.id)),
    db.insert(webhookAttempts).values({
      id: newId("wha"),
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      attempt,
      statusCode: answer.statusCode,
      durationMs: answer.durationMs,
      error: answer.error,
      nextAttemptAt,
      createdAt: new Date(now),
    }),
  ]);
  if (nextDelaySeconds !== null) await jobQueue(env).send({ type: "webhook", deliveryId: delivery.id, attempt: attempt + 1 }, { delaySeconds: nextDelaySeconds });
  if (disabledNow) await mailEndpointDisabled(db, env, endpoint, answer.statusCode === 410 ? "gone" : "failures");
  return { status: succeeded ? "succeeded" : nextAttemptAt ? "retrying" : "failed", statusCode: answer.statusCode, nextDelaySeconds };
}

export const webhookJob: JobHandler<WebhookMessage> = {
  run: async (env, body) => {
    await deliverAttempt(env, body);
  },
  // The queue gave up on this try (our own code failed five times, e.g. D1 was down): the delivery ends.
  onDeadLetter: async (env, body) => {
    await directoryDb(env)
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null })
      .where(and(eq(webhookDeliveries.id, body.deliveryId), eq(webhookDeliveries.status, "pending")));
  },
};
