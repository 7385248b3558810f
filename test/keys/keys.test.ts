// API key management (session-only) and key authentication.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { call, createKey, isErrorBody, signup, verifiedUser } from "../support/api";
import { createDb } from "../../src/platform/data/db";
import { apiKeys } from "../../src/db/schema";
import { sha256Hex } from "../../src/platform/crypto/crypto";
import { BASE58_ALPHABET } from "../../src/platform/formats/base58";

const KEY_RE = /^pk_[1-9A-HJ-NP-Za-km-z]{32}$/;
const db = () => createDb(env.DB);
const keyRow = (id: string) => db().select().from(apiKeys).where(eq(apiKeys.id, id)).get();

/** lastUsedAt is written after the response (waitUntil): poll briefly instead of sleeping long. */
async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  let v = await read();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 20));
    v = await read();
  }
  return v;
}

describe("POST /keys", () => {
  it("creates a key, shown once: pk_ + 32 base58, default permissions read+upload", async () => {
    const user = await verifiedUser();
    const res = await call("/keys", { token: user.access, body: { name: "CI uploader" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["createdAt", "expiresAt", "id", "key", "name", "permissions", "prefix"]);
    expect(res.body.key).toMatch(KEY_RE);
    for (const ch of res.body.key.slice(3)) expect(BASE58_ALPHABET).toContain(ch);
    expect(res.body).toMatchObject({ name: "CI uploader", permissions: ["read", "upload"], expiresAt: null });
    expect(res.body.id).toMatch(/^key_[A-Za-z0-9_-]{21}$/);
    expect(res.body.prefix).toBe(res.body.key.slice(0, 9));
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
  });

  it("keeps only the SHA-256 of the key", async () => {
    const user = await verifiedUser();
    const { id, key } = await createKey(user);
    const raw = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?").bind(id).first<Record<string, unknown>>();
    expect(raw).not.toBeNull();
    expect(raw!.key_hash).toBe(await sha256Hex(key));
    for (const [column, value] of Object.entries(raw!)) {
      expect(String(value), column).not.toContain(key);
      expect(String(value), column).not.toContain(key.slice(3));
    }
  });

  it("takes permissions and an expiry", async () => {
    const user = await verifiedUser();
    const expiresAt = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
    const res = await call("/keys", { token: user.access, body: { name: "m", permissions: ["manage", "read", "read"], expiresAt } });
    expect(res.status).toBe(201);
    expect(res.body.permissions.sort()).toEqual(["manage", "read"]);
    expect(res.body.expiresAt).toBe(expiresAt);
  });

  it("validation errors -> 400", async () => {
    const user = await verifiedUser();
    const cases: Record<string, unknown>[] = [
      {},
      { name: "" },
      { name: "   " },
      { name: "x".repeat(101) },
      { name: "k", permissions: [] },
      { name: "k", permissions: ["admin"] },
      { name: "k", permissions: "read" },
      { name: "k", expiresAt: "tomorrow" },
      { name: "k", expiresAt: new Date(Date.now() - 60_000).toISOString() },
      { name: "k", owner: "someone" },
    ];
    for (const body of cases) {
      const res = await call("/keys", { token: user.access, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
    const past = await call("/keys", { token: user.access, body: { name: "k", expiresAt: "2020-01-01T00:00:00Z" } });
    expect(past.body.details.fields.map((f: any) => f.path)).toContain("expiresAt");
  });

  it("requires a verified e-mail address (403 email_not_verified)", async () => {
    const user = await signup();
    const res = await call("/keys", { token: user.access, body: { name: "k" } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: "Forbidden", details: { code: "email_not_verified" } });
  });

  it("session only: API key -> 403 (contract message), anonymous -> 401", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user, { permissions: ["read", "upload", "manage"] });
    for (const [method, path, body] of [
      ["POST", "/keys", { name: "k" }],
      ["GET", "/keys", undefined],
      ["DELETE", "/keys/key_V1StGXR8_Z5jdHi6B-myT", undefined],
    ] as const) {
      const withKey = await call(path, { method, token: key, body });
      expect(withKey.status, `${method} ${path}`).toBe(403);
      expect(withKey.body.error).toBe("Forbidden");
      expect(withKey.body.message).toContain("API keys can only access");
      const anon = await call(path, { method, body });
      expect(anon.status, `${method} ${path}`).toBe(401);
      expect(anon.body.error).toBe("Unauthorized");
    }
  });
});

describe("GET /keys", () => {
  it("lists the caller's keys without the key itself", async () => {
    const user = await verifiedUser();
    const a = await createKey(user, { name: "first" });
    const b = await createKey(user, { name: "second", permissions: ["read"] });
    const other = await verifiedUser();
    await createKey(other, { name: "not mine" });

    const res = await call("/keys", { token: user.access });
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, hasMore: false });
    expect(res.body.keys.map((k: any) => k.id).sort()).toEqual([a.id, b.id].sort());
    for (const k of res.body.keys) {
      expect(Object.keys(k).sort()).toEqual(["createdAt", "expiresAt", "id", "lastUsedAt", "name", "permissions", "prefix", "revokedAt"]);
    }
    expect(res.text).not.toContain(a.key);
    expect(res.text).not.toContain(b.key);
    expect(res.body.keys.find((k: any) => k.id === b.id)).toMatchObject({ name: "second", permissions: ["read"], lastUsedAt: null, revokedAt: null });
  });

  it("paginates (limit 1..100, offset)", async () => {
    const user = await verifiedUser();
    for (let i = 0; i < 3; i++) await createKey(user, { name: `k${i}` });
    const page = await call("/keys?limit=2&offset=1", { token: user.access });
    expect(page.status).toBe(200);
    expect(page.body.keys).toHaveLength(2);
    expect(page.body.pagination).toEqual({ total: 3, limit: 2, offset: 1, hasMore: false });
    const first = await call("/keys?limit=1", { token: user.access });
    expect(first.body.pagination.hasMore).toBe(true);
    for (const q of ["limit=0", "limit=101", "offset=-1", "limit=abc"]) {
      expect((await call(`/keys?${q}`, { token: user.access })).status, q).toBe(400);
    }
  });
});

describe("DELETE /keys/:id", () => {
  it("revocation takes effect on the very next request", async () => {
    const user = await verifiedUser();
    const { id, key } = await createKey(user);
    // The key authenticates (a session-only route answers 403, i.e. the key itself was accepted).
    expect((await call("/account", { token: key })).status).toBe(403);

    const res = await call(`/keys/${id}`, { method: "DELETE", token: user.access });
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(/revoked/i);

    const after = await call("/account", { token: key });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ error: "API key has been revoked" });

    const listed = await call("/keys", { token: user.access });
    expect(listed.body.keys.find((k: any) => k.id === id).revokedAt).not.toBeNull();
    // Revoking again is harmless.
    expect((await call(`/keys/${id}`, { method: "DELETE", token: user.access })).status).toBe(200);
  });

  it("another user's key cannot be revoked (404) and keeps working", async () => {
    const owner = await verifiedUser();
    const { id, key } = await createKey(owner);
    const stranger = await verifiedUser();
    const res = await call(`/keys/${id}`, { method: "DELETE", token: stranger.access });
    expect(res.status).toBe(404);
    expect(isErrorBody(res.body)).toBe(true);
    expect((await keyRow(id))?.revokedAt).toBeNull();
    expect((await call("/account", { token: key })).status).toBe(403);
    expect((await call("/keys/key_doesnotexist", { method: "DELETE", token: owner.access })).status).toBe(404);
  });
});

describe("authenticating with a key", () => {
  it("an expired key -> 401 'API key has expired'", async () => {
    const user = await verifiedUser();
    const { id, key } = await createKey(user, { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    expect((await call("/account", { token: key })).status).toBe(403);
    await db().update(apiKeys).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(apiKeys.id, id));
    const res = await call("/account", { token: key });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("API key has expired");
    expect(res.body.details.code).toBe("api_key_expired");
  });

  it("almost-right keys -> 401 'Invalid API key'", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    const body = key.slice(3);
    const unknownWellFormed = "pk_" + body.split("").reverse().join("");
    const almost = [
      "pk_" + body.slice(0, 31), // 31 characters
      key + "2", // 33 characters
      "pk_0" + body.slice(1), // 0 is not base58
      "pk_O" + body.slice(1), // nor O
      "pk_I" + body.slice(1), // nor I
      "pk_l" + body.slice(1), // nor l
      "PK_" + body, // wrong prefix case
      "pk-" + body, // wrong separator
      body, // no prefix
      "pk_",
      unknownWellFormed, // right shape, never issued
    ];
    for (const token of almost) {
      const res = await call("/account", { token });
      expect(res.status, token).toBe(401);
      expect(res.body.error, token).toBe("Invalid API key");
      expect(res.body.details.code).toBe("invalid_api_key");
    }
    // Control: the real key is accepted.
    expect((await call("/account", { token: key })).status).toBe(403);
  });

  it("lastUsedAt is set after use but not rewritten on every request", async () => {
    const user = await verifiedUser();
    const { id, key } = await createKey(user);
    expect((await keyRow(id))?.lastUsedAt).toBeNull();

    await call("/account", { token: key });
    const first = (await waitFor(() => keyRow(id), (r) => r?.lastUsedAt != null))!.lastUsedAt;
    expect(first).toBeInstanceOf(Date);
    const listed = await call("/keys", { token: user.access });
    expect(listed.body.keys[0].lastUsedAt).toBe(first!.toISOString());

    // Used again at once: not rewritten.
    await new Promise((r) => setTimeout(r, 10));
    await call("/account", { token: key });
    await call("/account", { token: key });
    await new Promise((r) => setTimeout(r, 100));
    expect((await keyRow(id))?.lastUsedAt?.getTime()).toBe(first!.getTime());

    // Once the write interval has passed, the next use records it again.
    const longAgo = new Date(Date.now() - 10 * 60 * 1000);
    await db().update(apiKeys).set({ lastUsedAt: longAgo }).where(eq(apiKeys.id, id));
    await call("/account", { token: key });
    const later = await waitFor(() => keyRow(id), (r) => r?.lastUsedAt?.getTime() !== longAgo.getTime());
    expect(later!.lastUsedAt!.getTime()).toBeGreaterThan(longAgo.getTime() + 5 * 60 * 1000);
  });

  it("a key of a deleted account is refused", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    await env.DB.prepare("UPDATE users SET deleted_at = ? WHERE id = ?").bind(Date.now(), user.id).run();
    expect((await call("/account", { token: key })).status).toBe(401);
  });
});

describe("key limits and order", () => {
  it("at most 50 active keys; revoked keys do not count", async () => {
    const user = await verifiedUser();
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await createKey(user, { name: `k${i}` })).id);
    const over = await call("/keys", { token: user.access, body: { name: "one too many" } });
    expect(over.status).toBe(400);
    expect(over.body.details.code).toBe("too_many_keys");
    expect((await call(`/keys/${ids[0]}`, { method: "DELETE", token: user.access })).status).toBe(200);
    expect((await call("/keys", { token: user.access, body: { name: "room again" } })).status).toBe(201);
  });

  it("lists newest first", async () => {
    const user = await verifiedUser();
    const a = await createKey(user, { name: "old" });
    await new Promise((r) => setTimeout(r, 5));
    const b = await createKey(user, { name: "new" });
    const res = await call("/keys", { token: user.access });
    expect(res.body.keys.map((k: any) => k.id)).toEqual([b.id, a.id]);
  });
});
