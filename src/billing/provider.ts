// How a plan change is paid for. The service never sees card data: a provider either decides itself
// (manual: an admin approves upgrades) or hands the customer to a payment processor's hosted checkout and
// learns the outcome from its signed webhook (POST /billing/webhook, see webhook.ts).
import type { DirectoryDb } from "../platform/data/db";
import type { Plan } from "../config";
import { applyPlanChange, findPendingChange, requestPlanChange, type PlanChangeRow } from "./plan-changes";
import { isUpgrade } from "./plans";

export type PlanChangeOutcome = {
  /** applied: the plan changed now; pending: waiting for an admin or the processor's webhook. */
  status: "applied" | "pending";
  planChange: PlanChangeRow;
  message: string;
  /** A processor's hosted checkout page, when the customer must go there to pay. */
  checkoutUrl?: string;
};

export interface PaymentProvider {
  readonly name: string;
  changePlan(db: DirectoryDb, env: Env, req: { userId: string; fromPlan: Plan; toPlan: Plan }): Promise<PlanChangeOutcome>;
}

/**
 * For deployments without a payment processor: upgrades wait as pending requests that an admin approves
 * (POST /admin/plan-changes/:id/approve) once paid for by whatever means; downgrades cost nothing and apply
 * at once.
 */
export const manualProvider: PaymentProvider = {
  name: "manual",
  async changePlan(db, env, { userId, fromPlan, toPlan }) {
    if (!isUpgrade(fromPlan, toPlan)) {
      const planChange = await applyPlanChange(db, env, { userId, fromPlan, toPlan, provider: "manual", decidedBy: userId });
      return { status: "applied", planChange, message: `Your plan is now ${toPlan}` };
    }
    const pending = await findPendingChange(db, userId);
    // Asking twice for the same upgrade keeps the first request (and its place in the admins' list).
    const planChange =
      pending && pending.toPlan === toPlan && pending.provider === "manual"
        ? pending
        : await requestPlanChange(db, { userId, fromPlan, toPlan, provider: "manual" });
    return {
      status: "pending",
      planChange,
      message: `Your request to move to the ${toPlan} plan is waiting for approval by an administrator`,
    };
  },
};

const PROVIDERS: Record<string, PaymentProvider> = { manual: manualProvider };

/** The provider of this deployment. Only "manual" ships; a processor integration registers here. */
export function paymentProvider(_env: Env): PaymentProvider {
  return PROVIDERS.manual;
}
