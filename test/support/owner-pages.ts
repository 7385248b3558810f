// The owner's pages as a browser gets them (through the worker's fetch, with `vars` replacing the worker's vars:
// {image_url} on another host, say), and the image addresses a page names.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../../src/index";
import { PASSWORD, call, uniqueEmail, uniqueUsername } from "./api";
import { SITE, csrfOf, type Page } from "./pages";
import { OWNER_SIG } from "../../src/serving/signed-links";

/** Production's layout: the image and CDN links on hosts of their own, which the site's cookie never reaches. */
export const OTHER_HOSTS: Partial<Env> = { IMAGE_URL: "http://images.example.test", CDN_URL: "http://cdn.example.test" };

export async function sitePage(path: string, opts: { cookie?: string; vars?: Partial<Env>; form?: Record<string, string> } = {}): Promise<Page> {
  const headers: Record<string, string> = { origin: SITE };
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: string | undefined;
  if (opts.form) {
    body = new URLSearchParams(opts.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  const ctx = createExecutionContext();
  const request = new Request(`${SITE}${path}`, { method: body ? "POST" : "GET", headers, body, redirect: "manual" }) as Request<unknown, IncomingRequestCfProperties>;
  const res = await worker.fetch(request, { ...env, ...opts.vars }, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, text };
}

export type PageUser = { cookie: string; token: string; id: string; csrf: string };

/** A signed-up account as the browser holds it: the session cookie, its form token, and a Bearer token. */
export async function pageUser(tag = "own"): Promise<PageUser> {
  const res = await sitePage("/app/signup", { form: { email: uniqueEmail(tag), username: uniqueUsername(tag.slice(0, 1)), password: PASSWORD } });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-session="))!.split(";")[0];
  const token = await tokenOf(cookie);
  const me = await call("/account", { token });
  const id = (me.body.user ?? me.body).id as string;
  const csrf = csrfOf((await sitePage("/app/account", { cookie })).text);
  return { cookie, token, id, csrf };
}

async function tokenOf(cookie: string): Promise<string> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${SITE}/app/token`, { headers: { cookie, "x-requested-with": "imghost" } }) as Request<unknown, IncomingRequestCfProperties>, env, ctx);
  await waitOnExecutionContext(ctx);
  return ((await res.json()) as { access_token: string }).access_token;
}

const unescape = (s: string) => s.replace(/&amp;/g, "&");

/** Every address the page's <img> elements name (src and each srcset candidate), and its <a href>s to images. */
export function imageUrls(html: string, imageBase: string): string[] {
  const out: string[] = [];
  for (const [tag] of html.matchAll(/<img\b[^>]*>/g)) {
    const src = /\ssrc="([^"]*)"/.exec(tag)?.[1];
    const srcset = /\ssrcset="([^"]*)"/.exec(tag)?.[1];
    if (src) out.push(unescape(src));
    if (srcset) for (const part of srcset.split(",")) out.push(unescape(part.trim().split(/\s+/)[0]));
  }
  for (const [, href] of html.matchAll(/<a\b[^>]*\shref="([^"]*)"/g)) if (href.startsWith(imageBase)) out.push(unescape(href));
  return out;
}

/** The owner links among them of one file: each on {image_url}, signed, valid for an hour at least. */
export function ownerLinksOf(html: string, imageBase: string, fileId: string): string[] {
  const urls = imageUrls(html, imageBase).filter((u) => u.includes(fileId));
  for (const u of urls) {
    expect(u.startsWith(`${imageBase}/${fileId}`), u).toBe(true);
    const q = new URL(u).searchParams;
    expect(q.get(OWNER_SIG), u).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Number(q.get("exp")) - Date.now() / 1000, u).toBeGreaterThan(3500);
  }
  return urls;
}
