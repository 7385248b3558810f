// Who is calling: the Authorization header resolved to a Principal. The one place credentials are checked:
// the API's authenticate() middleware, byte serving and the pages all come here, and the one rule for
// "this session is still live" is here too.
import type { ExecutionContext } from "hono";
import type { Principal } from "../platform/http/env";
import { jwtConfig } from "../platform/http/env";
import type { DirectoryDb } from "../platform/data/db";
import { ApiError } from "../platform/errors/errors";
import { clientIp } from "../platform/http/client-ip";
import { looksLikeJwt, verifyToken } from "../platform/crypto/jwt";
import { authenticateApiKey } from "./api-keys";
import { findSession, findSessionAtPrimary, type FoundSession } from "./principal-records";

/**
 * The liveness rule for a session behind a valid JWT: the row exists, is neither revoked nor expired, and its
 * user is neither deleted nor banned (a signature alone outlives a logout, a deletion or a ban).
 */
export function sessionState(found: FoundSession | undefined, now = Date.now()): "live" | "ended" | "banned" {
  if (!found || found.session.revokedAt || found.session.expiresAt.getTime() <= now || found.user.deletedAt) return "ended";
  return found.user.bannedAt ? "banned" : "live";
}

const invalidSession = () => new ApiError("invalid_token", "Invalid or expired access token");

type WaitUntil = { waitUntil(promise: Promise<unknown>): void };
const noWaiting: WaitUntil = { waitUntil: () => {} };

/**
 * The session behind a verified access token, if it is live: from the edge-cached principal records when
 * they are warm (no D1 query), else from `db`. Throws the contract's 401/403 otherwise.
 */
export async function liveSession(env: Env, db: DirectoryDb, userId: string, sessionId: string, ctx: WaitUntil = noWaiting): Promise<FoundSession> {
  return live(await findSession(env, db, ctx, userId, sessionId));
}

/**
 * The same rule, decided at D1's primary, for changes a stale record must not allow: a session revoked a moment
 * ago may still read as live from a record in another data centre (for up to ACCESS_RECORD_SECONDS), and must
 * not, say, put a second factor of its own on the account in that time (auth/mfa-routes.ts).
 */
export async function liveSessionAtPrimary(env: Env, userId: string, sessionId: string): Promise<FoundSession> {
  return live(await findSessionAtPrimary(env, userId, sessionId));
}

function live(found: FoundSession | undefined): FoundSession {
  const state = sessionState(found);
  if (state === "ended") throw invalidSession();
  if (state === "banned") throw new ApiError("account_banned", "This account has been suspended");
  return found!;
}

// In-process API requests from the pages carry the principal the page already resolved for this page request,
// so a page with three API calls checks its session once. It rides on the call's execution context, an object
// only this worker's code makes (a request from the network gets workerd's own): a header could be forged by a
// stranger, and a table keyed by request would need emptying after calls that fail before reading it.
class LendingContext implements ExecutionContext {
  constructor(
    private readonly inner: ExecutionContext,
    readonly principal: Principal,
  ) {}
  get props() {
    return this.inner.props;
  }
  get exports() {
    return this.inner.exports;
  }
  waitUntil = (promise: Promise<unknown>) => this.inner.waitUntil(promise);
  passThroughOnException = () => this.inner.passThroughOnException();
}

/** The execution context of an in-process API request that lends it an already-resolved principal. */
export function lendPrincipal(ctx: ExecutionContext, principal: Principal): ExecutionContext {
  return new LendingContext(ctx, principal);
}

/** The request's principal; throws the contract's 401 for credentials that are present but not good. */
/** `directory`: the request's handle, asked for only when a credential must be looked up (an anonymous call opens no session). */
export async function resolvePrincipal(env: Env, directory: () => DirectoryDb, req: Request, ctx?: WaitUntil): Promise<Principal> {
  if (ctx instanceof LendingContext) return ctx.principal;
  const ip = clientIp(req);
  const header = req.headers.get("authorization");
  if (header === null) return { kind: "anonymous", ip };

  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError("invalid_authorization_header", "The Authorization header must be 'Bearer <token>'");
  const token = match[1];

  // Anything that is not shaped like a JWT is taken as an API key attempt, so near-miss keys get
  // the contract's "Invalid API key" rather than a generic token error.
  if (!looksLikeJwt(token)) {
    const key = await authenticateApiKey(env, directory(), token, ctx ?? noWaiting);
    return { kind: "key", ip, user: key.user, keyId: key.keyId, permissions: key.permissions };
  }

  const claims = await verifyToken(jwtConfig(env), token);
  if (!claims) throw invalidSession();
  if (claims.typ === "upload") {
    if (!claims.fid) throw invalidSession();
    return { kind: "upload", ip, fileId: claims.fid };
  }
  if (!claims.sid) throw invalidSession();
  const found = await liveSession(env, directory(), claims.sub, claims.sid, ctx);
  return { kind: "session", ip, user: found.user.authUser, sessionId: claims.sid };
}
