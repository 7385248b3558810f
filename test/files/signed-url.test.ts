// POST /files/:id/signed-url and /signed-url/revoke (extensions.md § 3): who may make and revoke a file's signed
// links, what the answer looks like, and bad input. What the links then grant: test/serving/signed-links.test.ts.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { call, createKey, isErrorBody, verifiedUser, type TestUser } from "../support/api";
import { fetchRaw, fileRow, IMAGE, seedFile } from "../support/files";
import { directoryDb } from "../../src/platform/data/db";
import { apiKeys } from "../../src/db/schema";

let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => {
  [owner, stranger] = await Promise.all([verifiedUser(), verifiedUser()]);
});

const sign = (id: string, token: string | undefined, body: unknown = { expiresIn: 3600 }) => call(`/files/${id}/signed-url`, { token, body });
const revoke = (id: string, token: string | undefined) => call(`/files/${id}/signed-url/revoke`, { method: "POST", token });

describe("POST /files/:id/signed-url", () => {
  it("gives the owner { url, expiresAt }: {image_url}/<id>?<variant params>&exp=<unix>&sig=<base64url>", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const before = Math.floor(Date.now() / 1000);
    const res = await sign(f.id, owner.access, { expiresIn: 86_400, w: 640, h: 480, fit: "cover", format: "webp" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["expiresAt", "url"]);
    const url = new URL(res.body.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${env.IMAGE_URL}/${f.id}`);
    expect([...url.searchParams.keys()]).toEqual(["w", "h", "fit", "format", "exp", "sig"]);
    expect(url.searchParams.get("w")).toBe("640");
    const exp = Number(url.searchParams.get("exp"));
    expect(exp).toBeGreaterThanOrEqual(before + 86_400 - 1);
    expect(exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 86_400);
    expect(res.body.expiresAt).toBe(new Date(exp * 1000).toISOString());
    expect(url.searchParams.get("sig")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The first link gives the file its salt; the salt stays for later links until a revoke.
    const salt = (await fileRow(f.id))?.signingSalt;
    expect(salt).toBeTruthy();
    expect((await sign(f.id, owner.access)).status).toBe(200);
    expect((await fileRow(f.id))?.signingSalt).toBe(salt);
  });

  it("the plain link has only exp and sig, and opens the private file's bytes", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const res = await sign(f.id, owner.access, { expiresIn: 60 });
    expect([...new URL(res.body.url).searchParams.keys()]).toEqual(["exp", "sig"]);
    expect((await fetchRaw(res.body.url)).status).toBe(200);
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(404); // the plain link is still private
  });

  it("an API key with read may; one without read, a revoked key and an expired key may not", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const reader = await createKey(owner, { permissions: ["read"] });
    expect((await sign(f.id, reader.key)).status).toBe(200);
    expect((await revoke(f.id, reader.key)).status).toBe(200);

    const uploader = await createKey(owner, { permissions: ["upload"] });
    for (const res of [await sign(f.id, uploader.key), await revoke(f.id, uploader.key)]) {
      expect(res.status).toBe(403);
      expect(res.body.details).toMatchObject({ code: "missing_permission", permission: "read" });
    }

    const revoked = await createKey(owner, { permissions: ["read"] });
    expect((await call(`/keys/${revoked.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    const refused = await sign(f.id, revoked.key);
    expect(refused.status).toBe(401);
    expect(refused.body.details.code).toBe("api_key_revoked");

    const expiring = await createKey(owner, { permissions: ["read"], expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await directoryDb(env).update(apiKeys).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(apiKeys.id, expiring.id));
    const expired = await sign(f.id, expiring.key);
    expect(expired.status).toBe(401);
    expect(expired.body.details.code).toBe("api_key_expired");
  });

  it("anonymous -> 401; another user -> 404 for a private and a public file alike, and for unknown ids", async () => {
    const priv = await seedFile(owner.id, { visibility: "private" });
    const pub = await seedFile(owner.id);
    for (const id of [priv.id, pub.id]) {
      const anon = await sign(id, undefined);
      expect(anon.status).toBe(401);
      expect(isErrorBody(anon.body)).toBe(true);
      expect((await revoke(id, undefined)).status).toBe(401);
      const other = await sign(id, stranger.access);
      expect(other.status).toBe(404);
      expect(other.body.details.code).toBe("file_not_found");
      expect((await revoke(id, stranger.access)).status).toBe(404);
    }
    const strangerKey = await createKey(stranger, { permissions: ["read"] });
    expect((await sign(priv.id, strangerKey.key)).status).toBe(404);
    expect((await sign("file_doesnotexist000000000", owner.access)).status).toBe(404);
    expect((await fileRow(priv.id))?.signingSalt).toBeNull(); // nobody else's attempt gave it a salt
  });

  it("a deleted file -> 410; an anonymous upload has no owner to make one", async () => {
    const f = await seedFile(owner.id, { deletedAt: new Date() });
    const res = await sign(f.id, owner.access);
    expect(res.status).toBe(410);
    expect(res.body.details.code).toBe("file_deleted");
    expect((await revoke(f.id, owner.access)).status).toBe(410);
    expect((await sign((await seedFile(null)).id, owner.access)).status).toBe(404);
  });

  it("expiresIn from 60 s to 7 days and valid variant fields, else 400 validation_error", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    expect((await sign(f.id, owner.access, { expiresIn: 604_800 })).status).toBe(200);
    for (const body of [
      {},
      { expiresIn: 59 },
      { expiresIn: 604_801 },
      { expiresIn: 600.5 }, // whole seconds, as every expiresIn
      { expiresIn: "3600" },
      { expiresIn: 3600, w: 0 },
      { expiresIn: 3600, w: 1.5 },
      { expiresIn: 3600, h: 100_000 },
      { expiresIn: 3600, fit: "squeeze" },
      { expiresIn: 3600, format: "tiff" },
      { expiresIn: 3600, q: 50 },
    ]) {
      const res = await sign(f.id, owner.access, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
  });
});

describe("POST /files/:id/signed-url/revoke", () => {
  it("replaces the salt: links made before stop working at once, links made after work", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const old = (await sign(f.id, owner.access)).body.url;
    expect((await fetchRaw(old)).status).toBe(200);
    const res = await revoke(f.id, owner.access);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: "Signed links revoked" });
    const refused = await fetchRaw(old);
    expect(refused.status).toBe(403);
    expect(refused.json.details.code).toBe("invalid_signature");
    const fresh = (await sign(f.id, owner.access)).body.url;
    expect((await fetchRaw(fresh)).status).toBe(200);
  });
});

describe("the OpenAPI document", () => {
  it("describes both routes from their schemas", async () => {
    const doc = (await call("/openapi.json")).body;
    const post = doc.paths["/files/{id}/signed-url"].post;
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "404", "410"]));
    expect(doc.components.schemas.SignedUrlRequest.properties.expiresIn).toMatchObject({ minimum: 60, maximum: 604800 });
    expect(doc.paths["/files/{id}/signed-url/revoke"].post.responses["200"]).toBeDefined();
  });
});
