// PATCH /files/:id, DELETE /files/:id and GET /files/:id/download.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, createKey, isErrorBody, signup, verifiedUser, type TestUser } from "../support/api";
import { IMAGE, fetchRaw, fileRow, pngLikeBytes, seedFile, settledCount } from "../support/files";
import { sha256Hex } from "../../src/platform/crypto/crypto";
import { SMALL_PNG, finalize, presign, putDirect } from "../uploads/helpers";
import { storage } from "../support/owners";
import { BASE } from "../support/api";

let owner: TestUser;
let stranger: TestUser;
let keys: { read: string; manage: string; revoked: string };

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await signup();
  const revoked = await createKey(owner, { permissions: ["read", "manage"] });
  await call(`/keys/${revoked.id}`, { method: "DELETE", token: owner.access });
  keys = {
    read: (await createKey(owner, { permissions: ["read", "upload"] })).key,
    manage: (await createKey(owner, { permissions: ["manage"] })).key,
    revoked: revoked.key,
  };
});

describe("PATCH /files/:id", () => {
  it("changes the allowed fields and answers { message, file }", async () => {
    const f = await seedFile(owner.id);
    const res = await call(`/files/${f.id}`, {
      method: "PATCH",
      token: owner.access,
      body: {
        title: "  New title ",
        description: "line one\nline two",
        visibility: "unlisted",
        hotlinkPolicy: "whitelist",
        hotlinkDomains: ["Blog.Example.org", "blog.example.org", "cdn.example.net"],
        tags: ["a", "b", "A"],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("File updated");
    expect(res.body.file).toMatchObject({
      id: f.id,
      title: "New title",
      description: "line one\nline two",
      visibility: "unlisted",
      hotlinkPolicy: "whitelist",
      hotlinkDomains: ["blog.example.org", "cdn.example.net"],
      tags: ["a", "b"],
    });
    const row = await fileRow(f.id);
    expect(row!.updatedAt.getTime()).toBeGreaterThanOrEqual(f.updatedAt.getTime());
  });

  it("expiresIn sets an expiry in seconds; null removes it", async () => {
    const f = await seedFile(owner.id);
    const before = Date.now();
    const res = await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { expiresIn: 3600 } });
    expect(res.status).toBe(200);
    const at = Date.parse(res.body.file.expiresAt);
    expect(at).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(at).toBeLessThan(before + 3_600_000 + 60_000);
    const cleared = await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { expiresIn: null } });
    expect(cleared.body.file.expiresAt).toBeNull();
  });

  it("a file past its new expiry reads 410 at once", async () => {
    const f = await seedFile(owner.id);
    const res = await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { expiresIn: 1 } });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, Date.parse(res.body.file.expiresAt) - Date.now() + 20));
    expect((await call(`/files/${f.id}`)).status).toBe(410);
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(410);
  });

  it("making a file private hides it from everyone else at once", async () => {
    const f = await seedFile(owner.id);
    await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { visibility: "private" } });
    expect((await call(`/files/${f.id}`)).status).toBe(404);
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(404);
  });

  it.each([
    ["viewCount", { viewCount: 1_000_000 }],
    ["userId", { userId: "usr_attacker" }],
    ["storeKey", { storeKey: "uploads/x/y/z" }],
    ["ageRestricted", { ageRestricted: false }],
    ["nsfwScore", { nsfwScore: 0 }],
    ["deletedAt", { deletedAt: null }],
  ])("refuses %s (no mass assignment) and writes nothing", async (field, body) => {
    const f = await seedFile(owner.id, { title: "keep" });
    const res = await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { title: "changed", ...body } });
    expect(res.status).toBe(400);
    expect(res.body.details.fields).toContainEqual({ path: field, message: "Unknown field" });
    expect((await fileRow(f.id))!.title).toBe("keep");
  });

  it.each([
    [{ visibility: "secret" }],
    [{ hotlinkPolicy: "sometimes" }],
    [{ title: "x".repeat(201) }],
    [{ title: "bad\u0000title" }],
    [{ tags: "not-an-array" }],
    [{ tags: Array.from({ length: 31 }, (_, i) => `t${i}`) }],
    [{ hotlinkDomains: ["https://example.com/path"] }],
    [{ expiresIn: -5 }],
    [{ expiresIn: "soon" }],
    [{ expiresIn: 1e12 }],
    [{ expiresIn: 3600.5 }], // whole seconds, as every expiresIn
  ])("400 for %j", async (body) => {
    const f = await seedFile(owner.id);
    const res = await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body });
    expect(res.status).toBe(400);
    expect(isErrorBody(res.body)).toBe(true);
  });

  it("400 for malformed JSON", async () => {
    const f = await seedFile(owner.id);
    const res = await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, raw: "{not json", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
  });

  it("who may patch: owner session and manage key yes; others no", async () => {
    const f = await seedFile(owner.id);
    const priv = await seedFile(owner.id, { visibility: "private" });
    const body = { title: "t" };
    expect((await call(`/files/${f.id}`, { method: "PATCH", token: keys.manage, body })).status).toBe(200);
    const readKey = await call(`/files/${f.id}`, { method: "PATCH", token: keys.read, body });
    expect(readKey.status).toBe(403);
    expect(readKey.body.details.code).toBe("missing_permission");
    expect((await call(`/files/${f.id}`, { method: "PATCH", body })).status).toBe(401);
    expect((await call(`/files/${f.id}`, { method: "PATCH", token: keys.revoked, body })).status).toBe(401);
    const other = await call(`/files/${f.id}`, { method: "PATCH", token: stranger.access, body });
    expect(other.status).toBe(403);
    expect(other.body.details.code).toBe("not_owner");
    expect((await call(`/files/${priv.id}`, { method: "PATCH", token: stranger.access, body })).status).toBe(404);
    const gone = await seedFile(owner.id, { deletedAt: new Date() });
    expect((await call(`/files/${gone.id}`, { method: "PATCH", token: owner.access, body })).status).toBe(410);
  });
});

describe("DELETE /files/:id", () => {
  it("soft-deletes for the owner: 410 afterwards everywhere, out of lists, objects kept until the purge", async () => {
    const f = await seedFile(owner.id);
    const used = await storage(owner.id);
    const res = await call(`/files/${f.id}`, { method: "DELETE", token: owner.access });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: "File deleted" });
    expect((await call(`/files/${f.id}`)).status).toBe(410);
    expect((await call(`/files/${f.id}`, { token: owner.access })).body.details.code).toBe("file_deleted");
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(410);
    expect((await call(`/files/${f.id}/download`, { token: owner.access })).status).toBe(410);
    const list = await call("/files?limit=100", { token: owner.access });
    expect(list.body.files.map((x: any) => x.id)).not.toContain(f.id);
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: owner.access })).status).toBe(410);
    const row = await fileRow(f.id);
    expect(row!.deletedAt).not.toBeNull();
    expect(row!.purgedAt).toBeNull();
    expect(await env.BUCKET.head(f.storeKey)).not.toBeNull(); // removed by the purge job after retention
    expect(await storage(owner.id)).toEqual(used); // quota is released when the objects are purged
  });

  it("works with a manage key; refused for read keys, strangers, anonymous and revoked keys", async () => {
    const f = await seedFile(owner.id);
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: keys.read })).status).toBe(403);
    expect((await call(`/files/${f.id}`, { method: "DELETE" })).status).toBe(401);
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: keys.revoked })).status).toBe(401);
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: stranger.access })).status).toBe(403);
    const priv = await seedFile(owner.id, { visibility: "private" });
    expect((await call(`/files/${priv.id}`, { method: "DELETE", token: stranger.access })).status).toBe(404);
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: keys.manage })).status).toBe(200);
  });

  it("an anonymous upload is deleted with its X-Delete-Token (constant-time check of the hash)", async () => {
    const token = "delete-me-" + crypto.randomUUID();
    const f = await seedFile(null, { deleteTokenHash: await sha256Hex(token) });
    const wrong = await call(`/files/${f.id}`, { method: "DELETE", headers: { "x-delete-token": token + "x" } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.details.code).toBe("invalid_delete_token");
    expect((await call(`/files/${f.id}`, { method: "DELETE", headers: { "x-delete-token": "" } })).status).toBe(403);
    const ok = await call(`/files/${f.id}`, { method: "DELETE", headers: { "x-delete-token": token } });
    expect(ok.status).toBe(200);
    expect((await call(`/files/${f.id}`)).status).toBe(410);
    expect((await call(`/files/${f.id}`, { method: "DELETE", headers: { "x-delete-token": token } })).status).toBe(410);
  });

  it("a wrong delete token on someone's private file answers exactly as an unknown id", async () => {
    const token = "delete-me-" + crypto.randomUUID();
    const priv = await seedFile(null, { visibility: "private", deleteTokenHash: await sha256Hex(token) });
    const ownersPrivate = await seedFile(owner.id, { visibility: "private" });
    const unknown = await call("/files/file_AAAAAAAAAAAAAAAAAAAAA", { method: "DELETE", headers: { "x-delete-token": "x" } });
    for (const id of [priv.id, ownersPrivate.id]) {
      const res = await call(`/files/${id}`, { method: "DELETE", headers: { "x-delete-token": "x" } });
      expect(res.status).toBe(unknown.status);
      expect(res.body).toEqual(unknown.body);
      expect((await call(`/files/${id}`)).status).toBe(404);
    }
    expect((await call(`/files/${priv.id}`, { method: "DELETE", headers: { "x-delete-token": token } })).status).toBe(200);
  });

  it("a delete token does not work on a file that has none", async () => {
    const f = await seedFile(owner.id);
    expect((await call(`/files/${f.id}`, { method: "DELETE", headers: { "x-delete-token": "anything" } })).status).toBe(403);
    expect((await call("/files/file_AAAAAAAAAAAAAAAAAAAAA", { method: "DELETE", headers: { "x-delete-token": "x" } })).status).toBe(404);
  });

  it("takes the file out of its albums and keeps their counts true", async () => {
    const f = await seedFile(owner.id);
    const g = await seedFile(owner.id);
    const album = await call("/albums", { token: owner.access, body: { title: "Trip", fileIds: [f.id, g.id] } });
    expect(album.status).toBe(201);
    await call(`/albums/${album.body.id}`, { method: "PATCH", token: owner.access, body: { coverImageId: f.id } });
    await call(`/files/${f.id}`, { method: "DELETE", token: owner.access });
    const after = await call(`/albums/${album.body.id}`, { token: owner.access });
    expect(after.body.fileCount).toBe(1);
    expect(after.body.coverImageId).toBeNull();
    expect(after.body.files.map((x: any) => x.id)).toEqual([g.id]);
  });
});

describe("GET /files/:id/download", () => {
  it("sends the bytes as an attachment with a safe filename and counts a download", async () => {
    const content = pngLikeBytes(5000, 4);
    const f = await seedFile(owner.id, { content, filename: "holiday.png" });
    const res = await fetchRaw(`${BASE}/files/${f.id}/download`);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(content);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="holiday.png"; filename*=UTF-8''holiday.png`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await settledCount("file_download", f.id, 1)).toBe(1);
    expect((await call(`/files/${f.id}`)).body.downloadCount).toBe(1);
  });

  it.each([
    ['evil"; filename="x.exe', /^attachment; filename="evil__ filename=_x\.exe\.png"; filename\*=UTF-8''evil%22%3B%20filename%3D%22x\.exe\.png$/],
    ["a\r\nSet-Cookie: x=1.png", /^attachment; filename="aSet-Cookie: x=1\.png"; filename\*=UTF-8''aSet-Cookie%3A%20x%3D1\.png$/],
    ["日本語の写真.png", /^attachment; filename="______\.png"; filename\*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E%E3%81%AE%E5%86%99%E7%9C%9F\.png$/],
    ["..\\..\\windows\\system.ini", /^attachment; filename="system\.ini\.png"; filename\*=UTF-8''system\.ini\.png$/],
  ])("hostile filename %j stays inside its parameters", async (filename, expected) => {
    const f = await seedFile(owner.id, { filename, storeKey: `uploads/2026-01-15/x/${crypto.randomUUID()}.png` });
    const res = await fetchRaw(`${BASE}/files/${f.id}/download`);
    expect(res.status).toBe(200);
    const cd = res.headers.get("content-disposition")!;
    expect(cd).toMatch(expected);
    expect(cd).not.toMatch(/[\r\n]/);
  });

  it("a PNG uploaded as index.html / .svg / .exe downloads under a name whose extension is the image type", async () => {
    for (const [name, expected] of [["index.html", "index.html.png"], ["logo.svg", "logo.svg.png"], ["run.exe", "run.exe.png"]]) {
      const p = await presign({ token: owner.access, filename: name });
      const put = await putDirect(p.body.fileId, SMALL_PNG, owner.access);
      expect((await finalize(p.body, put.headers.get("etag")!, owner.access)).status).toBe(200);
      const download = await fetchRaw(`${BASE}/files/${p.body.fileId}/download`);
      expect(download.headers.get("content-disposition")).toBe(`attachment; filename="${expected}"; filename*=UTF-8''${expected}`);
      const link = await fetchRaw(`${IMAGE}/${p.body.fileId}`);
      expect(link.headers.get("content-disposition")).toBe(`inline; filename="${expected}"; filename*=UTF-8''${expected}`);
    }
  });

  it("follows the same visibility and safe-mode rules as GET /files/:id", async () => {
    const priv = await seedFile(owner.id, { visibility: "private" });
    expect((await call(`/files/${priv.id}/download`)).status).toBe(404);
    expect((await call(`/files/${priv.id}/download`, { token: stranger.access })).status).toBe(404);
    expect((await fetchRaw(`${BASE}/files/${priv.id}/download`, { headers: { authorization: `Bearer ${owner.access}` } })).status).toBe(200);
    const nsfw = await seedFile(owner.id, { ageRestricted: true });
    expect((await call(`/files/${nsfw.id}/download`)).status).toBe(403);
    expect((await call(`/files/${nsfw.id}/download`, { token: keys.manage })).status).toBe(403); // key without read
    expect((await fetchRaw(`${BASE}/files/${nsfw.id}/download`, { headers: { authorization: `Bearer ${keys.read}` } })).status).toBe(200);
    const expired = await seedFile(owner.id, { expiresAt: new Date(Date.now() - 1) });
    expect((await call(`/files/${expired.id}/download`)).status).toBe(410);
  });
});
