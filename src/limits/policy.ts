// Who is counted where, and how much they may do: the subject of a principal, its plan and the limits of
// its two hourly buckets (decisions.md § Rate limits).
import { PLAN_LIMITS, type PlanOrAnonymous } from "../config";
import type { Principal } from "../platform/http/env";
import type { BucketSpec } from "./rate-limiter";
import { config } from "../config/env";

export const WINDOW_SECONDS = 3600;
export const API_BUCKET = "api";
export const UPLOAD_BUCKET = "uploads";

/** A user is one subject whichever credential they use (session or any key); anyone else is their IP. */
export function subjectOf(p: Principal): { subject: string; plan: PlanOrAnonymous } {
  if (p.kind === "session" || p.kind === "key") return { subject: `user:${p.user.id}`, plan: p.user.plan };
  return { subject: `ip:${p.ip}`, plan: "anonymous" };
}

/**
 * RATE_LIMIT_MULTIPLIER scales every limit (default 1; load tests raise it). "off" disables limiting
 * altogether (benchmarks measure the limiter's cost against it).
 */
export const multiplierOf = (env: Env): number | "off" => config(env).rateLimitMultiplier;

export function bucketsFor(plan: PlanOrAnonymous, multiplier: number): { api: BucketSpec; uploads: BucketSpec } {
  const base = PLAN_LIMITS[plan];
  const scale = (n: number) => Math.max(1, Math.floor(n * multiplier));
  return {
    api: { name: API_BUCKET, limit: scale(base.apiCallsPerHour), windowSeconds: WINDOW_SECONDS },
    uploads: { name: UPLOAD_BUCKET, limit: scale(base.uploadsPerHour), windowSeconds: WINDOW_SECONDS },
  };
}
