import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, isErrorBody, signup } from "../support/api";
import { SMALL_PNG, directUpload, randomIp, expectNothingLeft, fileRow, finalize, makePng, objectExists, presign, putDirect, sha256, storage, uploadRow } from "./helpers";
import { putVerified } from "../../src/uploads/streams";

const NOTHING_LEFT = { object: false, uploadState: "failed", fileState: "failed", uploadReserved: 0, userReserved: 0 };

describe("direct upload: presign -> PUT -> finalize", () => {
  it("stores the exact bytes and answers the contract's fields at each step", async () => {
    const user = await signup();
    const bytes = makePng(64, 48, 3);
    const pre = await presign({ token: user.access, bytes, filename: "../../etc/My Holiday\u0000 photo.png" });
    expect(pre.status).toBe(201);
    expect(Object.keys(pre.body).sort()).toEqual(["fileId", "message", "storeKey", "uploadId", "uploadUrl"]);
    expect(pre.body.uploadId).toMatch(/^upl_[A-Za-z0-9_-]{21}$/);
    expect(pre.body.fileId).toMatch(/^file_[A-Za-z0-9_-]{21}$/);
    expect(pre.body.uploadUrl).toBe(`${env.BASE_URL}/upload/direct/${pre.body.fileId}`);
    expect(pre.body.storeKey).toMatch(new RegExp(`^uploads/\\d{4}-\\d{2}-\\d{2}/${pre.body.fileId}/My_Holiday_photo\\.png$`));
    expect(pre.body.message).toMatch(/created/i);
    expect(await fileRow(pre.body.fileId)).toMatchObject({ state: "created", user_id: user.id, mime: "image/png", bytes: bytes.byteLength });
    expect(await storage(user.id)).toEqual({ used: 0, reserved: bytes.byteLength });

    const put = await putDirect(pre.body.fileId, bytes, user.access);
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ fileId: pre.body.fileId, url: `${env.IMAGE_URL}/${pre.body.fileId}`, mime: "image/png", bytes: bytes.byteLength, status: "ready" });
    const etag = put.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);

    const stored = await env.BUCKET.get(pre.body.storeKey);
    const back = new Uint8Array(await stored!.arrayBuffer());
    expect(back).toEqual(bytes);
    expect(await sha256(back)).toBe(await sha256(bytes));
    expect(stored!.httpEtag).toBe(etag);
    expect(stored!.httpMetadata?.contentType).toBe("image/png");
    expect(await fileRow(pre.body.fileId)).toMatchObject({ state: "uploaded", sha256: await sha256(bytes), store_etag: etag });

    const fin = await finalize(pre.body, etag, user.access, { width: 64, height: 48 });
    expect(fin.status).toBe(200);
    expect(fin.body).toEqual({
      fileId: pre.body.fileId,
      url: `${env.IMAGE_URL}/${pre.body.fileId}`,
      cdnUrl: `${env.CDN_URL}/${pre.body.storeKey}`,
      mime: "image/png",
      bytes: bytes.byteLength,
      width: 64,
      height: 48,
      nsfwScore: null,
      ageRestricted: false,
      visibility: "public",
      expiresAt: null,
      phash: null,
      duplicates: [],
      analysis: "pending",
      analysisError: null,
      placeholder: null,
      dominantColor: null,
    });
    expect(await storage(user.id)).toEqual({ used: bytes.byteLength, reserved: 0 });
    expect(await fileRow(pre.body.fileId)).toMatchObject({ state: "finalized", analysis: "pending", width: 64, height: 48 });
    expect(await uploadRow(pre.body.uploadId)).toMatchObject({ state: "finalized", reserved_bytes: 0 });
  });

  it("streams a body sent without a length (chunked) through the FixedLengthStream", async () => {
    const user = await signup();
    const bytes = makePng(300, 200, 9);
    const pre = await presign({ token: user.access, bytes });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 10_000) controller.enqueue(bytes.slice(at, at + 10_000));
        controller.close();
      },
    });
    const put = await putDirect(pre.body.fileId, body, user.access);
    expect(put.status).toBe(200);
    expect(new Uint8Array(await (await env.BUCKET.get(pre.body.storeKey))!.arrayBuffer())).toEqual(bytes);
  });

  it("keeps expiresIn, title, description and visibility on the file", async () => {
    const user = await signup();
    const before = Date.now();
    const pre = await presign({ token: user.access, extra: { expiresIn: 3600, visibility: "unlisted", title: "T", description: "D" } });
    expect(pre.status).toBe(201);
    const file = await fileRow(pre.body.fileId);
    expect(file).toMatchObject({ title: "T", description: "D", visibility: "unlisted" });
    expect(file!.expires_at).toBeGreaterThanOrEqual(before + 3600_000);
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    const fin = await finalize(pre.body, put.headers.get("etag")!, user.access);
    expect(fin.body.visibility).toBe("unlisted");
    expect(Date.parse(fin.body.expiresAt)).toBe(file!.expires_at);
  });

  it("titles a file after its original filename when no title is given", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access, filename: "Holiday at sea.png", extra: { title: undefined } });
    expect(pre.status).toBe(201);
    expect((await fileRow(pre.body.fileId))!.title).toBe("Holiday at sea");
    const blank = await presign({ token: user.access, filename: "C:\\pics\\beach.png", extra: { title: "   " } });
    expect((await fileRow(blank.body.fileId))!.title).toBe("beach");
  });
});

describe("anonymous direct upload", () => {
  it("works with the upload token and returns a delete token", async () => {
    const pre = await presign();
    expect(pre.status).toBe(201);
    expect(pre.body.uploadToken.split(".")).toHaveLength(3);
    expect(pre.body.deleteToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = await fileRow(pre.body.fileId);
    expect(file!.user_id).toBeNull();
    expect(file!.delete_token_hash).toBe(await sha256(new TextEncoder().encode(pre.body.deleteToken)));
    expect(file!.delete_token_hash).not.toContain(pre.body.deleteToken);

    const claims = JSON.parse(atob(pre.body.uploadToken.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    expect(claims).toMatchObject({ sub: "anonymous", typ: "upload", fid: pre.body.fileId });
    expect(claims.exp - claims.iat).toBe(3600);

    const put = await putDirect(pre.body.fileId, SMALL_PNG, pre.body.uploadToken);
    expect(put.status).toBe(200);
    const fin = await finalize(pre.body, put.headers.get("etag")!, pre.body.uploadToken);
    expect(fin.status).toBe(200);
    expect(fin.body.duplicates).toEqual([]);
    expect(new Uint8Array(await (await env.BUCKET.get(pre.body.storeKey))!.arrayBuffer())).toEqual(SMALL_PNG);

    // the delete token (not the upload token) lets the anonymous uploader delete the file later
    const wrong = await call(`/files/${pre.body.fileId}`, { method: "DELETE", headers: { "x-delete-token": "A".repeat(43) } });
    expect(wrong.status).toBe(403);
    const del = await call(`/files/${pre.body.fileId}`, { method: "DELETE", headers: { "x-delete-token": pre.body.deleteToken } });
    expect(del.status).toBe(200);
    expect((await fileRow(pre.body.fileId))!.deleted_at).not.toBeNull();
  });

  it("an anonymous PUT without the token is 401, with another file's token 401, and changes nothing", async () => {
    const pre = await presign();
    const other = await presign();
    const none = await putDirect(pre.body.fileId, SMALL_PNG);
    expect(none.status).toBe(401);
    const wrong = await putDirect(pre.body.fileId, SMALL_PNG, other.body.uploadToken);
    expect(wrong.status).toBe(401);
    expect(wrong.body.details.code).toBe("invalid_upload_token");
    const forged = await putDirect(pre.body.fileId, SMALL_PNG, pre.body.uploadToken.slice(0, -4) + "AAAA");
    expect(forged.status).toBe(401);
    expect(await objectExists(pre.body.storeKey)).toBe(false);
    expect((await uploadRow(pre.body.uploadId))!.state).toBe("pending");
    // the right token still works afterwards
    expect((await putDirect(pre.body.fileId, SMALL_PNG, pre.body.uploadToken)).status).toBe(200);
  });

  it("anonymous limits: 10 MB and no private files", async () => {
    const big = await call("/upload/presign", {
      ip: randomIp(),
      body: { filename: "a.png", mime: "image/png", bytes: 10_000_001, sha256: "a".repeat(64) },
    });
    expect(big.status).toBe(413);
    expect(big.body.details.code).toBe("file_too_large");
    const priv = await presign({ extra: { visibility: "private" } });
    expect(priv.status).toBe(400);
    expect(priv.body.details.code).toBe("private_requires_account");
  });
});

describe("presign validation", () => {
  it("415 for a mime outside the allow-list, 413 over the plan, 413 use_multipart over 100 MB", async () => {
    const user = await signup();
    const svg = await presign({ token: user.access, mime: "image/svg+xml" });
    expect(svg.status).toBe(415);
    expect(svg.body).toMatchObject({ error: "Unsupported Media Type", details: { code: "unsupported_media_type" } });
    const over = await call("/upload/presign", { token: user.access, body: { filename: "a.png", mime: "image/png", bytes: 20_000_001, sha256: "a".repeat(64) } });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: "Payload Too Large", details: { code: "file_too_large", limit: 20_000_000, plan: "free" } });

    await env.DB.prepare("UPDATE users SET plan = 'pro' WHERE id = ?").bind(user.id).run();
    const huge = await call("/upload/presign", { token: user.access, body: { filename: "a.png", mime: "image/png", bytes: 150_000_000, sha256: "a".repeat(64) } });
    expect(huge.status).toBe(413);
    expect(huge.body.details.code).toBe("use_multipart");
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });

  it("400 with details.fields for bad fields; the sha256 is stored lower-case", async () => {
    const user = await signup();
    const bad = await call("/upload/presign", {
      token: user.access,
      body: { filename: "", mime: "image/png", bytes: 0, sha256: "xyz", visibility: "secret", expiresIn: 1, extra: 1 },
    });
    expect(bad.status).toBe(400);
    expect(isErrorBody(bad.body)).toBe(true);
    const paths = bad.body.details.fields.map((f: { path: string }) => f.path).sort();
    expect(paths).toEqual(["bytes", "expiresIn", "extra", "filename", "sha256", "visibility"]);
    for (const body of [null, [], "x", { filename: "a.png" }, { filename: "a.png", mime: "image/png", bytes: 1.5, sha256: "a".repeat(64) }]) {
      const res = await call("/upload/presign", { token: user.access, body });
      expect(res.status).toBe(400);
    }
    const malformed = await call("/upload/presign", { token: user.access, raw: "{not json", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);

    const upper = (await sha256(SMALL_PNG)).toUpperCase();
    const ok = await call("/upload/presign", { token: user.access, body: { filename: "x.png", mime: "image/png", bytes: SMALL_PNG.byteLength, sha256: upper } });
    expect(ok.status).toBe(201);
    expect((await uploadRow(ok.body.uploadId))!.sha256).toBe(upper.toLowerCase());
    expect((await putDirect(ok.body.fileId, SMALL_PNG, user.access)).status).toBe(200);
  });
});

describe("direct upload failures leave nothing behind", () => {
  it("checksum mismatch: 400 checksum_mismatch, no object, upload and file failed, reservation released", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access });
    const tampered = SMALL_PNG.slice();
    tampered[tampered.length - 20] ^= 0xff;
    const put = await putDirect(pre.body.fileId, tampered, user.access);
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ error: "Bad Request", details: { code: "checksum_mismatch" } });
    expect(await expectNothingLeft(pre.body, user.id)).toEqual(NOTHING_LEFT);
    expect((await fileRow(pre.body.fileId))!.purged_at).not.toBeNull();
    // the upload is over: a retry is 410
    expect((await putDirect(pre.body.fileId, SMALL_PNG, user.access)).status).toBe(410);
  });

  it("size mismatch (longer and shorter bodies): 400 size_mismatch", async () => {
    const user = await signup();
    for (const bytes of [makePng(9, 8, 7), SMALL_PNG.slice(0, SMALL_PNG.length - 10)]) {
      const pre = await presign({ token: user.access });
      const put = await putDirect(pre.body.fileId, bytes, user.access);
      expect(put.status).toBe(400);
      expect(put.body.details).toMatchObject({ code: "size_mismatch", expected: SMALL_PNG.byteLength });
      expect(await expectNothingLeft(pre.body, user.id)).toEqual(NOTHING_LEFT);
    }
  });

  it("size mismatch of a chunked body (no Content-Length)", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access });
    const longer = new Uint8Array(SMALL_PNG.length + 5);
    longer.set(SMALL_PNG);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(longer.slice(0, 40));
        c.enqueue(longer.slice(40));
        c.close();
      },
    });
    const put = await putDirect(pre.body.fileId, stream, user.access);
    expect(put.status).toBe(400);
    expect(put.body.details).toMatchObject({ code: "size_mismatch", received: longer.length });
    expect(await expectNothingLeft(pre.body, user.id)).toEqual(NOTHING_LEFT);
  });

  it("a chunked body in tiny chunks is stored whole; a shorter one is size_mismatch; one that breaks off or lies is not stored", async () => {
    const user = await signup();
    // Chunks handed out one pull at a time; `fail`: the stream errors after the last one (the client went away).
    const chunked = (bytes: Uint8Array, size: number, fail = false) => {
      let at = 0;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (at < bytes.length) c.enqueue(bytes.slice(at, (at += size)));
          else if (fail) c.error(new Error("client went away"));
          else c.close();
        },
      });
    };
    const whole = await presign({ token: user.access });
    expect((await putDirect(whole.body.fileId, chunked(SMALL_PNG, 5), user.access)).status).toBe(200);
    expect(new Uint8Array(await (await env.BUCKET.get(whole.body.storeKey))!.arrayBuffer())).toEqual(SMALL_PNG);

    const other = await signup(); // nothing else reserved: nothing may be left of this one
    const short = await presign({ token: other.access });
    const put = await putDirect(short.body.fileId, chunked(SMALL_PNG.slice(0, SMALL_PNG.length - 7), 16), other.access);
    expect(put.body.details).toMatchObject({ code: "size_mismatch", received: SMALL_PNG.length - 7 });
    expect(await expectNothingLeft(short.body, other.id)).toEqual(NOTHING_LEFT);

    // Through fetch a client that goes away looks like a short body; the store step itself tells them apart.
    const key = `uploads/test/${crypto.randomUUID()}/cut.png`;
    const expected = { bytes: SMALL_PNG.length, sha256: await sha256(SMALL_PNG), mime: "image/png" as const, fileId: "file_cut" };
    for (const cutAt of [10, 150]) {
      expect(await putVerified(env.BUCKET, key, chunked(SMALL_PNG.slice(0, cutAt), 5, true), expected)).toMatchObject({ ok: false, reason: "interrupted" });
    }
    expect(await env.BUCKET.head(key)).toBeNull();
    const bad = { ...expected, sha256: "0".repeat(64) };
    expect(await putVerified(env.BUCKET, key, chunked(SMALL_PNG, 50), bad)).toMatchObject({ ok: false, reason: "checksum_mismatch", stored: false });
    expect(await env.BUCKET.head(key)).toBeNull();
  });

  it("magic bytes that are not the declared mime: 415 magic_mismatch", async () => {
    const user = await signup();
    const html = new TextEncoder().encode("<html><script>alert(1)</script></html>".padEnd(200, " "));
    const pre = await presign({ token: user.access, bytes: html });
    const put = await putDirect(pre.body.fileId, html, user.access);
    expect(put.status).toBe(415);
    expect(put.body).toMatchObject({ error: "Unsupported Media Type", details: { code: "magic_mismatch" } });
    expect(await expectNothingLeft(pre.body, user.id)).toEqual(NOTHING_LEFT);

    // a real PNG declared as JPEG
    const pre2 = await presign({ token: user.access, mime: "image/jpeg", filename: "a.jpg" });
    const put2 = await putDirect(pre2.body.fileId, SMALL_PNG, user.access, { "content-type": "image/jpeg" });
    expect(put2.status).toBe(415);
    expect(await expectNothingLeft(pre2.body, user.id)).toEqual(NOTHING_LEFT);
  });

  it("a Content-Type naming another image type is 415 before anything is read; the upload stays open", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access, { "content-type": "image/gif" });
    expect(put.status).toBe(415);
    expect(put.body.details.code).toBe("content_type_mismatch");
    expect((await uploadRow(pre.body.uploadId))!.state).toBe("pending");
    expect((await putDirect(pre.body.fileId, SMALL_PNG, user.access, { "content-type": "application/octet-stream" })).status).toBe(200);
  });

  it("another user's fileId is 404 and changes nothing; an unknown id is 404", async () => {
    const owner = await signup();
    const stranger = await signup();
    const pre = await presign({ token: owner.access });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, stranger.access);
    expect(put.status).toBe(404);
    expect(await objectExists(pre.body.storeKey)).toBe(false);
    expect((await uploadRow(pre.body.uploadId))!.state).toBe("pending");
    expect(await storage(stranger.id)).toEqual({ used: 0, reserved: 0 });
    expect((await putDirect("file_doesnotexist00000000", SMALL_PNG, owner.access)).status).toBe(404);
    expect((await putDirect("nonsense", SMALL_PNG, owner.access)).status).toBe(404);
    // a stranger cannot finalize it either
    const fin = await finalize(pre.body, '"x"', stranger.access);
    expect(fin.status).toBe(404);
  });

  it("PUT twice is 409 and keeps the first object", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access });
    const first = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    expect(first.status).toBe(200);
    const second = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    expect(second.status).toBe(409);
    expect(second.body.details.code).toBe("already_uploaded");
    expect(await objectExists(pre.body.storeKey)).toBe(true);
    expect((await uploadRow(pre.body.uploadId))!.state).toBe("uploaded");
  });

  it("finalize before PUT is 409 not_uploaded; then the flow still completes", async () => {
    const user = await signup();
    const pre = await presign({ token: user.access });
    const early = await finalize(pre.body, '"abc"', user.access);
    expect(early.status).toBe(409);
    expect(early.body.details.code).toBe("not_uploaded");
    expect(await objectExists(pre.body.storeKey)).toBe(false);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: SMALL_PNG.byteLength });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    expect((await finalize(pre.body, put.headers.get("etag")!, user.access)).status).toBe(200);
    expect(await storage(user.id)).toEqual({ used: SMALL_PNG.byteLength, reserved: 0 });
  });

  it("finalize with identifiers that do not belong together is 400 upload_mismatch", async () => {
    const user = await signup();
    const a = await directUpload(user.access);
    const pre = await presign({ token: user.access });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, user.access);
    const etag = put.headers.get("etag")!;
    const cases: [Record<string, string>, string][] = [
      [{ fileId: a.pre.body.fileId }, "fileId"],
      [{ storeKey: a.pre.body.storeKey }, "storeKey"],
      [{ storeEtag: '"0123"' }, "storeEtag"],
    ];
    for (const [override, field] of cases) {
      const res = await call("/upload/finalize", {
        token: user.access,
        body: { uploadId: pre.body.uploadId, fileId: pre.body.fileId, storeKey: pre.body.storeKey, storeEtag: etag, ...override },
      });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual({ code: "upload_mismatch", field });
    }
    // the etag is accepted with or without quotes
    expect((await finalize(pre.body, etag.replace(/"/g, ""), user.access)).status).toBe(200);
  });
});
