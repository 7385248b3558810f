// Test helpers: call the worker through its real fetch handler (exports.default) and build users/keys.
import { exports } from "cloudflare:workers";

export const BASE = "http://localhost:8787/api/v1";

export type CallOptions = {
  method?: string;
  body?: unknown;
  raw?: BodyInit;
  token?: string;
  headers?: Record<string, string>;
  ip?: string;
};

export type Reply<T = any> = { status: number; headers: Headers; body: T; text: string };

export async function call<T = any>(path: string, opts: CallOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.ip) headers["cf-connecting-ip"] = opts.ip;
  let body: BodyInit | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const url = path.startsWith("http") ? path : BASE + path;
  const res = await exports.default.fetch(url, { method: opts.method ?? (body ? "POST" : "GET"), headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

let counter = 0;
export function uniqueEmail(tag = "user") {
  counter += 1;
  return `${tag}-${counter}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}
export function uniqueUsername(tag = "u") {
  return `${tag}${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
}

export const PASSWORD = "correct horse battery staple";

export type TestUser = { id: string; email: string; password: string; access: string; refresh: string };

export async function signup(overrides: Record<string, unknown> = {}): Promise<TestUser> {
  const email = (overrides.email as string) ?? uniqueEmail();
  const res = await call("/auth/signup", {
    body: { email, password: PASSWORD, username: uniqueUsername(), ageConfirmed: true, ...overrides },
  });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return {
    id: res.body.user.id,
    email,
    password: (overrides.password as string) ?? PASSWORD,
    access: res.body.session.access_token,
    refresh: res.body.session.refresh_token,
  };
}

export async function latestToken(email: string): Promise<string> {
  const res = await call(`/dev/outbox?to=${encodeURIComponent(email)}`);
  const text: string = res.body.messages[0].text;
  const m = /verification token: (\S+)/.exec(text);
  if (!m) throw new Error("no token in mail");
  return m[1];
}

export async function verifiedUser(overrides: Record<string, unknown> = {}): Promise<TestUser> {
  const user = await signup(overrides);
  const res = await call("/auth/verify-email", { body: { token: await latestToken(user.email) } });
  if (res.status !== 200) throw new Error(`verify failed: ${res.status} ${res.text}`);
  return user;
}

export async function createKey(user: TestUser, body: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const res = await call("/keys", { token: user.access, body: { name: "test key", ...body } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return { id: res.body.id, key: res.body.key };
}

/** The contract's error body, asserted loosely: `{ error, message, details }`. */
export function isErrorBody(body: any): boolean {
  return typeof body?.error === "string" && typeof body?.message === "string" && typeof body?.details === "object";
}
