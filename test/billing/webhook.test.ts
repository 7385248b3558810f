// POST /billing/webhook: HMAC-SHA256 signature with timestamp, replay window, event-id idempotency.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, verifiedUser } from "../support/api";
import { planChangesOf, userRow, userWithRole } from "../admin/helpers";
import { parseSignatureHeader, signPayload, verifySignature } from "../../src/billing/signature";
import { freshIp, leaveOnly, setMultiplier } from "../limits/support";

const SECRET = env.BILLING_WEBHOOK_SECRET;
const limitHeaders = (res: { headers: Headers }) => ({
  limit: Number(res.headers.get("x-ratelimit-limit") ?? NaN),
  remaining: Number(res.headers.get("x-ratelimit-remaining") ?? NaN),
  reset: Number(res.headers.get("x-ratelimit-reset") ?? NaN),
});
const now = () => Math.floor(Date.now() / 1000);
let eventCounter = 0;
const eventId = () => `evt_test_${++eventCounter}_${crypto.randomUUID().slice(0, 8)}`;

async function deliver(event: unknown, opts: { secret?: string; t?: number; header?: string | null; raw?: string } = {}) {
  const body = opts.raw ?? JSON.stringify(event);
  const header = opts.header !== undefined ? opts.header : await signPayload(opts.secret ?? SECRET, body, opts.t ?? now());
  return call("/billing/webhook", { raw: body, headers: { "content-type": "application/json", ...(header === null ? {} : { "x-signature": header }) } });
}

describe("signature checks (unit)", () => {
  it("parses t and every v1, ignoring other schemes", () => {
    const a = "a".repeat(64);
    const b = "B".repeat(64);
    expect(parseSignatureHeader(`t=123,v1=${a}, v0=zz ,v1=${b}`)).toEqual({ timestamp: 123, signatures: [a, b.toLowerCase()] });
    expect(parseSignatureHeader(`v1=${a}`)).toBeNull();
    expect(parseSignatureHeader("t=123")).toBeNull();
    expect(parseSignatureHeader(`t=12x,v1=${a}`)).toBeNull();
  });

  it("accepts any matching v1 (secret rotation) and rejects stale timestamps both ways", async () => {
    const body = '{"x":1}';
    const good = await signPayload("s1", body, 1000);
    const other = await signPayload("s2", body, 1000);
    const both = `t=1000,v1=${other.split("v1=")[1]},v1=${good.split("v1=")[1]}`;
    expect(await verifySignature("s1", both, body, 1000)).toEqual({ ok: true, timestamp: 1000 });
    expect(await verifySignature("s1", good, body, 1300)).toMatchObject({ ok: true });
    expect(await verifySignature("s1", good, body, 1301)).toEqual({ ok: false, reason: "stale" });
    expect(await verifySignature("s1", good, body, 699)).toEqual({ ok: false, reason: "stale" });
    expect(await verifySignature("s1", good, body + " ", 1000)).toEqual({ ok: false, reason: "mismatch" });
    expect(await verifySignature("s1", null, body, 1000)).toEqual({ ok: false, reason: "missing" });
  });
});

describe("POST /billing/webhook", () => {
  it("applies a correctly signed plan change", async () => {
    const u = await verifiedUser();
    const id = eventId();
    const res = await deliver({ id, type: "subscription.updated", data: { userId: u.id, plan: "pro" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, duplicate: false, applied: true });
    expect((await userRow(u.id))?.plan).toBe("pro");
    const changes = await planChangesOf(u.id);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ from_plan: "free", to_plan: "pro", status: "applied", provider: "webhook", provider_ref: id, decided_by: null });
    const recorded = await env.DB.prepare("SELECT * FROM webhook_events WHERE id = ?").bind(id).first();
    expect(recorded).not.toBeNull();
  });

  it("a replayed delivery changes nothing", async () => {
    const u = await verifiedUser();
    const event = { id: eventId(), type: "subscription.updated", data: { userId: u.id, plan: "pro" } };
    const body = JSON.stringify(event);
    const header = await signPayload(SECRET, body, now());
    expect((await deliver(event, { raw: body, header })).body.applied).toBe(true);
    // Meanwhile the plan moves on; the replay must not move it back.
    await env.DB.prepare("UPDATE users SET plan = 'enterprise' WHERE id = ?").bind(u.id).run();
    const replay = await deliver(event, { raw: body, header });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ received: true, duplicate: true, applied: false });
    expect((await userRow(u.id))?.plan).toBe("enterprise");
    // Re-signed with a fresh timestamp: still the same event id, still nothing.
    const resigned = await deliver(event);
    expect(resigned.body.duplicate).toBe(true);
    expect(await planChangesOf(u.id)).toHaveLength(1);
  });

  it("concurrent deliveries of one event apply it once", async () => {
    const u = await verifiedUser();
    const event = { id: eventId(), type: "subscription.updated", data: { userId: u.id, plan: "enterprise" } };
    const replies = await Promise.all(Array.from({ length: 5 }, () => deliver(event)));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(replies.filter((r) => r.body.applied)).toHaveLength(1);
    expect(await planChangesOf(u.id)).toHaveLength(1);
  });

  it("refuses a wrong signature, a tampered body, a missing or malformed header", async () => {
    const u = await verifiedUser();
    const event = { id: eventId(), type: "subscription.updated", data: { userId: u.id, plan: "pro" } };
    const wrong = await deliver(event, { secret: "not-the-secret" });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ error: "Bad Request", details: { code: "invalid_signature" } });
    const body = JSON.stringify(event);
    const header = await signPayload(SECRET, body, now());
    const tampered = await deliver(event, { raw: body.replace('"pro"', '"enterprise"'), header });
    expect(tampered.status).toBe(400);
    expect(tampered.body.details.code).toBe("invalid_signature");
    const missing = await deliver(event, { header: null });
    expect(missing.status).toBe(400);
    expect(missing.body.details.code).toBe("missing_signature");
    for (const h of ["garbage", `t=${now()}`, `t=${now()},v1=abc`, `v1=${"0".repeat(64)}`]) {
      const res = await deliver(event, { header: h });
      expect(res.status).toBe(400);
      expect(res.body.details.code).toBe("invalid_signature");
    }
    expect((await userRow(u.id))?.plan).toBe("free");
    // Refused deliveries record nothing, so the genuine one still applies.
    expect((await deliver(event)).body.applied).toBe(true);
  });

  it("refuses stale (and far-future) timestamps, even correctly signed", async () => {
    const u = await verifiedUser();
    const event = { id: eventId(), type: "subscription.updated", data: { userId: u.id, plan: "pro" } };
    for (const t of [now() - 301, now() + 301]) {
      const res = await deliver(event, { t });
      expect(res.status).toBe(400);
      expect(res.body.details.code).toBe("stale_signature");
    }
    expect((await deliver(event, { t: now() - 290 })).body.applied).toBe(true);
  });

  it("subscription.deleted returns the user to free", async () => {
    const u = await userWithRole("user", "pro");
    const res = await deliver({ id: eventId(), type: "subscription.deleted", data: { userId: u.id } });
    expect(res.body.applied).toBe(true);
    expect((await userRow(u.id))?.plan).toBe("free");
  });

  it("acknowledges events it does not act on, and records them", async () => {
    const u = await verifiedUser();
    for (const event of [
      { id: eventId(), type: "invoice.paid", data: { userId: u.id } },
      { id: eventId(), type: "subscription.updated", data: { userId: "usr_V1StGXR8_Z5jdHi6B-myT", plan: "pro" } },
      { id: eventId(), type: "subscription.updated", data: { userId: u.id, plan: "free" } },
      { id: eventId(), type: "subscription.updated", data: {} },
    ]) {
      const res = await deliver(event);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, duplicate: false, applied: false });
      expect((await deliver(event)).body.duplicate).toBe(true);
    }
  });

  it("a signed but invalid event is 400", async () => {
    const bad = await deliver(null, { raw: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.code).toBe("malformed_json");
    for (const event of [{ type: "x" }, { id: eventId(), type: "subscription.updated", data: { plan: "gold" } }, { id: "", type: "x" }]) {
      const res = await deliver(event);
      expect(res.status).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
  });

  it("is exempt from per-IP rate limits (the processor sends everyone's events from a few addresses)", async () => {
    const saved = env.RATE_LIMIT_MULTIPLIER;
    setMultiplier("1");
    try {
      const ip = freshIp();
      await leaveOnly(`ip:${ip}`, "api", 100, 0);
      expect((await call("/no/such/route", { ip })).status).toBe(429);
      const body = JSON.stringify({ id: eventId(), type: "invoice.paid", data: {} });
      const res = await call("/billing/webhook", { ip, raw: body, headers: { "content-type": "application/json", "x-signature": await signPayload(SECRET, body, now()) } });
      expect(res.status).toBe(200);
      // Still described, as every response is: the caller's API bucket, used up here.
      expect(limitHeaders(res)).toMatchObject({ limit: 100, remaining: 0 });
    } finally {
      setMultiplier(saved);
    }
  });

  it("every answer carries the X-RateLimit-* headers of the caller's API bucket, which it does not use up", async () => {
    const saved = env.RATE_LIMIT_MULTIPLIER;
    setMultiplier("1");
    try {
      const ip = freshIp();
      const event = () => JSON.stringify({ id: eventId(), type: "invoice.paid", data: {} });
      const signed = async (raw: string, extra: Record<string, string> = {}) =>
        call("/billing/webhook", { ip, raw, headers: { "content-type": "application/json", "x-signature": await signPayload(SECRET, raw, now()), ...extra } });
      const replies = [
        await signed(event()), // 200 (the object is asked: this isolate knows nothing of the IP yet)
        await signed(event()), // 200 (known here)
        await call("/billing/webhook", { ip, raw: event(), headers: { "content-type": "application/json", "x-signature": "t=1,v1=00" } }), // 400
        await call("/billing/webhook", { ip, raw: event(), headers: { "content-type": "application/json" } }), // 400, no signature
        await signed("{", {}), // 400 malformed JSON, signed
        await signed(event(), { authorization: "Bearer not.a.token" }), // 401: refused credentials
      ];
      expect(replies.map((r) => r.status)).toEqual([200, 200, 400, 400, 400, 401]);
      for (const res of replies) {
        const h = limitHeaders(res);
        expect(h.limit, `${res.status} ${res.text}`).toBe(100);
        expect(h.reset).toBeGreaterThan(now());
        expect(h.reset).toBeLessThanOrEqual(now() + 3600);
      }
      // Not counted: the bucket is as full as before, until a call that is counted.
      expect(replies.map((r) => limitHeaders(r).remaining)).toEqual([100, 100, 100, 100, 100, 100]);
      expect(limitHeaders(await call("/no/such/route", { ip })).remaining).toBe(99);
      expect(limitHeaders(await signed(event())).remaining).toBe(99);
      // A body over the JSON limit is refused (413) with them too.
      const big = JSON.stringify({ id: eventId(), type: "invoice.paid", data: { pad: "x".repeat(70_000) } });
      const tooBig = await signed(big);
      expect([tooBig.status, limitHeaders(tooBig).limit]).toEqual([413, 100]);
    } finally {
      setMultiplier(saved);
    }
  });
});
