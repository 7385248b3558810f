// /billing: the plan catalogue, the caller's subscription and plan changes (session-only), and the payment
// processor's webhook (no credentials: an HMAC signature instead).
import { defineRoute } from "../platform/http/route-errors";
import { eq } from "drizzle-orm";
import type { AppEnv } from "../platform/http/env";
import type { DirectoryDb } from "../platform/data/db";
import { sessionOnly, sessionPrincipal } from "../middleware/guards";
import { bearer, errors, json, jsonBody, noCredentials } from "../platform/http/openapi";
import { validationError } from "../platform/http/validation";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { RATE_LIMIT_EXEMPT } from "../platform/http/route-traits";
import { ApiError, unauthorized } from "../platform/errors/errors";
import type { CodeWithStatus } from "../platform/errors/error-codes";
import { users } from "../db/schema";
import { planCatalogue } from "./plans";
import { PlansBody, SubscriptionBody, SubscriptionChangeBody, SubscriptionRequest, WebhookAck } from "./schemas";
import { cancelPendingChanges, findPendingChange, planChangeResource } from "./plan-changes";
import { paymentProvider } from "./provider";
import { SIGNATURE_HEADER, verifySignature } from "./signature";
import { applyWebhookEvent, WebhookEventSchema } from "./webhook";
import { config } from "../config/env";

export const billingRoutes = apiRouter();
export const billingMount = mountAt("/billing", billingRoutes);
const tags = ["Billing"];

billingRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/plans",
    operationId: "billing.listPlans",
    tags,
    summary: "The plans and their limits",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: { 200: json(PlansBody, "Plans"), ...errors(401, 403, 429) },
  }),
  (c) => c.json(planCatalogue(), 200),
);

async function currentPlan(db: DirectoryDb, userId: string) {
  const row = await db.select({ plan: users.plan }).from(users).where(eq(users.id, userId)).get();
  if (!row) throw unauthorized();
  return row.plan;
}

billingRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/subscription",
    operationId: "billing.getSubscription",
    tags,
    summary: "The caller's plan and any plan change waiting for a decision",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: { 200: json(SubscriptionBody, "Subscription"), ...errors(401, 403, 429) },
  }),
  async (c) => {
    const userId = sessionPrincipal(c.get("principal")).user.id;
    const [plan, pending] = await Promise.all([currentPlan(c.get("dbs").directory(), userId), findPendingChange(c.get("dbs").directory(), userId)]);
    return c.json({ plan, pendingChange: pending ? planChangeResource(pending) : null, provider: paymentProvider(c.env).name }, 200);
  },
);

billingRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/subscription",
    operationId: "billing.changePlan",
    tags,
    summary: "Change the caller's plan",
    description:
      "Goes through the deployment's payment provider. The shipped `manual` provider applies downgrades at once (200) and " +
      "records upgrades as pending requests for an administrator (202). Asking for the current plan cancels a pending request.",
    security: bearer,
    middleware: [sessionOnly()] as const,
    request: { body: jsonBody(SubscriptionRequest) },
    responses: {
      200: json(SubscriptionChangeBody, "Applied, or already on that plan"),
      202: json(SubscriptionChangeBody, "Waiting for approval or payment"),
      ...errors(400, 401, 403, 429),
    },
  }),
  async (c) => {
    const userId = sessionPrincipal(c.get("principal")).user.id;
    const { plan: toPlan } = c.req.valid("json");
    const db = c.get("dbs").directory();
    const fromPlan = await currentPlan(db, userId);
    if (fromPlan === toPlan) {
      const cancelled = await cancelPendingChanges(db, userId);
      const message = cancelled ? `You stay on the ${toPlan} plan; your pending change was cancelled` : `You are already on the ${toPlan} plan`;
      return c.json({ message, status: "unchanged" as const, plan: fromPlan, planChange: null }, 200);
    }
    const outcome = await paymentProvider(c.env).changePlan(db, c.env, { userId, fromPlan, toPlan });
    const body = {
      message: outcome.message,
      status: outcome.status,
      plan: outcome.status === "applied" ? toPlan : fromPlan,
      planChange: planChangeResource(outcome.planChange),
      ...(outcome.checkoutUrl ? { checkoutUrl: outcome.checkoutUrl } : {}),
    };
    return outcome.status === "applied" ? c.json(body, 200) : c.json(body, 202);
  },
);

const signatureErrors: Record<string, [string, CodeWithStatus<400>]> = {
  missing: [`The ${SIGNATURE_HEADER} header is missing`, "missing_signature"],
  malformed: [`The ${SIGNATURE_HEADER} header must be 't=<unix seconds>,v1=<hex HMAC-SHA256>'`, "invalid_signature"],
  mismatch: ["The signature does not match the body", "invalid_signature"],
  stale: ["The signature timestamp is outside the 5-minute window", "stale_signature"],
};

billingRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/webhook",
    operationId: "billing.webhook",
    [RATE_LIMIT_EXEMPT]: true,
    security: noCredentials,
    tags,
    summary: "Payment processor events (signed)",
    description:
      `No credentials: the raw body must carry \`${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">\` under ` +
      "BILLING_WEBHOOK_SECRET, with t within 5 minutes of the server's clock. Event ids are recorded: a repeated delivery " +
      "answers 200 with `duplicate: true` and changes nothing. Handled types: `subscription.created` / `subscription.updated` " +
      "(`data: { userId, plan }`) and `subscription.deleted` (`data: { userId }`, back to free); others are acknowledged. " +
      "Exempt from per-IP rate limits.",
    request: { body: { required: true, content: { "application/json": { schema: WebhookEventSchema } } } },
    errors: ["missing_signature", "invalid_signature", "stale_signature", "webhook_not_configured"],
    responses: { 200: json(WebhookAck, "Received"), ...errors(400, 503) },
  }),
  async (c) => {
    const secret = config(c.env).billingWebhookSecret;
    if (!secret) throw new ApiError("webhook_not_configured", "Billing webhooks are not configured");
    // The signature covers the exact bytes, so the body is read raw and parsed only after it checks out.
    const raw = await c.req.text();
    const check = await verifySignature(secret, c.req.header(SIGNATURE_HEADER), raw);
    if (!check.ok) {
      const [message, code] = signatureErrors[check.reason];
      throw new ApiError(code, message);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new ApiError("malformed_json", "The request body is not valid JSON");
    }
    const event = WebhookEventSchema.safeParse(parsed);
    if (!event.success) throw validationError(event.error.issues);
    const outcome = await applyWebhookEvent(c.get("dbs").directory(), c.env, event.data);
    return c.json({ received: true as const, ...outcome }, 200);
  },
);
