// Web-app session: the browser holds `__Host-session` (HttpOnly, Secure, SameSite=Strict, Path=/) =
// "<access JWT>~<refresh token>". Each page request uses the access token while it is valid and rotates
// the pair through refreshSession() when it is not (re-setting the cookie). The session is resolved once per
// page request (context.ts); its principal is lent to that request's in-process API calls (api.ts).
import type { Context } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import type { AppEnv } from "../../platform/http/env";
import { jwtConfig } from "../../platform/http/env";
import { verifyToken } from "../../platform/crypto/jwt";
import { refreshSession, type SessionBody } from "../../auth/sessions";
import { SESSION } from "../../config/auth";
import { timingSafeEqual } from "../../platform/crypto/crypto";
import { findSession } from "../../auth/principal-records";
import { sessionState } from "../../auth/principal";
import { clientIp } from "../../platform/http/client-ip";
import type { Principal } from "../../platform/http/env";
import { config } from "../../config/env";

export const SESSION_COOKIE = "__Host-session";
/** A companion of the session cookie that scripts may read ("1", no secret): the public pages, cached for
 *  everyone, draw the signed-out header, and the script (client/nav-state.ts) swaps it when this says signed in.
 *  Set and cleared with the session cookie; a session ended elsewhere leaves it until the next app page clears it. */
export const SIGNED_IN_HINT = "__Host-signed-in";

export type PageSession = { access: string; sessionId: string; userId: string; principal: Principal };

export function setSessionCookie(c: Context<AppEnv>, s: Pick<SessionBody, "access_token" | "refresh_token">) {
  setCookie(c, SESSION_COOKIE, `${s.access_token}~${s.refresh_token}`, {
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    path: "/",
    maxAge: SESSION.refreshTokenSeconds,
  });
  setCookie(c, SIGNED_IN_HINT, "1", { secure: true, sameSite: "Lax", path: "/", maxAge: SESSION.refreshTokenSeconds });
}

export function clearSessionCookie(c: Context<AppEnv>) {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true });
  deleteCookie(c, SIGNED_IN_HINT, { path: "/", secure: true });
}

/** The signed-in session of this request, rotating the token pair when the access token is (nearly) expired. */
export async function pageSession(c: Context<AppEnv>): Promise<PageSession | null> {
  const raw = getCookie(c, SESSION_COOKIE);
  if (!raw) return null;
  const [access, refresh] = raw.split("~");
  if (!access || !refresh) return null;
  const claims = await verifyToken(jwtConfig(c.env), access);
  // 60 s of margin so a token handed to a client script stays valid for its next calls.
  if (claims?.typ === "access" && claims.sid && claims.exp * 1000 - Date.now() > 60_000) {
    // The JWT alone outlives a logout or account deletion: check the session row too.
    const found = await findSession(c.env, c.get("dbs").directory(), c.executionCtx, claims.sub, claims.sid);
    if (sessionState(found) !== "live") {
      clearSessionCookie(c);
      return null;
    }
    return { access, sessionId: claims.sid, userId: claims.sub, principal: { kind: "session", ip: clientIp(c.req.raw), user: found!.user.authUser, sessionId: claims.sid } };
  }
  try {
    const next = await refreshSession(c.get("dbs").directory(), c.env, refresh);
    setSessionCookie(c, next);
    const fresh = await verifyToken(jwtConfig(c.env), next.access_token);
    if (!fresh?.sid) return null;
    const found = await findSession(c.env, c.get("dbs").directory(), c.executionCtx, fresh.sub, fresh.sid);
    if (sessionState(found) !== "live") return null;
    const principal: Principal = { kind: "session", ip: clientIp(c.req.raw), user: found!.user.authUser, sessionId: fresh.sid };
    return { access: next.access_token, sessionId: fresh.sid, userId: fresh.sub, principal };
  } catch {
    clearSessionCookie(c);
    return null;
  }
}

// CSRF: an HMAC of the session id under JWT_SECRET, in a hidden field of every state-changing form.
async function hmac(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text)));
  let s = "";
  for (const b of sig) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function csrfToken(env: Env, sessionId: string): Promise<string> {
  return hmac(config(env).jwt.secret, `csrf:${sessionId}`);
}

export async function csrfValid(env: Env, sessionId: string, presented: unknown): Promise<boolean> {
  if (typeof presented !== "string" || presented.length === 0) return false;
  const expected = await csrfToken(env, sessionId);
  const enc = new TextEncoder();
  return timingSafeEqual(enc.encode(expected), enc.encode(presented));
}

