// Who may call a route. Routes list their guard in defineRoute({ middleware }) so it is visible beside them.
import { createMiddleware } from "hono/factory";
import type { AppEnv, AuthUser, Permission, Principal } from "../platform/http/env";
import type { Role } from "../config";
import { ApiError, unauthorized } from "../platform/errors/errors";
import type { ErrorCode } from "../platform/errors/error-codes";
import { refusing } from "../platform/http/route-errors";

export const API_KEY_SCOPE_MESSAGE =
  "API keys can only access /upload, /files, /albums, /search and POST /moderation/report; sign in for this endpoint";

const apiKeyRefused = () => new ApiError("api_key_not_allowed", API_KEY_SCOPE_MESSAGE);

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
