import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, signup, type TestUser } from "../support/api";
import { SMALL_PNG, fileRow, sameBytes, finalize, makePng, objectExists, randomIp, setStorage, sha256, storage, uploadRow } from "./helpers";
import { ownerDb } from "../support/shard-db";

const MiB = 1024 * 1024;
const PART = 5 * MiB;

// A real PNG of ~10.8 MB: two 5 MiB parts and a remainder.
let BIG: Uint8Array;
let BIG_SHA: string;
beforeAll(async () => {
  BIG = makePng(1200, 3000, 11);
  BIG_SHA = await sha256(BIG);
});

type Init = { uploadId: string; fileId: string; storeKey: string; partSize: number; partCount: number; parts: { partNumber: number; url: string }[]; expiresAt: string; uploadToken?: string };

async function init(token: string | undefined, body: Record<string, unknown>) {
  return call("/upload/multipart/init", {
    token,
    ip: token ? undefined : randomIp(),
    body: { filename: "big.png", mime: "image/png", title: "Big", ...body },
  });
}

const slice = (bytes: Uint8Array, partSize: number, n: number) => bytes.subarray((n - 1) * partSize, Math.min(bytes.length, n * partSize));

function putPart(url: string, bytes: Uint8Array | ReadableStream, token?: string) {
  return call(url, { method: "PUT", raw: bytes as BodyInit, token, headers: { "content-type": "application/octet-stream" } });
}

async function sendAll(up: Init, bytes: Uint8Array, token?: string, order?: number[]) {
  const etags: { partNumber: number; etag: string }[] = [];
  for (const n of order ?? up.parts.map((p) => p.partNumber)) {
    const res = await putPart(up.parts[n - 1].url, slice(bytes, up.partSize, n), token);
    expect(res.status, res.text).toBe(200);
    etags.push(res.body);
  }
  return etags.sort((a, b) => a.partNumber - b.partNumber);
}

type Part = { partNumber: number; etag: string };
function complete(up: Init, parts: { partNumber: number; etag: string }[], token?: string) {
  return call("/upload/multipart/complete", { token, body: { uploadId: up.uploadId, fileId: up.fileId, storeKey: up.storeKey, parts } });
}

async function multipartGone(up: Init) {
  // R2 refuses parts for an aborted multipart upload
  const r2Id = (await uploadRow(up.uploadId))!.r2_upload_id as string;
  return env.BUCKET.resumeMultipartUpload(up.storeKey, r2Id)
    .uploadPart(1, new Uint8Array(10))
    .then(() => false)
    .catch(() => true);
}

describe("multipart upload, end to end", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await signup();
  });

  it("init -> parts (any order, resumable, replaceable) -> complete -> finalize; the bytes read back are identical", async () => {
    const res = await init(user.access, { totalBytes: BIG.length, partSize: PART, sha256: BIG_SHA });
    expect(res.status).toBe(201);
    const up: Init = res.body;
    expect(Object.keys(up).sort()).toEqual(["expiresAt", "fileId", "partCount", "partSize", "parts", "storeKey", "uploadId"]);
    expect(up.partSize).toBe(PART);
    expect(up.partCount).toBe(3);
    expect(up.parts).toEqual([1, 2, 3].map((n) => ({ partNumber: n, url: `${env.BASE_URL}/upload/multipart/${up.uploadId}/parts/${n}` })));
    expect(up.storeKey).toMatch(new RegExp(`^uploads/\\d{4}-\\d{2}-\\d{2}/${up.fileId}/big\\.png$`));
    expect(Date.parse(up.expiresAt)).toBeGreaterThan(Date.now());
    expect(await storage(user.id)).toEqual({ used: 0, reserved: BIG.length });

    // part 2 first, then part 1; ask what was received (resume)
    const p2 = await putPart(up.parts[1].url, slice(BIG, PART, 2), user.access);
    expect(p2.status).toBe(200);
    expect(p2.body).toEqual({ partNumber: 2, etag: expect.any(String) });
    const p1 = await putPart(up.parts[0].url, slice(BIG, PART, 1), user.access);
    expect(p1.status).toBe(200);
    const status = await call(`/upload/multipart/${up.uploadId}`, { token: user.access });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ uploadId: up.uploadId, fileId: up.fileId, state: "pending", partCount: 3, partSize: PART, totalBytes: BIG.length });
    expect(status.body.parts).toEqual([
      { partNumber: 1, etag: p1.body.etag, bytes: PART },
      { partNumber: 2, etag: p2.body.etag, bytes: PART },
    ]);
    // re-sending a part replaces it
    const again = await putPart(up.parts[1].url, slice(BIG, PART, 2), user.access);
    expect(again.status).toBe(200);
    const p3 = await putPart(up.parts[2].url, slice(BIG, PART, 3), user.access);
    expect(p3.status).toBe(200);
    expect((await call(`/upload/multipart/${up.uploadId}`, { token: user.access })).body.parts).toHaveLength(3);

    const parts = [p1.body, again.body, p3.body];
    const done = await complete(up, parts, user.access);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ fileId: up.fileId, storeEtag: expect.stringMatching(/^".+"$/), bytes: BIG.length, status: "ready" });
    // a retried complete answers the same
    expect((await complete(up, parts, user.access)).body).toEqual(done.body);

    const stored = await env.BUCKET.get(up.storeKey);
    const back = new Uint8Array(await stored!.arrayBuffer());
    expect(back.length).toBe(BIG.length);
    expect(sameBytes(back, BIG)).toBe(true);
    expect(await sha256(back)).toBe(BIG_SHA);
    expect(stored!.httpEtag).toBe(done.body.storeEtag);
    expect(stored!.httpMetadata?.contentType).toBe("image/png");
    expect(await fileRow(up.fileId)).toMatchObject({ state: "uploaded", sha256: BIG_SHA });
    expect((await ownerDb.prepare("SELECT COUNT(*) AS n FROM upload_parts WHERE upload_id = ?").bind(up.uploadId).first<{ n: number }>())!.n).toBe(0);

    const fin = await finalize(up, done.body.storeEtag, user.access, { width: 1200, height: 3000 });
    expect(fin.status).toBe(200);
    expect(fin.body).toMatchObject({ fileId: up.fileId, bytes: BIG.length, mime: "image/png", width: 1200, height: 3000, duplicates: [] });
    expect(await storage(user.id)).toEqual({ used: BIG.length, reserved: 0 });
    // Finalized, the upload keeps neither its R2 multipart id nor its sha256 (the file has it); a repeat answers alike.
    expect(await uploadRow(up.uploadId)).toMatchObject({ state: "finalized", r2_upload_id: null, sha256: null });
    const repeated = await finalize(up, done.body.storeEtag, user.access);
    expect(repeated.status).toBe(200);
    // (the analysis may have landed meanwhile, which brings the rest up to date)
    expect(repeated.body).toMatchObject({ fileId: up.fileId, url: fin.body.url, cdnUrl: fin.body.cdnUrl, bytes: BIG.length, mime: "image/png", visibility: fin.body.visibility, expiresAt: fin.body.expiresAt });
  });

  it("without sha256 at init the file's sha256 stays null for the analysis job", async () => {
    const other = await signup();
    const res = await init(other.access, { totalBytes: SMALL_PNG.length });
    expect(res.status).toBe(201);
    expect(res.body.partSize).toBe(8 * MiB);
    expect(res.body.partCount).toBe(1);
    const parts = await sendAll(res.body, SMALL_PNG, other.access);
    const done = await complete(res.body, parts, other.access);
    expect(done.status).toBe(200);
    expect((await fileRow(res.body.fileId))!.sha256).toBeNull();
    expect(new Uint8Array(await (await env.BUCKET.get(res.body.storeKey))!.arrayBuffer())).toEqual(SMALL_PNG);
  });

  it("anonymous multipart with the upload token", async () => {
    const res = await init(undefined, { totalBytes: SMALL_PNG.length, sha256: await sha256(SMALL_PNG) });
    expect(res.status).toBe(201);
    expect(res.body.uploadToken.split(".")).toHaveLength(3);
    expect(typeof res.body.deleteToken).toBe("string");
    // an anonymous upload lives as long as its upload token (1 hour), not a day
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeLessThanOrEqual(3600_000);
    const token = res.body.uploadToken;
    expect((await putPart(res.body.parts[0].url, SMALL_PNG)).status).toBe(401);
    const parts = await sendAll(res.body, SMALL_PNG, token);
    expect((await call(`/upload/multipart/${res.body.uploadId}`, { token })).status).toBe(200);
    const done = await complete(res.body, parts, token);
    expect(done.status).toBe(200);
    const fin = await finalize(res.body, done.body.storeEtag, token);
    expect(fin.status).toBe(200);
    expect(fin.body.duplicates).toEqual([]);
  });
});

describe("multipart checks", () => {
  it("init: part size bounds (400), plan size (413), mime (415), quota (402)", async () => {
    const user = await signup();
    const small = await init(user.access, { totalBytes: 10 * MiB, partSize: 5 * MiB - 1 });
    expect(small.status).toBe(400);
    expect(small.body.details.fields[0].path).toBe("partSize");
    expect((await init(user.access, { totalBytes: 10 * MiB, partSize: 100 * MiB + 1 })).status).toBe(400);
    const over = await init(user.access, { totalBytes: 20_000_001 });
    expect(over.status).toBe(413);
    expect(over.body.details.code).toBe("file_too_large");
    expect((await init(user.access, { totalBytes: 1000, mime: "application/pdf" })).status).toBe(415);
    await setStorage(user.id, 2_000_000_000 - 100);
    const quota = await init(user.access, { totalBytes: 1000 });
    expect(quota.status).toBe(402);
    expect(quota.body).toMatchObject({ error: "Payment Required", details: { code: "quota_exceeded" } });
    expect(await storage(user.id)).toEqual({ used: 2_000_000_000 - 100, reserved: 0 });
  });

  it("parts: exact Content-Length required (411 / 400 size_mismatch), part number in range", async () => {
    const user = await signup();
    const up: Init = (await init(user.access, { totalBytes: BIG.length, partSize: PART })).body;
    const short = await putPart(up.parts[0].url, slice(BIG, PART, 1).subarray(0, PART - 1), user.access);
    expect(short.status).toBe(400);
    expect(short.body.details).toEqual({ code: "size_mismatch", expected: PART, received: PART - 1 });
    const last = await putPart(up.parts[2].url, slice(BIG, PART, 1), user.access);
    expect(last.status).toBe(400);
    expect(last.body.details.expected).toBe(BIG.length - 2 * PART);
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(slice(BIG, PART, 3));
        c.close();
      },
    });
    const noLength = await putPart(up.parts[2].url, chunked, user.access);
    expect(noLength.status).toBe(411);
    expect(noLength.body.details.code).toBe("length_required");
    for (const n of [0, 4, 99999]) {
      const res = await putPart(`/upload/multipart/${up.uploadId}/parts/${n}`, new Uint8Array(10), user.access);
      expect(res.status).toBe(400);
      expect(res.body.details.code).toBe("invalid_part_number");
    }
    expect((await uploadRow(up.uploadId))!.state).toBe("pending");
  });

  it.each([
    ["a wrong etag", (p: Part[]) => [p[0], { partNumber: 2, etag: "0".repeat(32) }, p[2]]],
    ["a missing part", (p: Part[]) => [p[0], p[1]]],
    ["a part listed twice", (p: Part[]) => [p[0], p[0], p[2]]],
  ])("complete with %s is 400 invalid_part and ends the upload: no object, no live record, no reservation", async (_name, list) => {
    const user = await signup();
    const up: Init = (await init(user.access, { totalBytes: BIG.length, partSize: PART, sha256: BIG_SHA })).body;
    const parts = await sendAll(up, BIG, user.access, [3, 1, 2]);
    const res = await complete(up, list(parts), user.access);
    expect(res.status).toBe(400);
    expect(res.body.details.code).toBe("invalid_part");
    expect(await objectExists(up.storeKey)).toBe(false);
    expect(await multipartGone(up)).toBe(true);
    expect(await uploadRow(up.uploadId)).toMatchObject({ state: "failed", reserved_bytes: 0 });
    expect((await fileRow(up.fileId))!.state).toBe("failed");
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
    expect((await complete(up, parts, user.access)).status).toBe(410);
  });

  it("finalize before complete is 409; abort then releases everything", async () => {
    const user = await signup();
    const up: Init = (await init(user.access, { totalBytes: BIG.length, partSize: PART, sha256: BIG_SHA })).body;
    const parts = await sendAll(up, BIG, user.access, [3, 1, 2]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: BIG.length });
    // finalize before complete
    const early = await finalize(up, '"x"', user.access);
    expect(early.status).toBe(409);
    expect(early.body.details.code).toBe("not_uploaded");

    const abort = await call(`/upload/multipart/${up.uploadId}`, { method: "DELETE", token: user.access });
    expect(abort.status).toBe(200);
    expect(abort.body).toEqual({ message: "Upload aborted" });
    expect(await objectExists(up.storeKey)).toBe(false);
    expect(await multipartGone(up)).toBe(true);
    expect(await uploadRow(up.uploadId)).toMatchObject({ state: "aborted", reserved_bytes: 0 });
    expect((await fileRow(up.fileId))!.state).toBe("failed");
    expect((await fileRow(up.fileId))!.purged_at).not.toBeNull();
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
    expect((await ownerDb.prepare("SELECT COUNT(*) AS n FROM upload_parts WHERE upload_id = ?").bind(up.uploadId).first<{ n: number }>())!.n).toBe(0);
    // aborting twice is fine; parts and complete after abort are 410
    expect((await call(`/upload/multipart/${up.uploadId}`, { method: "DELETE", token: user.access })).status).toBe(200);
    expect((await putPart(up.parts[0].url, slice(BIG, PART, 1), user.access)).status).toBe(410);
    expect((await complete(up, parts, user.access)).status).toBe(410);
    expect((await call(`/upload/multipart/${up.uploadId}`, { token: user.access })).body.state).toBe("aborted");
  });

  it("a whole-file sha256 that does not match: 400 checksum_mismatch, the assembled object is deleted", async () => {
    const user = await signup();
    const up: Init = (await init(user.access, { totalBytes: BIG.length, partSize: PART, sha256: "ab".repeat(32) })).body;
    const parts = await sendAll(up, BIG, user.access);
    const res = await complete(up, parts, user.access);
    expect(res.status).toBe(400);
    expect(res.body.details.code).toBe("checksum_mismatch");
    expect(await objectExists(up.storeKey)).toBe(false);
    expect(await uploadRow(up.uploadId)).toMatchObject({ state: "failed", reserved_bytes: 0 });
    expect((await fileRow(up.fileId))!.state).toBe("failed");
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });

  it("part 1 with the wrong magic bytes: 415, the whole upload ends and is aborted", async () => {
    const user = await signup();
    const up: Init = (await init(user.access, { totalBytes: BIG.length, partSize: PART, mime: "image/jpeg", filename: "x.jpg" })).body;
    const p2 = await putPart(up.parts[1].url, slice(BIG, PART, 2), user.access);
    expect(p2.status).toBe(200);
    const p1 = await putPart(up.parts[0].url, slice(BIG, PART, 1), user.access);
    expect(p1.status).toBe(415);
    expect(p1.body.details.code).toBe("magic_mismatch");
    expect(await uploadRow(up.uploadId)).toMatchObject({ state: "failed", reserved_bytes: 0 });
    expect(await multipartGone(up)).toBe(true);
    expect(await objectExists(up.storeKey)).toBe(false);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });

  it("someone else's upload is 404 on every multipart route; another file's upload token is 401", async () => {
    const owner = await signup();
    const stranger = await signup();
    const up: Init = (await init(owner.access, { totalBytes: SMALL_PNG.length })).body;
    const anon = (await init(undefined, { totalBytes: SMALL_PNG.length })).body;
    for (const token of [stranger.access]) {
      expect((await putPart(up.parts[0].url, SMALL_PNG, token)).status).toBe(404);
      expect((await call(`/upload/multipart/${up.uploadId}`, { token })).status).toBe(404);
      expect((await complete(up, [{ partNumber: 1, etag: "x" }], token)).status).toBe(404);
      expect((await call(`/upload/multipart/${up.uploadId}`, { method: "DELETE", token })).status).toBe(404);
    }
    expect((await putPart(up.parts[0].url, SMALL_PNG, anon.uploadToken)).status).toBe(401);
    expect((await call(`/upload/multipart/${up.uploadId}`, { method: "DELETE", token: anon.uploadToken })).status).toBe(401);
    expect((await call(`/upload/multipart/${anon.uploadId}`, { token: owner.access })).status).toBe(404);
    expect((await call(`/upload/multipart/${up.uploadId}`, { method: "DELETE" })).status).toBe(401);
    expect(await uploadRow(up.uploadId)).toMatchObject({ state: "pending" });
    expect(await storage(stranger.id)).toEqual({ used: 0, reserved: 0 });
    // a direct upload is not a multipart upload
    const direct = await call("/upload/presign", {
      token: owner.access,
      body: { filename: "a.png", mime: "image/png", bytes: SMALL_PNG.length, sha256: await sha256(SMALL_PNG) },
    });
    expect((await call(`/upload/multipart/${direct.body.uploadId}`, { token: owner.access })).status).toBe(409);
  });
});
