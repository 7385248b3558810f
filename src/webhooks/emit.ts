// What other features call when something happens to a user's files or albums. The hot path pays one indexed
// read of the directory (most owners have no endpoint, and then nothing else happens); with endpoints, one
// batch of delivery rows and one queue send. The tries themselves leave from the queue (deliver.ts).
import { and, eq } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints, type WebhookDeliveryRow } from "../db/schema";
import { runBatch, type DirectoryDb } from "../platform/data/db";
import { newId } from "../platform/data/ids";
import { jobQueue } from "../platform/data/job-messages";
import { eventBody, type WebhookEventType } from "./events";

type Target = { id: string };

/** Delivery rows for one event to `targets`, sharing the event id (the webhook-id of every try). */
function deliveriesFor(targets: Target[], type: WebhookEventType, data: Record<string, unknown>, at: Date): WebhookDeliveryRow[] {
  const eventId = newId("evt");
  const payload = eventBody(type, data, at);
  return targets.map((t) => ({
    id: newId("whd"),
    endpointId: t.id,
    eventId,
    event: type,
    payload,
    status: "pending",
    attempts: 0,
    nextAttemptAt: at,
    createdAt: at,
  }));
}

/** Stores the deliveries and queues each one's first try. */
export async function startDeliveries(env: Env, db: DirectoryDb, targets: Target[], type: WebhookEventType, data: Record<string, unknown>): Promise<WebhookDeliveryRow[]> {
  if (targets.length === 0) return [];
  const rows = deliveriesFor(targets, type, data, new Date());
  await runBatch(db, rows.map((row) => db.insert(webhookDeliveries).values(row)));
  await jobQueue(env).sendBatch(rows.map((row) => ({ body: { type: "webhook", deliveryId: row.id, attempt: 1 } })));
  return rows;
}

/**
 * Sends `type` to every enabled endpoint of `userId` that asked for it. Never throws: an event that cannot be
 * queued is logged and lost, and the action that caused it (an upload, a delete) stands.
 */
export async function emitWebhookEvent(env: Env, db: DirectoryDb, userId: string | null, type: WebhookEventType, data: Record<string, unknown>): Promise<void> {
  if (!userId) return; // anonymous uploads have nobody to tell
  try {
    const endpoints = await db
      .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.userId, userId), eq(webhookEndpoints.enabled, true)));
    await startDeliveries(env, db, endpoints.filter((e) => e.events.includes(type)), type, data);
  } catch (err) {
    console.error(`webhooks: could not queue ${type} for ${userId}`, err);
  }
}

/** From a request handler: the event is queued after the answer (waitUntil), so the caller does not wait for it. */
export function emitAfterResponse(
  executionCtx: Pick<ExecutionContext, "waitUntil">,
  env: Env,
  db: DirectoryDb,
  userId: string | null,
  type: WebhookEventType,
  data: Record<string, unknown>,
): void {
  if (userId) executionCtx.waitUntil(emitWebhookEvent(env, db, userId, type, data));
}
