// Who may use /upload/*: anonymous callers (start only), sessions, API keys with `upload`, upload tokens
// (their own file only); revoked, expired and malformed keys are refused with the contract's texts.
import { beforeAll, describe, expect, it } from "vitest";
import { call, verifiedUser, type TestUser } from "../support/api";
import { uploadKeys } from "../support/key-set";
import { SMALL_PNG, finalize, presign, putDirect, randomIp } from "./helpers";

let owner: TestUser;
let uploadKey: string;
let readKey: string;
let revokedKey: string;
let expiredKey: string;

beforeAll(async () => {
  owner = await verifiedUser();
  ({ upload: uploadKey, withoutUpload: readKey, revoked: revokedKey, expired: expiredKey } = await uploadKeys(owner));
});

const multipartInit = async (token?: string) =>
  call("/upload/multipart/init", { token, ip: token ? undefined : randomIp(), body: { filename: "a.png", mime: "image/png", totalBytes: SMALL_PNG.length } });

describe("starting an upload (presign, multipart/init)", () => {
  it("anonymous, session and an `upload` key may; a key without `upload` is 403", async () => {
    for (const start of [presign, multipartInit]) {
      const run = (token?: string) => (start === presign ? presign({ token }) : multipartInit(token));
      expect((await run()).status).toBe(201);
      expect((await run(owner.access)).status).toBe(201);
      const byKey = await run(uploadKey);
      expect(byKey.status).toBe(201);
      expect(byKey.body.uploadToken).toBeUndefined();
      const noPerm = await run(readKey);
      expect(noPerm.status).toBe(403);
      expect(noPerm.body).toMatchObject({ error: "Forbidden", details: { code: "missing_permission", permission: "upload" } });
    }
  });

  it("revoked, expired and malformed keys get the contract's 401 texts", async () => {
    const revoked = await presign({ token: revokedKey });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe("API key has been revoked");
    const expired = await presign({ token: expiredKey });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe("API key has expired");
    const invalid = await presign({ token: "pk_notARealKey" });
    expect(invalid.status).toBe(401);
    expect(invalid.body.error).toBe("Invalid API key");
    expect((await presign({ token: "a.b.c" })).status).toBe(401);
  });

  it("an upload token cannot start another upload (403)", async () => {
    const anon = await presign();
    const res = await presign({ token: anon.body.uploadToken });
    expect(res.status).toBe(403);
    expect(res.body.details.code).toBe("upload_token_scope");
  });
});

describe("continuing an upload (PUT, finalize)", () => {
  it("the owner's `upload` key can PUT and finalize an upload started by the session, and vice versa", async () => {
    const pre = await presign({ token: owner.access });
    const put = await putDirect(pre.body.fileId, SMALL_PNG, uploadKey);
    expect(put.status).toBe(200);
    expect((await finalize(pre.body, put.headers.get("etag")!, owner.access)).status).toBe(200);

    const byKey = await presign({ token: uploadKey });
    const put2 = await putDirect(byKey.body.fileId, SMALL_PNG, owner.access);
    expect(put2.status).toBe(200);
    expect((await finalize(byKey.body, put2.headers.get("etag")!, uploadKey)).status).toBe(200);
  });

  it("no credentials 401, key without `upload` 403, revoked/expired key 401, upload token of another file 401", async () => {
    const pre = await presign({ token: owner.access });
    const other = await presign();
    expect((await putDirect(pre.body.fileId, SMALL_PNG)).status).toBe(401);
    expect((await putDirect(pre.body.fileId, SMALL_PNG, readKey)).status).toBe(403);
    expect((await putDirect(pre.body.fileId, SMALL_PNG, revokedKey)).body.error).toBe("API key has been revoked");
    expect((await putDirect(pre.body.fileId, SMALL_PNG, expiredKey)).body.error).toBe("API key has expired");
    // an anonymous uploader's token does not reach a user's file
    expect((await putDirect(pre.body.fileId, SMALL_PNG, other.body.uploadToken)).status).toBe(401);
    expect((await finalize(pre.body, '"x"')).status).toBe(401);
    expect((await finalize(pre.body, '"x"', readKey)).status).toBe(403);
    expect((await finalize(pre.body, '"x"', other.body.uploadToken)).status).toBe(401);
    // and a user cannot touch an anonymous upload
    expect((await putDirect(other.body.fileId, SMALL_PNG, owner.access)).status).toBe(404);
    // still intact for its owner
    expect((await putDirect(pre.body.fileId, SMALL_PNG, owner.access)).status).toBe(200);
  });

  it("the routes are in the OpenAPI document", async () => {
    const doc = await call("/openapi.json");
    const paths = Object.keys(doc.body.paths);
    for (const p of [
      "/upload/presign",
      "/upload/direct/{fileId}",
      "/upload/finalize",
      "/upload/multipart/init",
      "/upload/multipart/{uploadId}/parts/{partNumber}",
      "/upload/multipart/{uploadId}",
      "/upload/multipart/complete",
    ]) {
      expect(paths).toContain(p);
    }
    expect(doc.body.paths["/upload/presign"].post.responses).toHaveProperty("402");
    expect(Object.keys(doc.body.paths["/upload/direct/{fileId}"].put.requestBody.content)).toContain("image/png");
  });
});
