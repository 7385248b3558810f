// An endpoint's delivery history (every try, newest first), a ping, and sending one delivery again.
import { and, count, desc, eq } from "drizzle-orm";
import { webhookAttempts, webhookDeliveries, type WebhookEndpointRow } from "../db/schema";
import type { DirectoryDb } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import { jobQueue } from "../platform/data/job-messages";
import { startDeliveries } from "./emit";

export type AttemptView = {
  id: string;
  deliveryId: string;
  eventId: string;
  event: string;
  attempt: number;
  /** The delivery's state now: pending (more tries to come), succeeded or failed. */
  status: "pending" | "succeeded" | "failed";
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
};

export async function listAttempts(db: DirectoryDb, endpointId: string, limit: number, offset: number): Promise<{ items: AttemptView[]; total: number }> {
  const where = eq(webhookAttempts.endpointId, endpointId);
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({ attempt: webhookAttempts, delivery: { eventId: webhookDeliveries.eventId, event: webhookDeliveries.event, status: webhookDeliveries.status } })
      .from(webhookAttempts)
      .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
      .where(where)
      .orderBy(desc(webhookAttempts.createdAt), desc(webhookAttempts.attempt))
      .limit(limit)
      .offset(offset),
    db.select({ total: count() }).from(webhookAttempts).where(where),
  ]);
  const items = rows.map(({ attempt: a, delivery: d }) => ({
    id: a.id,
    deliveryId: a.deliveryId,
    eventId: d.eventId,
    event: d.event,
    attempt: a.attempt,
    status: d.status,
    statusCode: a.statusCode,
    durationMs: a.durationMs,
    error: a.error,
    nextAttemptAt: a.nextAttemptAt?.toISOString() ?? null,
    createdAt: a.createdAt.toISOString(),
  }));
  return { items, total };
}

const disabled = () => new ApiError("webhook_disabled", "The endpoint is disabled; enable it first (PATCH with enabled: true)");

/** Queues a `ping` to this endpoint alone, whatever events it asked for. */
export async function sendPing(env: Env, db: DirectoryDb, endpoint: WebhookEndpointRow): Promise<{ deliveryId: string; eventId: string }> {
  if (!endpoint.enabled) throw disabled();
  const [row] = await startDeliveries(env, db, [endpoint], "ping", { webhookId: endpoint.id, message: "ping" });
  return { deliveryId: row.id, eventId: row.eventId };
}

/**
 * Sends a delivery again now, with its event id and body unchanged: the next try after those made. It goes on
 * with the schedule's remaining retries, if any are left.
 */
export async function retryDelivery(env: Env, db: DirectoryDb, endpoint: WebhookEndpointRow, deliveryId: string): Promise<{ deliveryId: string; attempt: number }> {
  const delivery = await db
    .select({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpoint.id)))
    .get();
  if (!delivery) throw new ApiError("delivery_not_found", "Delivery not found");
  if (!endpoint.enabled) throw disabled();
  await db.update(webhookDeliveries).set({ status: "pending", nextAttemptAt: new Date() }).where(eq(webhookDeliveries.id, delivery.id));
  const attempt = delivery.attempts + 1;
  await jobQueue(env).send({ type: "webhook", deliveryId: delivery.id, attempt });
  return { deliveryId: delivery.id, attempt };
}
