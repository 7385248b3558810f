import { z } from "@hono/zod-openapi";
import { PLANS, type Plan } from "../config";

export const PlanId = z.enum(PLANS as [Plan, ...Plan[]]);

export const PlanSchema = z
  .object({
    id: z.enum(["anonymous", "free", "pro", "enterprise"]),
    name: z.string(),
    uploadsPerHour: z.number().int(),
    apiCallsPerHour: z.number().int(),
    maxFileBytes: z.number().int(),
    storageQuotaBytes: z.number().int().nullable(),
  })
  .openapi("Plan");

export const PlansBody = z
  .object({ plans: z.array(PlanSchema), anonymous: PlanSchema.openapi({ description: "What callers without an account get" }) })
  .openapi("Plans");

export const PlanChangeSchema = z
  .object({
    id: z.string().openapi({ example: "pch_V1StGXR8_Z5jdHi6B-myT" }),
    userId: z.string(),
    fromPlan: PlanId,
    toPlan: PlanId,
    status: z.enum(["pending", "applied", "rejected", "cancelled"]),
    provider: z.string().openapi({ description: "manual, admin or webhook" }),
    createdAt: z.string().openapi({ format: "date-time" }),
    decidedAt: z.string().openapi({ format: "date-time" }).nullable(),
  })
  .openapi("PlanChange");

export const SubscriptionBody = z
  .object({ plan: PlanId, pendingChange: PlanChangeSchema.nullable(), provider: z.string() })
  .openapi("Subscription");

export const SubscriptionRequest = z.object({ plan: PlanId }).strict().openapi("SubscriptionRequest");

export const SubscriptionChangeBody = z
  .object({
    message: z.string(),
    status: z.enum(["applied", "pending", "unchanged"]),
    plan: PlanId.openapi({ description: "The caller's plan after this request" }),
    planChange: PlanChangeSchema.nullable(),
    checkoutUrl: z.string().optional().openapi({ description: "Where to pay, when the provider uses a hosted checkout" }),
  })
  .openapi("SubscriptionChange");

export const WebhookAck = z.object({ received: z.literal(true), duplicate: z.boolean(), applied: z.boolean() }).openapi("BillingWebhookAck");
