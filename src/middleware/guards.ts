// Who may call a route. Routes list their guard in defineRoute({ middleware }) so it is visible beside them.
import { createMiddleware } from "hono/factory";
import type { AppEnv, AuthUser, Permission, Principal } from "../platform/http/env";
import type { Role } from "../config";
import { ApiError, unauthorized } from "../platform/errors/errors";
import type { ErrorCode } from "../platform/errors/error-codes";
import { refusing } from "../platform/http/route-errors";

/** What API keys may call, in the words of the contract's message (api-v1.md: "API keys can only access"). */
// Set once by the app from its routes (describeKeyScope), before any request.
let keysMayAccess = "the routes that accept them";
const apiKeyRefused = () => new ApiError("api_key_not_allowed", `API keys can only access ${keysMayAccess}; sign in for this endpoint`);

/** Whether `handler` (one of a route's handlers, as Hono lists them) is a guard that refuses every API key. */
export const refusesApiKeys = (handler: unknown): boolean =>
  typeof handler === "function" && ((handler as { refuses?: readonly ErrorCode[] }).refuses ?? []).includes("api_key_not_allowed");

/**
 * Names the routes API keys may call in the refusal's message, from the routes themselves (their guards): a
 * path prefix all of whose routes accept keys ("/files"), else each route that does ("POST /moderation/report").
 */
export function describeKeyScope(routes: { method: string; path: string; refusesKeys: boolean }[]): string {
  const byPrefix = new Map<string, { all: number; keyed: string[] }>();
  for (const r of routes) {
    const prefix = `/${r.path.split("/")[1]}`;
    const entry = byPrefix.get(prefix) ?? { all: 0, keyed: [] };
    entry.all++;
    if (!r.refusesKeys) entry.keyed.push(`${r.method} ${r.path}`);
    byPrefix.set(prefix, entry);
  }
  const named = [...byPrefix].flatMap(([prefix, { all, keyed }]) => (keyed.length === all ? [prefix] : keyed));
  keysMayAccess = named.length > 1 ? `${named.slice(0, -1).join(", ")} and ${named[named.length - 1]}` : (named[0] ?? "nothing");
  return keysMayAccess;
}

/** A guard, marked with the codes it refuses with: a route listing it answers them (platform/http/route-errors.ts). */
const guard = (codes: readonly ErrorCode[], check: Parameters<typeof createMiddleware<AppEnv>>[0]) => refusing(codes, createMiddleware<AppEnv>(check));

/** Anonymous callers welcome, API keys refused (signup, login, verify-email). */
export const noApiKey = () =>
  guard(["api_key_not_allowed"], async (c, next) => {
    if (c.get("principal").kind === "key") throw apiKeyRefused();
    await next();
  });

/** Session-only endpoints: an API key gets 403, no credentials get 401. */
export const sessionOnly = () =>
  guard(["api_key_not_allowed", "unauthorized"], async (c, next) => {
    const p = c.get("principal");
    if (p.kind === "key") throw apiKeyRefused();
    if (p.kind !== "session") throw unauthorized();
    await next();
  });

export const missingPermission = (permission: Permission) =>
  new ApiError("missing_permission", `This API key lacks the '${permission}' permission`, { permission });

/** A signed-in user (session) or an API key holding `permission`. */
export const requirePermission = (permission: Permission) =>
  guard(["unauthorized", "missing_permission"], async (c, next) => {
    const p = c.get("principal");
    if (p.kind === "anonymous" || p.kind === "upload") throw unauthorized();
    if (p.kind === "key" && !p.permissions.includes(permission)) throw missingPermission(permission);
    await next();
  });

/** Any signed-in caller: a session, or an API key whatever its permissions (GET /account/limits). */
export const signedIn = () =>
  guard(["unauthorized"], async (c, next) => {
    const p = c.get("principal");
    if (p.kind !== "session" && p.kind !== "key") throw unauthorized();
    await next();
  });

/**
 * Public reads (GET /files/:id, GET /albums/:id): anonymous callers pass (what they may see is decided by
 * the resource's visibility), an API key must hold `permission`.
 */
export const optionalPermission = (permission: Permission) =>
  guard(["missing_permission"], async (c, next) => {
    const p = c.get("principal");
    if (p.kind === "key" && !p.permissions.includes(permission)) throw missingPermission(permission);
    await next();
  });

/** Session-only and one of `roles` (moderation, admin). */
export const requireRole = (...roles: Role[]) =>
  guard(["api_key_not_allowed", "unauthorized", "insufficient_role"], async (c, next) => {
    const p = c.get("principal");
    if (p.kind === "key") throw apiKeyRefused();
    if (p.kind !== "session") throw unauthorized();
    if (!roles.includes(p.user.role)) throw new ApiError("insufficient_role", "Your role does not allow this");
    await next();
  });

/** The user behind a session or key principal; guards have already refused everyone else. */
export function callerUser(p: Principal): AuthUser {
  if (p.kind === "session" || p.kind === "key") return p.user;
  throw unauthorized();
}

export function sessionPrincipal(p: Principal): Extract<Principal, { kind: "session" }> {
  if (p.kind !== "session") throw unauthorized();
  return p;
}
