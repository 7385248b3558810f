// Deliveries (extensions.md § 4): Standard Webhooks signing checked with the reference verifier, the retry
// schedule, the 410 disable, the disable after 20 failures in a row with its mail, ping and manual retry.
// The first try of each delivery goes through the real queue; later tries are run here by calling the job with
// the message the queue would bring (the delays are minutes to hours), and the message it queued is stale then.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import { call, signup, type TestUser } from "../support/api";
import { deliverAttempt } from "../../src/webhooks/deliver";
import { WEBHOOKS } from "../../src/config";
import { attemptsOf, createWebhook, fakeReceiver, sentTo, type Receiver } from "./support";

let receiver: Receiver | undefined;
afterEach(() => receiver?.restore());

async function ping(user: TestUser, id: string): Promise<string> {
  const res = await call(`/webhooks/${id}/ping`, { method: "POST", token: user.access });
  expect(res.status).toBe(202);
  return res.body.deliveryId;
}

/** Waits (bounded) until the endpoint's history holds `n` attempts. */
async function attemptsReach(user: TestUser, id: string, n: number): Promise<any[]> {
  return vi.waitFor(
    async () => {
      const attempts = await attemptsOf(user, id);
      expect(attempts.length).toBeGreaterThanOrEqual(n);
      return attempts;
    },
    { timeout: 15_000, interval: 100 },
  );
}

const outbox = async (email: string) => (await call(`/dev/outbox?to=${encodeURIComponent(email)}`)).body.messages as { subject: string; text: string }[];

describe("signing and ping", () => {
  it("a ping is delivered signed per Standard Webhooks: the reference verifier accepts it, and refuses a changed body", async () => {
    receiver = fakeReceiver();
    const user = await signup();
    const hook = await createWebhook(user, { events: ["file.created"] });
    const deliveryId = await ping(user, hook.id);
    const [attempt] = await attemptsReach(user, hook.id, 1);
    expect(attempt).toMatchObject({ deliveryId, event: "ping", attempt: 1, status: "succeeded", statusCode: 200, error: null, nextAttemptAt: null });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);

    const [req] = sentTo(receiver, hook.url);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["webhook-id"]).toBe(attempt.eventId);
    expect(req.headers["webhook-timestamp"]).toMatch(/^\d{10}$/);
    expect(req.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    const verified = new Webhook(hook.secret).verify(req.body, req.headers) as any;
    expect(verified).toEqual({ type: "ping", timestamp: expect.any(String), data: { webhookId: hook.id, message: "ping" } });
    expect(new Date(verified.timestamp).toISOString()).toBe(verified.timestamp);
    expect(() => new Webhook(hook.secret).verify(req.body.replace("ping", "pong"), req.headers)).toThrow(/signature/i);
    // Another endpoint's secret does not verify it.
    const other = await createWebhook(user);
    expect(() => new Webhook(other.secret).verify(req.body, req.headers)).toThrow(/signature/i);
  });

  it("a ping to a disabled endpoint is refused with 409", async () => {
    receiver = fakeReceiver();
    const user = await signup();
    const hook = await createWebhook(user, { enabled: false });
    const res = await call(`/webhooks/${hook.id}/ping`, { method: "POST", token: user.access });
    expect(res.status).toBe(409);
    expect(res.body.details.code).toBe("webhook_disabled");
  });
});

describe("retries", () => {
  it("a failing endpoint is tried again on the schedule, up to 24 h, with one webhook-id; then the delivery fails", async () => {
    receiver = fakeReceiver(() => new Response("down for maintenance", { status: 503 }));
    const user = await signup();
    const hook = await createWebhook(user);
    const deliveryId = await ping(user, hook.id);
    const [first] = await attemptsReach(user, hook.id, 1);
    expect(first).toMatchObject({ attempt: 1, status: "pending", statusCode: 503, error: "HTTP 503: down for maintenance" });
    const tries = WEBHOOKS.retryDelaysSeconds.length + 1;
    for (let attempt = 2; attempt <= tries; attempt++) {
      const result = await deliverAttempt(env, { type: "webhook", deliveryId, attempt });
      expect(result.status, `try ${attempt}`).toBe(attempt < tries ? "retrying" : "failed");
    }
    const attempts = (await attemptsOf(user, hook.id)).reverse();
    expect(attempts.map((a) => a.attempt)).toEqual(Array.from({ length: tries }, (_, i) => i + 1));
    // Each try names when the next is due: growing delays, none after the last.
    const delays = attempts.map((a) => (a.nextAttemptAt ? Math.round((Date.parse(a.nextAttemptAt) - Date.parse(a.createdAt)) / 1000) : null));
    expect(delays).toEqual([...WEBHOOKS.retryDelaysSeconds, null]);
    for (let i = 1; i < WEBHOOKS.retryDelaysSeconds.length; i++) expect(WEBHOOKS.retryDelaysSeconds[i]).toBeGreaterThanOrEqual(WEBHOOKS.retryDelaysSeconds[i - 1]);
    const total = WEBHOOKS.retryDelaysSeconds.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3600);
    expect(total).toBeLessThanOrEqual(24 * 3600);
    expect(Math.max(...WEBHOOKS.retryDelaysSeconds)).toBeLessThanOrEqual(12 * 3600); // the queue's delaySeconds limit
    expect(attempts.at(-1).status).toBe("failed");
    // Every try carried the same webhook-id and a signature the verifier accepts.
    const sent = sentTo(receiver, hook.url);
    expect(sent).toHaveLength(tries);
    expect(new Set(sent.map((r) => r.headers["webhook-id"]))).toEqual(new Set([first.eventId]));
    for (const r of sent) expect(new Webhook(hook.secret).verify(r.body, r.headers)).toMatchObject({ type: "ping" });
    // A message for a try already made (the queue's copy of try 2) sends nothing.
    expect(await deliverAttempt(env, { type: "webhook", deliveryId, attempt: 2 })).toEqual({ status: "skipped" });
    expect(sentTo(receiver, hook.url)).toHaveLength(tries);
  });

  it("a success after failures resets the endpoint's failure count", async () => {
    let status = 500;
    receiver = fakeReceiver(() => new Response(null, { status }));
    const user = await signup();
    const hook = await createWebhook(user);
    const deliveryId = await ping(user, hook.id);
    await attemptsReach(user, hook.id, 1);
    expect((await call(`/webhooks/${hook.id}`, { token: user.access })).body.consecutiveFailures).toBe(1);
    status = 204;
    expect(await deliverAttempt(env, { type: "webhook", deliveryId, attempt: 2 })).toMatchObject({ status: "succeeded", statusCode: 204 });
    expect((await call(`/webhooks/${hook.id}`, { token: user.access })).body.consecutiveFailures).toBe(0);
  });
});

describe("disabling", () => {
  it("a 410 answer disables the endpoint at once, ends the delivery and mails the owner; retry is refused until it is enabled", async () => {
    receiver = fakeReceiver(() => new Response("gone", { status: 410 }));
    const user = await signup();
    const hook = await createWebhook(user);
    const deliveryId = await ping(user, hook.id);
    const [attempt] = await attemptsReach(user, hook.id, 1);
    expect(attempt).toMatchObject({ statusCode: 410, status: "failed", nextAttemptAt: null });
    expect((await call(`/webhooks/${hook.id}`, { token: user.access })).body).toMatchObject({ enabled: false, disabledReason: "gone" });
    const mails = await outbox(user.email);
    expect(mails.filter((m) => m.subject === "A webhook endpoint was disabled")).toHaveLength(1);
    expect(mails[0].text).toContain(hook.url);
    expect(mails[0].text).toMatch(/410/);

    const refused = await call(`/webhooks/${hook.id}/deliveries/${deliveryId}/retry`, { method: "POST", token: user.access });
    expect([refused.status, refused.body.details.code]).toEqual([409, "webhook_disabled"]);

    // Enabled again, a retry sends the same event (same webhook-id) as the next try.
    receiver.answer = () => new Response("ok");
    expect((await call(`/webhooks/${hook.id}`, { method: "PATCH", token: user.access, body: { enabled: true } })).status).toBe(200);
    const retried = await call(`/webhooks/${hook.id}/deliveries/${deliveryId}/retry`, { method: "POST", token: user.access });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ deliveryId, attempt: 2 });
    const attempts = await attemptsReach(user, hook.id, 2);
    expect(attempts[0]).toMatchObject({ deliveryId, attempt: 2, statusCode: 200, status: "succeeded" });
    const sent = sentTo(receiver, hook.url);
    expect(sent.map((r) => r.headers["webhook-id"])).toEqual([attempt.eventId, attempt.eventId]);
    expect(sent[1].body).toBe(sent[0].body);
    // Another user cannot retry it, and an unknown delivery is 404.
    const unknown = await call(`/webhooks/${hook.id}/deliveries/whd_V1StGXR8_Z5jdHi6B-myT/retry`, { method: "POST", token: user.access });
    expect([unknown.status, unknown.body.details.code]).toEqual([404, "delivery_not_found"]);
  });

  it("after 20 failures in a row (across deliveries) the endpoint is disabled and the owner mailed once", async () => {
    receiver = fakeReceiver(() => new Response(null, { status: 500 }));
    const user = await signup();
    const hook = await createWebhook(user);
    const a = await ping(user, hook.id);
    const b = await ping(user, hook.id);
    await attemptsReach(user, hook.id, 2); // both first tries, from the queue
    const tries = WEBHOOKS.retryDelaysSeconds.length + 1; // 11: delivery a fails on its own
    for (let attempt = 2; attempt <= tries; attempt++) await deliverAttempt(env, { type: "webhook", deliveryId: a, attempt });
    let failures = tries + 1;
    let last;
    for (let attempt = 2; failures < WEBHOOKS.disableAfterFailures; attempt++, failures++) {
      expect((await call(`/webhooks/${hook.id}`, { token: user.access })).body.enabled).toBe(true);
      last = await deliverAttempt(env, { type: "webhook", deliveryId: b, attempt });
    }
    expect(last).toMatchObject({ status: "failed", nextDelaySeconds: null });
    const endpoint = (await call(`/webhooks/${hook.id}`, { token: user.access })).body;
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: "failures", consecutiveFailures: 20 });
    const mails = (await outbox(user.email)).filter((m) => m.subject === "A webhook endpoint was disabled");
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toMatch(/20 deliveries in a row failed/);
    // Events no longer go to it.
    const sent = sentTo(receiver, hook.url).length;
    expect(sent).toBe(20);
  });
});
