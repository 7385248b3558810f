// Byte serving: {image_url}/<id>, {image_url}/<id>/thumb, {cdn_url}/uploads/<date>/<id>/<filename>.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, createKey, signup, verifiedUser, type TestUser } from "../support/api";
import { CDN, IMAGE, fetchRaw, fileRow, pngLikeBytes, seedFile } from "../support/files";
import { cdnUrl } from "../../src/platform/http/urls";
import { edgeCacheKey } from "../../src/serving/edge-cache";
import { accessChanged } from "../../src/serving/access-changed";
import type { FileRow } from "../../src/db/schema";
import { setOwnerBan } from "../support/owners";
import { ownerDb } from "../support/shard-db";

let owner: TestUser;
let file: FileRow;
const content = pngLikeBytes(10_000, 3);

beforeAll(async () => {
  owner = await verifiedUser();
  file = await seedFile(owner.id, { content, filename: "cat.png" });
});

describe("GET {image_url}/<id>", () => {
  it("streams the bytes with type, length, ETag and the safety headers", async () => {
    const res = await fetchRaw(`${IMAGE}/${file.id}`);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(content);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-length")).toBe(String(content.byteLength));
    expect(res.headers.get("etag")).toBe(`"${file.storeEtag}"`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
  });

  it("answers 304 to a matching If-None-Match (also W/ and lists) and 200 to a stale one", async () => {
    const etag = `"${file.storeEtag}"`;
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, "*"]) {
      const res = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { "if-none-match": inm } });
      expect(res.status, inm).toBe(304);
      expect(res.bytes.byteLength).toBe(0);
      expect(res.headers.get("etag")).toBe(etag);
    }
    const stale = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { "if-none-match": '"something-else"' } });
    expect(stale.status).toBe(200);
  });

  it("serves a single Range as 206 with Content-Range", async () => {
    const res = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { range: "bytes=100-199" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes 100-199/${content.byteLength}`);
    expect(res.headers.get("content-length")).toBe("100");
    expect(res.bytes).toEqual(content.slice(100, 200));

    const open = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { range: "bytes=9990-" } });
    expect(open.status).toBe(206);
    expect(open.bytes).toEqual(content.slice(9990));

    const suffix = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { range: "bytes=-5" } });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get("content-range")).toBe(`bytes 9995-9999/10000`);
    expect(suffix.bytes).toEqual(content.slice(9995));

    const clipped = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { range: "bytes=9000-999999" } });
    expect(clipped.status).toBe(206);
    expect(clipped.headers.get("content-range")).toBe(`bytes 9000-9999/10000`);
  });

  it("answers 416 to a range past the end and ignores malformed or multi ranges", async () => {
    const res = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { range: "bytes=10000-" } });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe("bytes */10000");
    for (const range of ["bytes=0-1,5-6", "lines=1-2", "bytes=abc", "bytes=50-10"]) {
      const full = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { range } });
      expect(full.status, range).toBe(200);
      expect(full.bytes.byteLength).toBe(content.byteLength);
    }
  });

  it("honours If-Range only when it names the current ETag", async () => {
    const same = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { range: "bytes=0-9", "if-range": `"${file.storeEtag}"` } });
    expect(same.status).toBe(206);
    const other = await fetchRaw(`${IMAGE}/${file.id}`, { headers: { range: "bytes=0-9", "if-range": '"old"' } });
    expect(other.status).toBe(200);
  });

  it("answers HEAD with the headers and no body", async () => {
    const res = await fetchRaw(`${IMAGE}/${file.id}`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.bytes.byteLength).toBe(0);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("etag")).toBe(`"${file.storeEtag}"`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("404s unknown and malformed ids with a JSON error", async () => {
    for (const id of ["file_AAAAAAAAAAAAAAAAAAAAA", "nope", "file_%00"]) {
      const res = await fetchRaw(`${IMAGE}/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.json.error).toBe("Not Found");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("404s files that are not finalized", async () => {
    const pending = await seedFile(owner.id, { state: "uploaded" });
    expect((await fetchRaw(`${IMAGE}/${pending.id}`)).status).toBe(404);
  });

  it("serves unsafe stored types as an opaque download type", async () => {
    const svg = await seedFile(owner.id, { mime: "image/svg+xml", content: new TextEncoder().encode("<svg onload=alert(1)>") });
    const res = await fetchRaw(`${IMAGE}/${svg.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
  });
});

describe("gone and private files on byte links", () => {
  const past = () => new Date(Date.now() - 1000);
  it.each([
    ["deleted", { deletedAt: past() }],
    ["expired", { expiresAt: past() }],
    ["banned", { bannedAt: past() }],
    ["hidden", { hiddenAt: past() }],
    ["quarantined", { quarantinedAt: past() }],
  ])("%s -> 410", async (_name, overrides) => {
    const f = await seedFile(owner.id, overrides);
    const res = await fetchRaw(`${IMAGE}/${f.id}`);
    expect(res.status).toBe(410);
    expect(res.json.error).toBe("Gone");
    expect((await fetchRaw(`${IMAGE}/${f.id}/thumb`)).status).toBe(410);
    expect((await fetchRaw(cdnUrl(env, f.storeKey))).status).toBe(410);
  });

  it("a banned owner's files are 410", async () => {
    const banned = await signup();
    const f = await seedFile(banned.id);
    await setOwnerBan(banned.id);
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(410);
  });

  it("the ban on the owner's shard decides, not the directory's copy; lifting it there restores the bytes", async () => {
    const u = await signup();
    const f = await seedFile(u.id);
    const links = [`${IMAGE}/${f.id}`, cdnUrl(env, f.storeKey)];
    await setOwnerBan(u.id, Date.now(), "directory");
    for (const url of links) expect((await fetchRaw(url)).status, url).toBe(200);
    await setOwnerBan(u.id, Date.now(), "shard");
    for (const url of links) expect((await fetchRaw(url)).status, url).toBe(410);
    await setOwnerBan(u.id, null, "shard");
    for (const url of links) expect((await fetchRaw(url)).status, url).toBe(200);
  });

  it("a file whose expiry is in the future still serves", async () => {
    const f = await seedFile(owner.id, { expiresAt: new Date(Date.now() + 60_000) });
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(200);
  });

  it("private: 404 without credentials, with someone else's, with a bad token; bytes for the owner's Bearer", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const stranger = await signup();
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(404);
    expect((await fetchRaw(`${IMAGE}/${f.id}`, { headers: { authorization: `Bearer ${stranger.access}` } })).status).toBe(404);
    expect((await fetchRaw(`${IMAGE}/${f.id}`, { headers: { authorization: "Bearer garbage.token.x" } })).status).toBe(404);
    const mine = await fetchRaw(`${IMAGE}/${f.id}`, { headers: { authorization: `Bearer ${owner.access}` } });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("cache-control")).toBe("private, no-cache");
    const deleted = await seedFile(owner.id, { visibility: "private", deletedAt: new Date(Date.now() - 1) });
    expect((await fetchRaw(`${IMAGE}/${deleted.id}`)).status).toBe(404); // existence of private things is not revealed
  });

  it("an API key without `read` reads no bytes: 403 on every byte link, whether or not the file exists", async () => {
    const f = await seedFile(owner.id, { visibility: "private", thumb: pngLikeBytes(300, 2) });
    const [uploadOnly, reader, strangerReader] = await Promise.all([
      createKey(owner, { permissions: ["upload"] }),
      createKey(owner, { permissions: ["read"] }),
      verifiedUser().then((s) => createKey(s, { permissions: ["read", "upload"] })),
    ]);
    const links = [`${IMAGE}/${f.id}`, `${IMAGE}/${f.id}/thumb`, cdnUrl(env, f.storeKey)];
    const as = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
    const replies = await Promise.all(links.map((url) => fetchRaw(url, as(uploadOnly.key))));
    for (const res of replies) {
      expect(res.status).toBe(403);
      expect(res.json.details.code).toBe("missing_permission");
    }
    const unknown = await fetchRaw(`${IMAGE}/file_AAAAAAAAAAAAAAAAAAAAA`, as(uploadOnly.key));
    expect(unknown.status).toBe(403); // the same answer: existence is not revealed
    for (const url of links) {
      expect((await fetchRaw(url, as(reader.key))).status, url).toBe(200);
      expect((await fetchRaw(url, as(strangerReader.key))).status, url).toBe(404);
    }
    // The API answers the upload-only key the same way.
    expect((await call(`/files/${f.id}/download`, { token: uploadOnly.key })).status).toBe(403);
  });

  it("unlisted files serve by link", async () => {
    const f = await seedFile(owner.id, { visibility: "unlisted" });
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(200);
  });

  it("age-restricted files serve on byte links (safe mode applies to the API and pages)", async () => {
    const f = await seedFile(owner.id, { ageRestricted: true, nsfwScore: 0.97 });
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(200);
  });
});

describe("thumbnails", () => {
  it("serves the thumbnail object when analysis made one", async () => {
    const thumb = pngLikeBytes(300, 9);
    const f = await seedFile(owner.id, { thumb });
    const res = await fetchRaw(`${IMAGE}/${f.id}/thumb`);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(thumb);
    expect(res.headers.get("content-type")).toBe("image/webp");
    expect(res.headers.get("etag")).toMatch(/^".+"$/);
    const again = await fetchRaw(`${IMAGE}/${f.id}/thumb`, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
    const head = await fetchRaw(`${IMAGE}/${f.id}/thumb`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe("300");
    const range = await fetchRaw(`${IMAGE}/${f.id}/thumb`, { headers: { range: "bytes=0-9" } });
    expect(range.status).toBe(206);
    expect(range.bytes).toEqual(thumb.slice(0, 10));
  });

  it("serves a small 'Processing' placeholder, never the original, while analysis is pending", async () => {
    const f = await seedFile(owner.id, { thumbKey: null, analysis: "pending", content: pngLikeBytes(200_000, 4) });
    const res = await fetchRaw(`${IMAGE}/${f.id}/thumb`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("x-thumbnail")).toBe("pending");
    expect(res.bytes.byteLength).toBeLessThan(1000);
    expect(res.text).toContain("Processing");
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    const again = await fetchRaw(`${IMAGE}/${f.id}/thumb`, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
    const head = await fetchRaw(`${IMAGE}/${f.id}/thumb`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.bytes.byteLength).toBe(0);
  });

  it("a refused image (analysis failed: a pixel bomb) is never its own thumbnail", async () => {
    const bomb = await seedFile(owner.id, {
      thumbKey: null,
      analysis: "failed",
      analysisFailure: "pixel_limit",
      analysisError: "image too large: 20000x20000 is over 40 megapixels",
      content: pngLikeBytes(389_000, 5),
    });
    const res = await fetchRaw(`${IMAGE}/${bomb.id}/thumb`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-thumbnail")).toBe("unavailable");
    expect(res.text).toContain("No preview");
    expect(res.bytes.byteLength).toBeLessThan(1000);
  });

  it("placeholders follow the access rules of the file", async () => {
    const hidden = await seedFile(owner.id, { thumbKey: null, analysis: "pending", visibility: "private" });
    expect((await fetchRaw(`${IMAGE}/${hidden.id}/thumb`)).status).toBe(404);
    const mine = await fetchRaw(`${IMAGE}/${hidden.id}/thumb`, { headers: { authorization: `Bearer ${owner.access}` } });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("cache-control")).toBe("private, max-age=60");
    const deleted = await seedFile(owner.id, { thumbKey: null, analysis: "pending", deletedAt: new Date(Date.now() - 1) });
    expect((await fetchRaw(`${IMAGE}/${deleted.id}/thumb`)).status).toBe(410);
  });
});

describe("GET {cdn_url}/uploads/<date>/<id>/<filename>", () => {
  it("serves the object under its key with immutable caching", async () => {
    const res = await fetchRaw(cdnUrl(env, file.storeKey));
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(content);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("supports ETag, Range and HEAD like the short link", async () => {
    const url = cdnUrl(env, file.storeKey);
    expect((await fetchRaw(url, { headers: { "if-none-match": `"${file.storeEtag}"` } })).status).toBe(304);
    expect((await fetchRaw(url, { headers: { range: "bytes=0-0" } })).status).toBe(206);
    const head = await fetchRaw(url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.bytes.byteLength).toBe(0);
  });

  it("404s a path whose date or filename does not match the stored key", async () => {
    expect((await fetchRaw(`${CDN}/uploads/2020-01-01/${file.id}/cat.png`)).status).toBe(404);
    expect((await fetchRaw(`${CDN}/uploads/2026-01-15/${file.id}/dog.png`)).status).toBe(404);
    expect((await fetchRaw(`${CDN}/uploads/2026-01-15/${file.id}`)).status).toBe(404);
  });

  it("handles percent-encoded filenames", async () => {
    const f = await seedFile(owner.id, { filename: "été à la plage.png" });
    const res = await fetchRaw(cdnUrl(env, f.storeKey));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain("filename*=UTF-8''%C3%A9t%C3%A9%20%C3%A0%20la%20plage.png");
  });
});

describe("edge cache", () => {
  it("a whole GET fills caches.default; a purge removes the entry", async () => {
    const f = await seedFile(owner.id);
    const key = edgeCacheKey(env, f.id, "original");
    const cache = (caches as unknown as { default: Cache }).default;
    await fetchRaw(`${IMAGE}/${f.id}`);
    let cached: Response | undefined;
    for (let i = 0; i < 50 && !cached; i++) {
      cached = await cache.match(key);
      if (!cached) await new Promise((r) => setTimeout(r, 20));
    }
    expect(cached, "entry written by waitUntil").toBeDefined();
    expect(new Uint8Array(await cached!.arrayBuffer()).byteLength).toBe(f.bytes);

    // Served from the cache even when the object is gone from R2...
    await env.BUCKET.delete(f.storeKey);
    const hit = await fetchRaw(`${IMAGE}/${f.id}`);
    expect(hit.status).toBe(200);
    expect(hit.bytes.byteLength).toBe(f.bytes);
    // ...but never past the access checks: a deleted file is 410 although its bytes are cached.
    await ownerDb.prepare("UPDATE files SET deleted_at = ? WHERE id = ?").bind(Date.now(), f.id).run();
    expect((await fetchRaw(`${IMAGE}/${f.id}`)).status).toBe(410);

    await accessChanged(env, { files: [(await fileRow(f.id))!] });
    expect(await cache.match(key)).toBeUndefined();
  });
});
