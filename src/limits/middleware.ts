// The per-request rate limit, decided in the isolate from tickets leased from the subject's RateLimiter
// Durable Object (./leases.ts): a hot subject's requests do not wait for the object. It runs right after the auth
// middleware (it needs the principal); a request whose credentials were refused never gets that far, so
// `rateLimitFailedAuth()` (before auth) counts those against the caller's IP as anonymous calls.
import { createMiddleware } from "hono/factory";
import type { Context } from "hono";
import type { AppEnv } from "../platform/http/env";
import { clientIp } from "../platform/http/client-ip";
import { setAnswerHeaders } from "../platform/http/answer-headers";
import { RateLimitError } from "../platform/errors/errors";
import { limiterFor, type LimitState } from "./rate-limiter";
import { leases, type LeaseSource, type WaitUntil } from "./leases";
import { bucketsFor, multiplierOf, subjectOf } from "./policy";
import type { RouteMatcher } from "../platform/http/route-traits";

/**
 * What the limiter answered for this request; GET /account/limits reads it instead of asking again.
 * `uploads` is missing when this isolate has not heard about that bucket in this window.
 */
export type RequestLimits = { api: LimitState; uploads?: LimitState };

declare module "hono" {
  interface ContextVariableMap {
    rateLimits?: RequestLimits;
  }
}

/** `routes.exempt`: the routes outside the per-caller limits (RATE_LIMIT_EXEMPT). The payment processor delivers
 *  every customer's events from a few addresses; refusing them would lose billing events, and unsigned ones cost
 *  one HMAC to refuse. They are neither counted nor refused, but their answers still carry the X-RateLimit-*
 *  headers of the caller's API bucket, as every response does (describeExempt). `routes.startsUpload`: the
 *  requests that also consume the uploads bucket (STARTS_UPLOAD: they create a file record and reserve storage). */
export const rateLimit = (routes: { exempt: RouteMatcher; startsUpload: RouteMatcher }) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const multiplier = multiplierOf(c.env);
    if (multiplier === "off") return next();
    if (routes.exempt(c.req.method, c.req.path)) {
      await next();
      return describeExempt(c, subjectOf(c.get("principal")), multiplier);
    }
    const { subject, plan } = subjectOf(c.get("principal"));
    const limits = await countRequest(c, subject, plan, multiplier, routes.startsUpload(c.req.method, c.req.path));
    c.set("rateLimits", limits.state);
    if (!limits.allowed) throw tooManyRequests(limits.refusedBy);
    await next();
    setHeaders(c, limits.shown);
  });

/** Before auth: a request refused with 401 is still an API call, counted against the caller's IP (`exempt`: as rateLimit's). */
export const rateLimitFailedAuth = (exempt: RouteMatcher) =>
  createMiddleware<AppEnv>(async (c, next) => {
    await next();
    const multiplier = multiplierOf(c.env);
    // The principal is set exactly when authentication succeeded; then rateLimit() has done the work.
    if (c.get("principal") || multiplier === "off") return;
    if (exempt(c.req.method, c.req.path)) return describeExempt(c, { subject: `ip:${clientIp(c.req.raw)}`, plan: "anonymous" }, multiplier);
    const limits = await countRequest(c, `ip:${clientIp(c.req.raw)}`, "anonymous", multiplier, false);
    if (!limits.allowed) {
      const err = tooManyRequests(limits.refusedBy);
      c.res = new Response(JSON.stringify(err.body()), { status: 429, headers: { "content-type": "application/json" } });
      c.res.headers.set("Retry-After", String(err.retryAfter));
    }
    setHeaders(c, limits.shown);
  });

async function countRequest(c: Context<AppEnv>, subject: string, plan: Parameters<typeof bucketsFor>[0], multiplier: number, upload: boolean) {
  const buckets = bucketsFor(plan, multiplier);
  // The stub is made only when a lease is needed: most requests never reach the object.
  const source: LeaseSource = { lease: (requests) => limiterFor(c.env, subject).lease(requests) };
  // Uploads count against both buckets at once; elsewhere only the API bucket is counted.
  const res = upload
    ? await leases.countUploadStart(source, subject, buckets.api, buckets.uploads)
    : await leases.countCall(source, subject, buckets.api, buckets.uploads, waitUntilOf(c));
  const state: RequestLimits = { api: res.api, uploads: res.uploads };
  // Headers describe the uploads bucket on upload endpoints and the API bucket elsewhere; a 429 describes
  // the bucket that refused it, so Retry-After and X-RateLimit-Reset agree.
  const refusedBy = res.refusedBy ?? res.api;
  const shown = !res.allowed ? refusedBy : upload && res.uploads ? res.uploads : res.api;
  return { allowed: res.allowed, state, refusedBy, shown };
}

/**
 * Headers of an exempt route's answer: the caller's API bucket as it stands, not counted (decisions.md: the API bucket
 * everywhere but upload starts); free if known in this isolate, else one object call (need 0) after the answer is
 * made. A failing limiter leaves the answer without the headers: a billing event must not be lost for them.
 */
async function describeExempt(c: Context<AppEnv>, who: ReturnType<typeof subjectOf>, multiplier: number) {
  const { api } = bucketsFor(who.plan, multiplier);
  const source: LeaseSource = { lease: (requests) => limiterFor(c.env, who.subject).lease(requests) };
  try {
    const [state] = await leases.lookUp(source, who.subject, [api]);
    setHeaders(c, state);
  } catch (err) {
    console.error("rate limit headers of an exempt route: the limiter did not answer", err);
  }
}

function waitUntilOf(c: Context<AppEnv>): WaitUntil | undefined {
  try {
    const ctx = c.executionCtx;
    return (work) => ctx.waitUntil(work);
  } catch {
    return undefined; // no execution context (e.g. app.request() in a test): leases are taken in line
  }
}

function tooManyRequests(state: LimitState): RateLimitError {
  const retryAfter = Math.max(1, state.reset - Math.floor(Date.now() / 1000));
  return new RateLimitError(retryAfter, state.limit, state.reset);
}

function setHeaders(c: Context<AppEnv>, s: LimitState) {
  // A more specific limit (e.g. login attempts) may already have described itself on its own 429.
  if (c.res.headers.has("X-RateLimit-Limit")) return;
  setAnswerHeaders(c, [
    ["X-RateLimit-Limit", String(s.limit)],
    ["X-RateLimit-Remaining", String(s.remaining)],
    ["X-RateLimit-Reset", String(s.reset)],
  ]);
}
