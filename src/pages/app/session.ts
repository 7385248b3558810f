// Web-app session: the browser holds `__Host-session` (HttpOnly, Secure, SameSite=Strict, Path=/) =
// "<access JWT>~<refresh token>". Each page request uses the access token while it is valid and rotates
// the pair through refreshSession() when it is not (re-setting the cookie). Pages talk to the JSON API
// in-process (apiCall) with that access token as Bearer, so the API's validation, guards and errors apply.
import type { Context } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import type { AppEnv } from "../../env";
import { jwtConfig } from "../../env";
import { verifyToken } from "../../platform/jwt";
import { refreshSession, type SessionBody } from "../../auth/sessions";
import { SESSION } from "../../config";
import { timingSafeEqual } from "../../platform/crypto";
import { findSessionUser } from "../../auth/queries";
import { sessionState } from "../../auth/principal";
import { BOOKMARK_HEADER } from "../../middleware/db";

export const SESSION_COOKIE = "__Host-session";

export type PageSession = { access: string; sessionId: string; userId: string };

export function setSessionCookie(c: Context<AppEnv>, s: Pick<SessionBody, "access_token" | "refresh_token">) {
  setCookie(c, SESSION_COOKIE, `${s.access_token}~${s.refresh_token}`, {
    httpOnly: true,
    secure: true,
    sameSite: "Strict",
    path: "/",
    maxAge: SESSION.refreshTokenSeconds,
  });
}

export function clearSessionCookie(c: Context<AppEnv>) {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: true });
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
    const found = await findSessionUser(c.get("db"), claims.sub, claims.sid);
    if (sessionState(found) !== "live") {
      clearSessionCookie(c);
      return null;
    }
    return { access, sessionId: claims.sid, userId: claims.sub };
  }
  try {
    const next = await refreshSession(c.get("db"), c.env, refresh);
    setSessionCookie(c, next);
    const fresh = await verifyToken(jwtConfig(c.env), next.access_token);
    if (!fresh?.sid) return null;
    return { access: next.access_token, sessionId: fresh.sid, userId: fresh.sub };
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
  return hmac(env.JWT_SECRET, `csrf:${sessionId}`);
}

export async function csrfValid(env: Env, sessionId: string, presented: unknown): Promise<boolean> {
  if (typeof presented !== "string" || presented.length === 0) return false;
  const expected = await csrfToken(env, sessionId);
  const enc = new TextEncoder();
  return timingSafeEqual(enc.encode(expected), enc.encode(presented));
}

/** Cross-site form posts carry a foreign Origin: refuse them before anything else (login CSRF included). */
export function sameOrigin(c: Context<AppEnv>): boolean {
  const origin = c.req.header("origin");
  if (!origin) return true; // old browsers / non-browser clients; the SameSite cookie and CSRF token still apply
  return origin === new URL(c.req.url).origin;
}

/** The app's own fetch, lent to the pages by siteRoutes() (so pages import nothing from app.ts). */
export type InProcessApi = (req: Request, env: Env, ctx: Context<AppEnv>["executionCtx"]) => Response | Promise<Response>;

declare module "hono" {
  interface ContextVariableMap {
    inProcessApi: InProcessApi;
  }
}

export type ApiResult<T = any> = { status: number; ok: boolean; body: T; headers: Headers };

/** What an in-process API call inherits from the page request: the client's IP, and the page's D1 bookmark
 *  (the API then reads at least as fresh as the page did, so a page sees what it just wrote). */
function forwardContext(c: Context<AppEnv>, headers: Headers) {
  const ip = c.req.header("cf-connecting-ip");
  if (ip) headers.set("cf-connecting-ip", ip);
  const bookmark = c.get("dbSession")?.getBookmark();
  if (bookmark) headers.set(BOOKMARK_HEADER, bookmark);
}

/** Calls the API in-process and hands back its Response unread (for streamed answers such as the export). */
export function apiResponse(c: Context<AppEnv>, method: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<Response> {
  const headers = new Headers();
  if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
  forwardContext(c, headers);
  if (opts.body !== undefined) headers.set("content-type", "application/json");
  const req = new Request(new URL(`/api/v1${path}`, c.req.url), {
    method,
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  return Promise.resolve(c.get("inProcessApi")(req, c.env, c.executionCtx));
}

/** Calls the JSON API in-process with the page session's access token. */
export async function apiCall<T = any>(
  c: Context<AppEnv>,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown } = {},
): Promise<ApiResult<T>> {
  const headers = new Headers();
  if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
  forwardContext(c, headers);
  if (opts.body !== undefined) headers.set("content-type", "application/json");
  const req = new Request(new URL(`/api/v1${path}`, c.req.url), {
    method,
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  const res = await c.get("inProcessApi")(req, c.env, c.executionCtx);
  const type = res.headers.get("content-type") ?? "";
  const body = type.includes("json") ? await res.json() : await res.text();
  return { status: res.status, ok: res.ok, body: body as T, headers: res.headers };
}

export function apiMessage(r: ApiResult): string {
  const b = r.body as { message?: string; error?: string; details?: { fields?: Record<string, string[]> } } | string;
  if (typeof b === "string") return b || `Request failed (${r.status})`;
  if (r.status === 429) return "Too many requests: please wait a moment and try again.";
  return b?.message ?? b?.error ?? `Request failed (${r.status})`;
}

/** A multipart/form-data call to the JSON API in-process (the one-request upload), with a Content-Length. */
export async function apiForm<T = any>(c: Context<AppEnv>, path: string, form: FormData, token: string): Promise<ApiResult<T>> {
  const url = new URL(`/api/v1${path}`, c.req.url);
  const framed = new Request(url, { method: "POST", body: form });
  const bytes = await framed.arrayBuffer();
  const headers = new Headers({
    authorization: `Bearer ${token}`,
    "content-type": framed.headers.get("content-type") ?? "multipart/form-data",
    "content-length": String(bytes.byteLength),
  });
  forwardContext(c, headers);
  const res = await c.get("inProcessApi")(new Request(url, { method: "POST", headers, body: bytes }), c.env, c.executionCtx);
  const type = res.headers.get("content-type") ?? "";
  const body = type.includes("json") ? await res.json() : await res.text();
  return { status: res.status, ok: res.ok, body: body as T, headers: res.headers };
}
