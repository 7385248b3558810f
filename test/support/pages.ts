// Helpers for the web-app page tests: requests to {site_url} through the worker's fetch handler, with the
// session cookie and url-encoded form posts a browser would send.
import { exports } from "cloudflare:workers";
import { expect } from "vitest";

export const SITE = "http://localhost:8787";

export type Page = { status: number; headers: Headers; text: string };

export type PageOptions = {
  method?: string;
  cookie?: string;
  form?: Record<string, string | string[]>;
  /** The Origin header; omitted when undefined (some tests check what happens without one). */
  origin?: string;
  headers?: Record<string, string>;
};

export async function page(path: string, opts: PageOptions = {}): Promise<Page> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.cookie) headers.cookie = opts.cookie;
  let body: string | undefined;
  if (opts.form) {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.form)) for (const one of ([] as string[]).concat(v)) p.append(k, one);
    body = p.toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  if (opts.origin) headers.origin = opts.origin;
  const res = await exports.default.fetch(`${SITE}${path}`, { method: opts.method ?? (body ? "POST" : "GET"), headers, body, redirect: "manual" });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The `name=value` of the __Host-session cookie a response sets. */
export function sessionCookie(res: Page): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith("__Host-session="));
  expect(set).toBeTruthy();
  return set!.split(";")[0];
}

export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
