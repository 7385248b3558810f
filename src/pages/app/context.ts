// What every web-app request shares, set up once per request by appContext(): security headers and no-store,
// Hono's csrf() (Origin / Sec-Fetch-Site) on every form post, the page session resolved once (and reused by
// every in-process API call of that request), and the session's HMAC form token checked on state changes.
import { createMiddleware } from "hono/factory";
import { csrf } from "hono/csrf";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { csrfToken, csrfValid, pageSession, type PageSession } from "./session";

declare module "hono" {
  interface ContextVariableMap {
    /** The signed-in session of this page request, or null (resolved once, by appContext). */
    pageSession: PageSession | null;
    /** The form token of that session ("" when signed out). */
    csrf: string;
  }
}
export type PageEnv = AppEnv;
export type PageContext = Context<AppEnv>;
export type Form = Record<string, string | File | (string | File)[]>;
export const str = (f: Form, k: string) => (typeof f[k] === "string" ? (f[k] as string) : "");

const sameOriginPosts = csrf({ origin: (origin, c) => origin === new URL(c.req.url).origin });

/** Mounted once for /app/* and /verify-email. */
export const appContext = (headers: (c: Context<AppEnv>) => void) =>
  createMiddleware<PageEnv>(async (c, next) => {
    headers(c);
    c.header("Cache-Control", "no-store");
    let passed = false;
    try {
      await sameOriginPosts(c, async () => {
        passed = true;
      });
    } catch {
      passed = false;
    }
    if (!passed) return c.text("Cross-site form posts are refused", 403);
    const s = await pageSession(c);
    c.set("pageSession", s);
    c.set("csrf", s ? await csrfToken(c.env, s.sessionId) : "");
    await next();
  });

/** Pages behind a sign-in: without a session, to the login page (and back here afterwards). */
export const requireSession = createMiddleware<PageEnv>(async (c, next) => {
  if (!c.get("pageSession")) {
    if (c.req.method !== "GET") return c.redirect("/app/login", 303);
    return c.redirect(`/app/login?next=${encodeURIComponent(new URL(c.req.url).pathname)}`, 303);
  }
  await next();
});

/** State-changing posts of a signed-in person: the form must carry the session's token, or 403. */
export const requireFormToken = createMiddleware<PageEnv>(async (c, next) => {
  if (c.req.method !== "POST") return next();
  const s = c.get("pageSession");
  if (!s) return c.redirect("/app/login", 303);
  const type = c.req.header("content-type") ?? "";
  let token: unknown;
  try {
    token = type.startsWith("multipart/") ? (await c.req.formData()).get("_csrf") : (await c.req.parseBody())._csrf;
  } catch {
    token = undefined;
  }
  if (!(await csrfValid(c.env, s.sessionId, token))) return c.text("Invalid or missing CSRF token: reload the page and try again", 403);
  await next();
});

/** The signed-in session (only inside requireSession). */
export const session = (c: PageContext): PageSession => c.get("pageSession")!;
