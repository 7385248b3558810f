/// <reference types="vite/client" />
// POST /upload/url (extensions.md § 2): the worker fetches the image and runs it through presign -> store ->
// finalize in-process. Who may call it, what the answer is, and the tags / album applied afterwards.
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, signup, verifiedUser, type TestUser } from "../support/api";
import { uploadKeys } from "../support/key-set";
import { ownerDb } from "../support/shard-db";
import { SMALL_PNG, fileRow, makePng, sameBytes, sha256, storage } from "./helpers";
import { chunked, fakeRemote, image, uploadUrl, type Remote } from "./remote";
import cubesUrl from "../fixtures/images/cubes.jpg?inline";

const CUBES_JPG = Uint8Array.from(atob(cubesUrl.slice(cubesUrl.indexOf(",") + 1)), (c) => c.charCodeAt(0));

let remote: Remote | null = null;
afterEach(() => {
  remote?.restore();
  remote = null;
});

/** Serves `bytes` at every example.com URL. */
const serve = (bytes: Uint8Array, type?: string) => (remote = fakeRemote(() => image(bytes, type)));

async function stored(fileId: string): Promise<Uint8Array> {
  const row = await fileRow(fileId);
  const object = await env.BUCKET.get(row!.store_key);
  return new Uint8Array(await object!.arrayBuffer());
}

let owner: TestUser;
let uploadKey: string;
let readKey: string;
let revokedKey: string;
let expiredKey: string;

beforeAll(async () => {
  owner = await verifiedUser();
  ({ upload: uploadKey, withoutUpload: readKey, revoked: revokedKey, expired: expiredKey } = await uploadKeys(owner));
});

describe("POST /upload/url: the image is fetched, stored and finalized", () => {
  it("a PNG for a session: 201 with finalize's body, the bytes stored as fetched, quota charged", async () => {
    const user = await signup();
    const png = makePng(16, 16, 41);
    serve(png, "application/octet-stream"); // the remote's type is not what decides
    const res = await uploadUrl({ url: "https://img.example.com/pics/sunset.png?size=large", title: "Sunset", visibility: "unlisted", expiresIn: 3600 }, user.access);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ mime: "image/png", bytes: png.byteLength, visibility: "unlisted", duplicates: [], analysis: "pending" });
    expect(res.body.url).toBe(`http://localhost:8787/i/${res.body.fileId}`);
    expect(res.body.deleteToken).toBeUndefined();
    expect(remote!.fetched).toEqual(["https://img.example.com/pics/sunset.png?size=large"]);
    const row = await fileRow(res.body.fileId);
    expect(row).toMatchObject({ state: "finalized", title: "Sunset", filename: "sunset.png", sha256: await sha256(png), user_id: user.id });
    expect(row!.expires_at).not.toBeNull();
    expect(sameBytes(await stored(res.body.fileId), png)).toBe(true);
    expect(await storage(user.id)).toEqual({ used: png.byteLength, reserved: 0 });
    // The same image again: an exact duplicate (the digest was computed while streaming).
    const again = await uploadUrl({ url: "https://img.example.com/again" }, user.access);
    expect(again.body.duplicates).toEqual([{ fileId: res.body.fileId, url: res.body.url, distance: 0, match: "exact" }]);
  });

  it("a JPEG sent as text/html with an API key holding `upload`", async () => {
    serve(CUBES_JPG, "text/html");
    const res = await uploadUrl({ url: "http://photos.example.com/cubes" }, uploadKey);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ mime: "image/jpeg", bytes: CUBES_JPG.byteLength });
    const row = await fileRow(res.body.fileId);
    expect(row).toMatchObject({ user_id: owner.id, filename: "cubes.jpg", title: "cubes", sha256: await sha256(CUBES_JPG) });
    expect(sameBytes(await stored(res.body.fileId), CUBES_JPG)).toBe(true);
  });

  it("anonymous callers get a delete token; a body without Content-Length is read whole", async () => {
    const png = makePng(8, 8, 42);
    remote = fakeRemote(() => new Response(chunked(png), { headers: { "content-type": "image/png" } }));
    const res = await uploadUrl({ url: "https://example.com/a.png" });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ mime: "image/png", bytes: png.byteLength });
    expect(res.body.deleteToken).toEqual(expect.any(String));
    expect(await fileRow(res.body.fileId)).toMatchObject({ user_id: null, sha256: await sha256(png), state: "finalized" });
    expect(sameBytes(await stored(res.body.fileId), png)).toBe(true);
    const del = await call(`/files/${res.body.fileId}`, { method: "DELETE", headers: { "x-delete-token": res.body.deleteToken } });
    expect(del.status).toBe(200);
    // Anonymous uploads cannot be private, as with presign.
    const priv = await uploadUrl({ url: "https://example.com/a.png", visibility: "private" });
    expect(priv.status).toBe(400);
    expect(priv.body.details.code).toBe("private_requires_account");
  });

  it("a key without `upload` is 403; revoked and expired keys are 401; an upload token is 403", async () => {
    serve(SMALL_PNG);
    const noPerm = await uploadUrl({ url: "https://example.com/a.png" }, readKey);
    expect(noPerm.status).toBe(403);
    expect(noPerm.body).toMatchObject({ error: "Forbidden", details: { code: "missing_permission", permission: "upload" } });
    for (const [key, error] of [
      [revokedKey, "API key has been revoked"],
      [expiredKey, "API key has expired"],
    ]) {
      const refused = await uploadUrl({ url: "https://example.com/a.png" }, key);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe(error);
    }
    const anon = await uploadUrl({ url: "https://example.com/a.png" });
    const token = await call("/upload/presign", { ip: "10.9.9.9", body: { filename: "a.png", mime: "image/png", bytes: SMALL_PNG.byteLength, sha256: await sha256(SMALL_PNG) } });
    const scoped = await uploadUrl({ url: "https://example.com/a.png" }, token.body.uploadToken);
    expect(scoped.status).toBe(403);
    expect(scoped.body.details.code).toBe("upload_token_scope");
    expect(anon.status).toBe(201);
    // None of the refused calls fetched anything.
    expect(remote!.fetched).toHaveLength(1);
  });

  it("validates the body like its neighbours", async () => {
    const user = await signup();
    for (const body of [{}, { url: 42 }, { url: "https://example.com/a.png", extra: true }, { url: "https://example.com/a.png", tags: "a,b" }]) {
      const res = await uploadUrl(body, user.access);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
  });
});

describe("tags and album", () => {
  it("tags and an own album are on the file from finalize on", async () => {
    const user = await signup();
    const album = await call("/albums", { token: user.access, body: { title: "Links" } });
    expect(album.status).toBe(201);
    serve(makePng(8, 8, 43));
    const res = await uploadUrl({ url: "https://example.com/x.png", tags: ["sky", " Sea ", "sky"], albumId: album.body.id }, user.access);
    expect(res.status, res.text).toBe(201);
    const file = await call(`/files/${res.body.fileId}`, { token: user.access });
    expect(file.body.tags).toEqual(["sky", "Sea"]);
    const inAlbum = await ownerDb.prepare("SELECT file_id FROM album_files WHERE album_id = ?").bind(album.body.id).all<{ file_id: string }>();
    expect(inAlbum.results.map((r) => r.file_id)).toEqual([res.body.fileId]);
    expect((await call(`/albums/${album.body.id}`, { token: user.access })).body.fileCount).toBe(1);
  });

  it("someone else's album, public or private, or none at all is 404 album_not_found before anything is fetched (anonymous callers too)", async () => {
    const user = await signup();
    const other = await signup();
    const theirs = await call("/albums", { token: other.access, body: { title: "Theirs" } });
    const hidden = await call("/albums", { token: other.access, body: { title: "Hidden", visibility: "private" } });
    serve(SMALL_PNG);
    for (const albumId of [theirs.body.id, hidden.body.id, "alb_V1StGXR8_Z5jdHi6B-myT", "nonsense"]) {
      const refused = await uploadUrl({ url: "https://example.com/x.png", albumId }, user.access);
      expect(refused.status, albumId).toBe(404);
      expect(refused.body.details.code).toBe("album_not_found");
    }
    const anonymous = await uploadUrl({ url: "https://example.com/x.png", albumId: theirs.body.id });
    expect(anonymous.status).toBe(404);
    expect(anonymous.body.details.code).toBe("album_not_found");
    expect(remote!.fetched).toEqual([]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });
});
