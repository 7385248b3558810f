// /webhooks management (extensions.md § 4): who may call each route, the secret shown once, the URL rules, the
// limit of 10, and another user's endpoint answered as a missing one.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { call, createKey, signup, verifiedUser, type TestUser } from "../support/api";
import { directoryDb } from "../../src/platform/data/db";
import { apiKeys } from "../../src/db/schema";
import { ALL_EVENTS, createWebhook, fakeReceiver, type Receiver } from "./support";

let receiver: Receiver;
beforeAll(() => {
  receiver = fakeReceiver(); // pings queued here are delivered to it, never to a real network
});
afterAll(() => receiver.restore());

const UNKNOWN = "whk_V1StGXR8_Z5jdHi6B-myT";
/** Every route with a valid-looking body, for an endpoint id. */
const routes = (id: string) => [
  { method: "POST", path: "/webhooks", body: { url: "https://hooks.example.com/x", events: ["file.created"] } },
  { method: "GET", path: "/webhooks" },
  { method: "GET", path: `/webhooks/${id}` },
  { method: "PATCH", path: `/webhooks/${id}`, body: { description: "changed" } },
  { method: "POST", path: `/webhooks/${id}/ping` },
  { method: "GET", path: `/webhooks/${id}/deliveries` },
  { method: "POST", path: `/webhooks/${id}/deliveries/whd_V1StGXR8_Z5jdHi6B-myT/retry` },
  { method: "DELETE", path: `/webhooks/${id}` },
];

describe("POST /webhooks", () => {
  it("creates an endpoint: 201, the secret (whsec_ + base64 of 32 bytes) in this answer only, sealed at rest", async () => {
    const user = await signup();
    const res = await call("/webhooks", { token: user.access, body: { url: "https://hooks.example.com/images", events: ["file.created", "file.deleted", "file.created"], description: "CI" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["consecutiveFailures", "createdAt", "description", "disabledReason", "enabled", "events", "id", "secret", "updatedAt", "url"]);
    expect(res.body).toMatchObject({ url: "https://hooks.example.com/images", events: ["file.created", "file.deleted"], description: "CI", enabled: true, disabledReason: null, consecutiveFailures: 0 });
    expect(res.body.id).toMatch(/^whk_[A-Za-z0-9_-]{21}$/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(atob(res.body.secret.slice(6)).length).toBe(32);

    const read = await call(`/webhooks/${res.body.id}`, { token: user.access });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    const list = await call("/webhooks", { token: user.access });
    expect(list.body.webhooks.map((w: any) => w.id)).toEqual([res.body.id]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret.slice(6));

    const raw = await env.DB.prepare("SELECT * FROM webhook_endpoints WHERE id = ?").bind(res.body.id).first<Record<string, unknown>>();
    for (const [column, value] of Object.entries(raw!)) expect(String(value), column).not.toContain(res.body.secret.slice(6));
  });

  it("refuses bad input with 400: validation_error for the shape, invalid_url for an address the rules refuse", async () => {
    const user = await signup();
    for (const body of [{}, { url: "https://hooks.example.com/" }, { url: "https://hooks.example.com/", events: [] }, { url: "https://hooks.example.com/", events: ["file.eaten"] }, { url: "https://hooks.example.com/", events: ["ping"] }, { url: "https://hooks.example.com/", events: ["file.created"], secret: "mine" }]) {
      const res = await call("/webhooks", { token: user.access, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
    for (const url of ["http://localhost/hook", "http://127.0.0.1/hook", "http://10.1.2.3/", "http://169.254.169.254/latest", "https://user:pw@hooks.example.com/", "ftp://hooks.example.com/", "https://hooks.example.com:8443/", "not a url"]) {
      const res = await call("/webhooks", { token: user.access, body: { url, events: ["file.created"] } });
      expect(res.status, url).toBe(400);
      expect(res.body.details.code, url).toBe("invalid_url");
      expect(res.body.message).toMatch(/cannot receive webhooks/);
    }
    expect((await call("/webhooks", { token: user.access })).body.webhooks).toEqual([]);
  });

  it("allows at most 10 endpoints per user", async () => {
    const user = await signup();
    for (let i = 0; i < 10; i++) await createWebhook(user);
    const res = await call("/webhooks", { token: user.access, body: { url: "https://hooks.example.com/11", events: ["file.created"] } });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({ code: "too_many_webhooks", limit: 10 });
    // Another user is not affected.
    await createWebhook(await signup());
  });

  it("holds the cap under parallel creation: 7 endpoints and 8 at once leave exactly 10, the rest refused", async () => {
    const user = await signup();
    for (let i = 0; i < 7; i++) await createWebhook(user);
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call("/webhooks", { token: user.access, body: { url: `https://hooks.example.com/burst/${i}`, events: ["file.created"] } })),
    );
    expect(burst.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of burst.filter((r) => r.status !== 201)) expect(r.body.details).toMatchObject({ code: "too_many_webhooks", limit: 10 });
    expect((await call("/webhooks", { token: user.access })).body.webhooks).toHaveLength(10);
  });

  it("holds the cap for a burst of 20 from none", async () => {
    const user = await signup();
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call("/webhooks", { token: user.access, body: { url: `https://hooks.example.com/from-zero/${i}`, events: ["file.created"] } })),
    );
    expect(burst.map((r) => r.status).sort()).toEqual([...Array(10).fill(201), ...Array(10).fill(400)]);
    expect((await call("/webhooks", { token: user.access })).body.webhooks).toHaveLength(10);
  });
});

describe("GET, PATCH, DELETE /webhooks/:id", () => {
  it("the owner reads, changes and deletes; re-enabling clears the reason and the count", async () => {
    const user = await signup();
    const hook = await createWebhook(user);
    const patched = await call(`/webhooks/${hook.id}`, { method: "PATCH", token: user.access, body: { events: ["album.created"], description: "albums", enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ["album.created"], description: "albums", enabled: false });
    expect((await call(`/webhooks/${hook.id}`, { method: "PATCH", token: user.access, body: { url: "http://192.168.0.1/" } })).body.details.code).toBe("invalid_url");

    await env.DB.prepare("UPDATE webhook_endpoints SET disabled_reason = 'failures', consecutive_failures = 20 WHERE id = ?").bind(hook.id).run();
    const enabled = await call(`/webhooks/${hook.id}`, { method: "PATCH", token: user.access, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, consecutiveFailures: 0 });

    expect((await call(`/webhooks/${hook.id}`, { method: "DELETE", token: user.access })).status).toBe(200);
    const gone = await call(`/webhooks/${hook.id}`, { token: user.access });
    expect(gone.status).toBe(404);
    expect(gone.body.details.code).toBe("webhook_not_found");
  });

  it("another user's endpoint is 404 on every route, like an unknown id", async () => {
    const owner = await signup();
    const stranger = await signup();
    const hook = await createWebhook(owner);
    for (const id of [hook.id, UNKNOWN]) {
      for (const route of routes(id).slice(2)) {
        const res = await call(route.path, { method: route.method, body: route.body, token: stranger.access });
        expect(res.status, `${route.method} ${route.path}`).toBe(404);
        expect(res.body.details.code).toBe("webhook_not_found");
      }
    }
    expect((await call(`/webhooks/${hook.id}`, { token: owner.access })).status).toBe(200);
    expect((await call("/webhooks", { token: stranger.access })).body.webhooks).toEqual([]);
  });
});

describe("who may call /webhooks", () => {
  let owner: TestUser;
  let hookId: string;
  beforeAll(async () => {
    owner = await verifiedUser();
    hookId = (await createWebhook(owner)).id;
  });

  it("anonymous -> 401 on every route", async () => {
    for (const route of routes(hookId)) {
      const res = await call(route.path, { method: route.method, body: route.body });
      expect(res.status, `${route.method} ${route.path}`).toBe(401);
    }
  });

  it("an API key without manage -> 403 missing_permission on every route", async () => {
    const { key } = await createKey(owner, { permissions: ["read", "upload"] });
    for (const route of routes(hookId)) {
      const res = await call(route.path, { method: route.method, body: route.body, token: key });
      expect(res.status, `${route.method} ${route.path}`).toBe(403);
      expect(res.body.details).toMatchObject({ code: "missing_permission", permission: "manage" });
    }
  });

  it("an API key with manage may do everything a session may", async () => {
    const { key } = await createKey(owner, { permissions: ["manage"] });
    const created = await call("/webhooks", { token: key, body: { url: "https://hooks.example.com/by-key", events: ALL_EVENTS } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await call("/webhooks", { token: key })).body.webhooks.map((w: any) => w.id)).toContain(id);
    expect((await call(`/webhooks/${id}`, { token: key })).status).toBe(200);
    expect((await call(`/webhooks/${id}`, { method: "PATCH", token: key, body: { description: "k" } })).status).toBe(200);
    expect((await call(`/webhooks/${id}/ping`, { method: "POST", token: key })).status).toBe(202);
    expect((await call(`/webhooks/${id}/deliveries`, { token: key })).status).toBe(200);
    expect((await call(`/webhooks/${id}/deliveries/whd_V1StGXR8_Z5jdHi6B-myT/retry`, { method: "POST", token: key })).body.details.code).toBe("delivery_not_found");
    expect((await call(`/webhooks/${id}`, { method: "DELETE", token: key })).status).toBe(200);
  });

  it("a revoked key -> 401 api_key_revoked; an expired key -> 401 api_key_expired", async () => {
    const revoked = await createKey(owner, { permissions: ["manage"] });
    expect((await call(`/keys/${revoked.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    const expiring = await createKey(owner, { permissions: ["manage"], expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await directoryDb(env).update(apiKeys).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(apiKeys.id, expiring.id));
    for (const route of routes(hookId)) {
      const a = await call(route.path, { method: route.method, body: route.body, token: revoked.key });
      expect([a.status, a.body.details.code], `${route.method} ${route.path}`).toEqual([401, "api_key_revoked"]);
      const b = await call(route.path, { method: route.method, body: route.body, token: expiring.key });
      expect([b.status, b.body.details.code], `${route.method} ${route.path}`).toEqual([401, "api_key_expired"]);
    }
  });
});
