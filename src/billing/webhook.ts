// Applying a payment processor's events. The signature has been checked (signature.ts) before this runs.
// Each event id is recorded in webhook_events in the same transaction as its effect, so a delivery
// repeated (by the processor's retries or by an attacker replaying a captured request) changes nothing.
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { DirectoryDb } from "../platform/data/db";
import { users, webhookEvents } from "../db/schema";
import { PLANS, type Plan } from "../config";
import { applyPlanChange } from "./plan-changes";

export const WebhookEventSchema = z
  .object({
    id: z.string().min(1).max(255).openapi({ example: "evt_1PqR2s" }),
    type: z.string().min(1).max(100).openapi({ example: "subscription.updated" }),
    data: z
      .object({
        userId: z.string().max(100).optional().openapi({ description: "The customer's user id (usr_...), as given to the processor at checkout" }),
        plan: z.enum(PLANS as [Plan, ...Plan[]]).optional(),
      })
      .loose()
      .default({}),
  })
  .openapi("BillingWebhookEvent");

export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

export type WebhookOutcome = { duplicate: boolean; applied: boolean };

const WEBHOOK_PROVIDER = "webhook";

/** The plan an event asks for, or null for events that change no plan (acknowledged and recorded). */
function targetPlan(event: WebhookEvent): Plan | null {
  if (event.type === "subscription.updated" || event.type === "subscription.created") return event.data.plan ?? null;
  if (event.type === "subscription.deleted") return "free";
  return null;
}

function isUniqueViolation(err: unknown): boolean {
  return String((err as { cause?: unknown })?.cause ?? err).includes("UNIQUE constraint failed");
}

export async function applyWebhookEvent(db: DirectoryDb, env: Env, event: WebhookEvent, now = new Date()): Promise<WebhookOutcome> {
  const seen = await db.select({ id: webhookEvents.id }).from(webhookEvents).where(eq(webhookEvents.id, event.id)).get();
  if (seen) return { duplicate: true, applied: false };
  const record = db.insert(webhookEvents).values({ id: event.id, provider: WEBHOOK_PROVIDER, receivedAt: now });
  const plan = targetPlan(event);
  const userId = event.data.userId;
  const user = plan && userId ? await db.select({ id: users.id, plan: users.plan, deletedAt: users.deletedAt }).from(users).where(eq(users.id, userId)).get() : undefined;
  try {
    if (!plan || !user || user.deletedAt || user.plan === plan) {
      await record.run();
      return { duplicate: false, applied: false };
    }
    await applyPlanChange(db, env, {
      userId: user.id,
      fromPlan: user.plan,
      toPlan: plan,
      provider: WEBHOOK_PROVIDER,
      providerRef: event.id,
      decidedBy: null,
      now,
      also: [record],
    });
    return { duplicate: false, applied: true };
  } catch (err) {
    // A concurrent delivery of the same event won the insert; the transaction rolled back.
    if (isUniqueViolation(err)) return { duplicate: true, applied: false };
    throw err;
  }
}
