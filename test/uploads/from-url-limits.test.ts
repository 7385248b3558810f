// POST /upload/url: the size limit (announced and real), the timeout, the remote's failures, non-images, quota and
// the uploads rate limit. Every refusal keeps nothing: no R2 object, no live record, no reservation.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PLAN_LIMITS } from "../../src/config";
import { URL_UPLOADS } from "../../src/config/uploads";
import { signup } from "../support/api";
import { ownerDb } from "../support/shard-db";
import { leaveOnly, setMultiplier } from "../limits/support";
import { startOfNextWindow } from "../support/clock";
import { SMALL_PNG, makePng, objectExists, randomIp, setStorage, storage } from "./helpers";
import { endless, fakeRemote, image, stalled, uploadUrl, type Remote } from "./remote";

let remote: Remote | null = null;
afterEach(() => {
  remote?.restore();
  remote = null;
});

const FREE_LIMIT = PLAN_LIMITS.free.maxFileBytes;
const ANONYMOUS_LIMIT = PLAN_LIMITS.anonymous.maxFileBytes;

/** Every upload record of the user, with whether its object is in R2. */
async function uploadsOf(userId: string) {
  const rows = await ownerDb
    .prepare("SELECT u.state AS upload, u.reserved_bytes AS reserved, f.state AS file, f.store_key AS key FROM uploads u JOIN files f ON f.id = u.file_id WHERE u.user_id = ?")
    .bind(userId)
    .all<{ upload: string; reserved: number; file: string; key: string }>();
  return Promise.all(rows.results.map(async (r) => ({ upload: r.upload, file: r.file, reserved: r.reserved, object: await objectExists(r.key) })));
}

/** Objects in the bucket (the test file's own storage). */
async function objectCount(): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await env.BUCKET.list({ cursor, limit: 1000 });
    n += page.objects.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return n;
}

const failedAndEmpty = { upload: "failed", file: "failed", reserved: 0, object: false };

describe("size", () => {
  it("a Content-Length over the plan's limit is 413 before any byte is stored or reserved", async () => {
    const user = await signup();
    const body = endless(SMALL_PNG.subarray(0, 64));
    remote = fakeRemote(() => new Response(body.stream, { headers: { "content-length": String(FREE_LIMIT + 1) } }));
    const res = await uploadUrl({ url: "https://example.com/big.png" }, user.access);
    expect(res.status, res.text).toBe(413);
    expect(res.body).toMatchObject({ error: "Payload Too Large", details: { code: "file_too_large", limit: FREE_LIMIT, plan: "free" } });
    expect(body.sent()).toBeLessThan(2 * 1024 * 1024); // the body was not read on
    expect(await uploadsOf(user.id)).toEqual([]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });

  it("a body without Content-Length that grows past the limit is cut off: 413, nothing started", async () => {
    const before = await objectCount();
    const body = endless(SMALL_PNG.subarray(0, 64), 256 * 1024);
    remote = fakeRemote(() => new Response(body.stream));
    const res = await uploadUrl({ url: "https://example.com/endless.png" });
    expect(res.status, res.text).toBe(413);
    expect(res.body.details).toMatchObject({ code: "file_too_large", limit: ANONYMOUS_LIMIT, plan: "anonymous" });
    expect(body.sent()).toBeLessThan(ANONYMOUS_LIMIT + 2 * 256 * 1024); // read up to the limit, no further
    expect(await objectCount()).toBe(before);
  });

  it("without Content-Length the memory cap applies below the plan's limit; with one the same bytes stream", async () => {
    const FULL = URL_UPLOADS.maxBufferedBytes;
    URL_UPLOADS.maxBufferedBytes = 1_000_000; // the worker's own setting object, shortened for the test
    try {
      const user = await signup();
      const png = makePng(700, 500, 9); // ~1 MB of incompressible pixels
      expect(png.byteLength).toBeGreaterThan(1_000_000);
      remote = fakeRemote(() => new Response(new Blob([png]).stream()));
      const buffered = await uploadUrl({ url: "https://example.com/big.png" }, user.access);
      expect(buffered.status, buffered.text).toBe(413);
      expect(buffered.body.details).toMatchObject({ code: "file_too_large", limit: 1_000_000, plan: "free" });
      expect(buffered.body.message).toMatch(/Content-Length/);
      remote.restore();
      remote = fakeRemote(() => image(png));
      const streamed = await uploadUrl({ url: "https://example.com/big.png" }, user.access);
      expect(streamed.status, streamed.text).toBe(201);
      expect(streamed.body.bytes).toBe(png.byteLength);
    } finally {
      URL_UPLOADS.maxBufferedBytes = FULL;
    }
  });

  it("a lying Content-Length (the limit, then more bytes) is cut off at the limit: 413, upload ended, reservation released", async () => {
    const user = await signup();
    const before = await objectCount();
    const body = endless(SMALL_PNG.subarray(0, 64));
    remote = fakeRemote(() => new Response(body.stream, { headers: { "content-length": String(FREE_LIMIT) } }));
    const res = await uploadUrl({ url: "https://example.com/liar.png" }, user.access);
    expect(res.status, res.text).toBe(413);
    expect(res.body.details).toMatchObject({ code: "file_too_large", limit: FREE_LIMIT });
    expect(body.sent()).toBeLessThan(FREE_LIMIT + 2 * 1024 * 1024);
    expect(await uploadsOf(user.id)).toEqual([failedAndEmpty]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
    expect(await objectCount()).toBe(before);
  });

  it("more bytes than a small Content-Length announced (under the limit) is 422: the remote broke its word, nothing kept", async () => {
    const user = await signup();
    const png = makePng(16, 16, 5);
    remote = fakeRemote(() => new Response(endless(png, 64 * 1024).stream, { headers: { "content-length": String(png.byteLength) } }));
    const res = await uploadUrl({ url: "https://example.com/more.png" }, user.access);
    expect(res.status, res.text).toBe(422);
    expect(res.body.details).toMatchObject({ code: "url_fetch_failed", status: 200, expectedBytes: png.byteLength });
    expect(await uploadsOf(user.id)).toEqual([failedAndEmpty]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });

  it("fewer bytes than announced is 422, nothing kept", async () => {
    const user = await signup();
    remote = fakeRemote(() => new Response(SMALL_PNG, { headers: { "content-length": String(SMALL_PNG.byteLength + 100) } }));
    const res = await uploadUrl({ url: "https://example.com/short.png" }, user.access);
    expect(res.status, res.text).toBe(422);
    expect(res.body.details).toMatchObject({ code: "url_fetch_failed", expectedBytes: SMALL_PNG.byteLength + 100, receivedBytes: SMALL_PNG.byteLength });
    expect(await uploadsOf(user.id)).toEqual([failedAndEmpty]);
  });
});

describe("time", () => {
  // URL_UPLOADS.timeoutMs is the worker's own setting object (the same module instance): shortened here so the
  // deadline passes within the test. (Fake timers cannot stand in: with them faked, the test's D1 calls stall.)
  const FULL = URL_UPLOADS.timeoutMs;
  beforeEach(() => {
    URL_UPLOADS.timeoutMs = 300;
  });
  afterEach(() => {
    URL_UPLOADS.timeoutMs = FULL;
  });

  it("a remote that never answers is 422 url_fetch_failed once the deadline passes", async () => {
    remote = fakeRemote((_url, init) => new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))));
    const started = Date.now();
    const res = await uploadUrl({ url: "https://example.com/slow.png" });
    expect(res.status, res.text).toBe(422);
    expect(res.body.details).toMatchObject({ code: "url_fetch_failed", status: null, reason: "timeout" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it("a remote that ignores the abort signal is cut at the deadline all the same", async () => {
    remote = fakeRemote(() => new Promise<Response>(() => {}));
    const res = await uploadUrl({ url: "https://example.com/deaf.png" });
    expect(res.status, res.text).toBe(422);
    expect(res.body.details).toMatchObject({ code: "url_fetch_failed", reason: "timeout" });
  });

  it("a body that stalls after its first bytes is cut at the deadline: 422, upload ended, reservation released", async () => {
    const user = await signup();
    remote = fakeRemote(() => new Response(stalled(SMALL_PNG.subarray(0, 100)), { headers: { "content-length": String(SMALL_PNG.byteLength) } }));
    const res = await uploadUrl({ url: "https://example.com/stall.png" }, user.access);
    expect(res.status, res.text).toBe(422);
    expect(res.body.details).toMatchObject({ code: "url_fetch_failed", status: 200, reason: "timeout" });
    // the upload had started (records, reservation) while the body was coming: it is ended, nothing kept
    expect(await uploadsOf(user.id)).toEqual([failedAndEmpty]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });

  it("without a Content-Length, a stalled body is cut at the deadline before anything is started", async () => {
    const user = await signup();
    remote = fakeRemote(() => new Response(stalled(SMALL_PNG.subarray(0, 100))));
    const res = await uploadUrl({ url: "https://example.com/stall.png" }, user.access);
    expect(res.status, res.text).toBe(422);
    expect(res.body.details).toMatchObject({ code: "url_fetch_failed", status: 200, reason: "timeout" });
    expect(await uploadsOf(user.id)).toEqual([]);
  });
});

describe("what the remote answers", () => {
  it("a 404 is 422 url_fetch_failed with details.status 404", async () => {
    remote = fakeRemote(() => new Response("not here", { status: 404 }));
    const res = await uploadUrl({ url: "https://example.com/missing.png" });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ error: "Unprocessable Entity", details: { code: "url_fetch_failed", status: 404 } });
  });

  it("a network failure is 422 url_fetch_failed", async () => {
    remote = fakeRemote(() => {
      throw new TypeError("Network connection lost.");
    });
    const res = await uploadUrl({ url: "https://example.com/down.png" });
    expect(res.status, res.text).toBe(422);
    expect(res.body.details).toMatchObject({ code: "url_fetch_failed", status: null });
  });

  it("bytes that are not a supported image are 415, whatever the Content-Type says; nothing started", async () => {
    const user = await signup();
    for (const [body, type] of [
      ["<html><body>an image, honest</body></html>", "image/png"],
      ["<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml"],
      ["GIF", "image/gif"], // shorter than any signature
    ]) {
      remote = fakeRemote(() => image(new TextEncoder().encode(body), type));
      const res = await uploadUrl({ url: "https://example.com/fake.png" }, user.access);
      expect(res.status, res.text).toBe(415);
      expect(res.body).toMatchObject({ error: "Unsupported Media Type", details: { code: "unsupported_media_type" } });
      remote.restore();
    }
    remote = null;
    expect(await uploadsOf(user.id)).toEqual([]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });
});

describe("quota and rate limit", () => {
  it("an upload that does not fit the quota is 402, nothing kept", async () => {
    const user = await signup();
    const quota = PLAN_LIMITS.free.storageQuotaBytes!;
    await setStorage(user.id, quota - SMALL_PNG.byteLength + 1);
    remote = fakeRemote(() => image(SMALL_PNG));
    const res = await uploadUrl({ url: "https://example.com/a.png" }, user.access);
    expect(res.status, res.text).toBe(402);
    expect(res.body.details.code).toBe("quota_exceeded");
    expect(await uploadsOf(user.id)).toEqual([]);
    expect(await storage(user.id)).toEqual({ used: quota - SMALL_PNG.byteLength + 1, reserved: 0 });
  });

  it("counts against the uploads bucket: anonymous callers get 429 past the plan's uploads per hour", async () => {
    const saved = env.RATE_LIMIT_MULTIPLIER;
    setMultiplier("1");
    const realClock = startOfNextWindow(3600); // the filled bucket and both uploads in one hourly window
    try {
      remote = fakeRemote(() => image(SMALL_PNG));
      const ip = randomIp();
      const limit = PLAN_LIMITS.anonymous.uploadsPerHour;
      await leaveOnly(`ip:${ip}`, "uploads", limit, 1);
      const last = await uploadUrl({ url: "https://example.com/a.png" }, undefined, ip);
      expect(last.status, last.text).toBe(201);
      expect(last.headers.get("x-ratelimit-limit")).toBe(String(limit));
      expect(last.headers.get("x-ratelimit-remaining")).toBe("0");
      const refused = await uploadUrl({ url: "https://example.com/a.png" }, undefined, ip);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
      expect(remote.fetched).toHaveLength(1);
    } finally {
      realClock();
      setMultiplier(saved);
    }
  });
});
