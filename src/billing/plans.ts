// The plan catalogue as customers see it, and the order of plans (an upgrade needs payment, a downgrade not).
import { PLAN_LIMITS, PLANS, type Plan, type PlanOrAnonymous } from "../config";

const NAMES: Record<PlanOrAnonymous, string> = { anonymous: "Anonymous", free: "Free", pro: "Pro", enterprise: "Enterprise" };

export function planRank(plan: Plan): number {
  return PLANS.indexOf(plan);
}

export function isUpgrade(from: Plan, to: Plan): boolean {
  return planRank(to) > planRank(from);
}

export function planResource(id: PlanOrAnonymous) {
  const l = PLAN_LIMITS[id];
  return {
    id,
    name: NAMES[id],
    uploadsPerHour: l.uploadsPerHour,
    apiCallsPerHour: l.apiCallsPerHour,
    maxFileBytes: l.maxFileBytes,
    storageQuotaBytes: l.storageQuotaBytes,
  };
}

export function planCatalogue() {
  return { plans: PLANS.map(planResource), anonymous: planResource("anonymous") };
}
