// Resolves the Authorization header to a Principal. The only place credentials are checked.
import { createMiddleware } from "hono/factory";
import type { AppEnv, Principal } from "../env";
import { jwtConfig } from "../env";
import { ApiError, unauthorized } from "../platform/errors";
import { looksLikeJwt, verifyToken } from "../platform/jwt";
import { findSessionUser } from "../auth/queries";
import { authenticateApiKey } from "../keys/keys";

export function clientIp(req: Request): string {
  return req.headers.get("cf-connecting-ip") ?? "127.0.0.1";
}

const invalidSession = () => unauthorized("Invalid or expired access token", "invalid_token");

export const authenticate = () =>
  createMiddleware<AppEnv>(async (c, next) => {
    c.set("principal", await resolvePrincipal(c.req.raw, c.env, c.get("db"), c.executionCtx));
    await next();
  });

async function resolvePrincipal(
  req: Request,
  env: Env,
  db: AppEnv["Variables"]["db"],
  ctx: { waitUntil(promise: Promise<unknown>): void },
): Promise<Principal> {
  const ip = clientIp(req);
  const header = req.headers.get("authorization");
  if (header === null) return { kind: "anonymous", ip };

  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized("The Authorization header must be 'Bearer <token>'", "invalid_authorization_header");
  const token = match[1];

  // Anything that is not shaped like a JWT is taken as an API key attempt, so near-miss keys get
  // the contract's "Invalid API key" rather than a generic token error.
  if (!looksLikeJwt(token)) {
    const key = await authenticateApiKey(db, token, ctx);
    return { kind: "key", ip, user: key.user, keyId: key.keyId, permissions: key.permissions };
  }

  const claims = await verifyToken(jwtConfig(env), token);
  if (!claims) throw invalidSession();
  if (claims.typ === "upload") {
    if (!claims.fid) throw invalidSession();
    return { kind: "upload", ip, fileId: claims.fid };
  }
  if (!claims.sid) throw invalidSession();
  const found = await findSessionUser(db, claims.sub, claims.sid);
  if (!found || found.session.revokedAt || found.session.expiresAt.getTime() <= Date.now() || found.user.deletedAt) {
    throw invalidSession();
  }
  if (found.user.bannedAt) throw new ApiError(401, "This account has been suspended", { code: "account_banned" });
  return { kind: "session", ip, user: found.authUser, sessionId: claims.sid };
}
