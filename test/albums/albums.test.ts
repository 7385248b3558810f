// The albums API: CRUD, membership, counts, the visibility matrix and password-protected albums.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, createKey, isErrorBody, signup, verifiedUser, type TestUser } from "../support/api";
import { seedFile, settledCount } from "../support/files";
import { checkAlbumPassword } from "../../src/albums/service";
import { loadAlbum } from "../../src/albums/queries";
import { shardDb } from "../../src/platform/data/db";
import { shardOfIdIn } from "../../src/platform/data/shards";
import { ANONYMOUS_VIEWER } from "../../src/serving/access";
import { RateLimitError } from "../../src/platform/errors/errors";
import { setOwnerBan, setOwnerDeleted } from "../support/owners";
import { ownerDb } from "../support/shard-db";
import { clearOfWindowEdge } from "../support/clock";
import { ALBUMS } from "../../src/config";

let owner: TestUser;
let stranger: TestUser;
let adult: TestUser;
let keys: { read: string; manage: string; upload: string; revoked: string };

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await signup();
  adult = await signup();
  await call("/account", { method: "PATCH", token: adult.access, body: { ageConfirmed: true, safeMode: false } });
  const revoked = await createKey(owner, { permissions: ["read", "manage"] });
  await call(`/keys/${revoked.id}`, { method: "DELETE", token: owner.access });
  keys = {
    read: (await createKey(owner, { permissions: ["read"] })).key,
    manage: (await createKey(owner, { permissions: ["manage"] })).key,
    upload: (await createKey(owner, { permissions: ["upload"] })).key,
    revoked: revoked.key,
  };
});

async function newAlbum(body: Record<string, unknown> = {}, token = owner.access) {
  const res = await call("/albums", { token, body: { title: "Holiday", ...body } });
  if (res.status !== 201) throw new Error(`album creation failed: ${res.status} ${res.text}`);
  return res.body;
}

async function albumRow(id: string) {
  return ownerDb.prepare("SELECT file_count, view_count, updated_at, cover_file_id FROM albums WHERE id = ?").bind(id).first<any>();
}

describe("POST /albums", () => {
  it("creates the album with only the caller's own live files", async () => {
    const mine = await seedFile(owner.id);
    const mine2 = await seedFile(owner.id);
    const theirs = await seedFile(stranger.id);
    const deleted = await seedFile(owner.id, { deletedAt: new Date() });
    const res = await call("/albums", {
      token: owner.access,
      body: {
        title: "Summer",
        description: "beach days",
        visibility: "unlisted",
        tags: ["beach"],
        fileIds: [mine.id, mine2.id, mine.id, theirs.id, deleted.id, "file_AAAAAAAAAAAAAAAAAAAAA", "junk"],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: "Summer",
      description: "beach days",
      visibility: "unlisted",
      tags: ["beach"],
      url: `${env.SITE_URL}/a/${res.body.id}`,
      coverImageId: null,
      passwordProtected: false,
      viewCount: 0,
      fileCount: 2,
    });
    expect(res.body.id).toMatch(/^alb_[A-Za-z0-9_-]{21}$/);
    expect(res.body.createdAt).toBe(res.body.updatedAt);
    expect(res.body).not.toHaveProperty("password");
    expect(res.body).not.toHaveProperty("passwordHash");
  });

  it("defaults to public with no files", async () => {
    const a = await newAlbum();
    expect(a).toMatchObject({ visibility: "public", fileCount: 0, tags: [], description: "" });
  });

  it.each([
    [{}],
    [{ title: "   " }],
    [{ title: "x", visibility: "secret" }],
    [{ title: "x", password: "abc" }],
    [{ title: "x", fileIds: "file_1" }],
    [{ title: "x", viewCount: 5 }],
    [{ title: "x", userId: "usr_other" }],
  ])("400 for %j", async (body) => {
    const res = await call("/albums", { token: owner.access, body });
    expect(res.status).toBe(400);
    expect(isErrorBody(res.body)).toBe(true);
  });

  it("needs a session or a manage key", async () => {
    expect((await call("/albums", { body: { title: "x" } })).status).toBe(401);
    expect((await call("/albums", { token: keys.read, body: { title: "x" } })).status).toBe(403);
    expect((await call("/albums", { token: keys.revoked, body: { title: "x" } })).status).toBe(401);
    expect((await call("/albums", { token: keys.manage, body: { title: "x" } })).status).toBe(201);
  });
});

describe("GET /albums", () => {
  it("lists the caller's albums, newest first, with file counts and pagination", async () => {
    const u = await verifiedUser();
    const f = await seedFile(u.id);
    const a1 = await newAlbum({ title: "first" }, u.access);
    await new Promise((r) => setTimeout(r, 5));
    const a2 = await newAlbum({ title: "second", fileIds: [f.id], visibility: "private" }, u.access);
    await newAlbum({ title: "not mine" }, stranger.access);
    const res = await call("/albums", { token: u.access });
    expect(res.status).toBe(200);
    expect(res.body.albums.map((a: any) => a.id)).toEqual([a2.id, a1.id]);
    expect(res.body.albums[0]).toMatchObject({ title: "second", fileCount: 1, visibility: "private", coverImageId: null });
    expect(Object.keys(res.body.albums[0]).sort()).toEqual(
      ["coverImageId", "createdAt", "description", "fileCount", "id", "passwordProtected", "tags", "title", "updatedAt", "url", "viewCount", "visibility"].sort(),
    );
    expect(res.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, hasMore: false });
    const page = await call("/albums?limit=1&offset=1", { token: u.access });
    expect(page.body.albums.map((a: any) => a.id)).toEqual([a1.id]);
    expect(page.body.pagination).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false });
    expect((await call("/albums?limit=0", { token: u.access })).status).toBe(400);
  });

  it("read keys yes; other keys, anonymous and revoked keys no", async () => {
    expect((await call("/albums", { token: keys.read })).status).toBe(200);
    expect((await call("/albums", { token: keys.upload })).status).toBe(403);
    expect((await call("/albums", { token: keys.manage })).status).toBe(403);
    expect((await call("/albums")).status).toBe(401);
    expect((await call("/albums", { token: keys.revoked })).status).toBe(401);
  });
});

describe("GET /albums/:id", () => {
  it("returns the album with its files as list items, in the order added, and counts a view", async () => {
    const f1 = await seedFile(owner.id, { title: "one" });
    const f2 = await seedFile(owner.id, { title: "two" });
    const a = await newAlbum({ fileIds: [f1.id] });
    await call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: [f2.id] } });
    const res = await call(`/albums/${a.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.id, title: "Holiday", fileCount: 2 });
    expect(res.body.files.map((f: any) => f.id)).toEqual([f1.id, f2.id]);
    expect(Object.keys(res.body.files[0]).sort()).toEqual(
      ["ageRestricted", "bytes", "createdAt", "dominantColor", "height", "id", "mime", "placeholder", "thumbnailUrl", "title", "url", "viewCount", "visibility", "width"].sort(),
    );
    expect(res.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, hasMore: false });
    const paged = await call(`/albums/${a.id}?limit=1&offset=1`);
    expect(paged.body.files.map((f: any) => f.id)).toEqual([f2.id]);
    expect(await settledCount("album_view", a.id, 2)).toBe(2);
    expect((await call(`/albums/${a.id}`)).body.viewCount).toBeGreaterThanOrEqual(2);
  });

  it.each(["public", "unlisted", "password"] as const)(
    "a %s album's count and cover follow what the viewer may read (a private cover is never shown)",
    async (kind) => {
      const [pub1, pub2, priv] = await Promise.all([seedFile(owner.id), seedFile(owner.id), seedFile(owner.id, { visibility: "private" })]);
      const a = await newAlbum({
        fileIds: [pub1.id, priv.id, pub2.id],
        ...(kind === "password" ? { password: "pw for cover" } : { visibility: kind }),
      });
      await call(`/albums/${a.id}`, { method: "PATCH", token: owner.access, body: { coverImageId: priv.id } });
      const headers = kind === "password" ? { "x-album-password": "pw for cover" } : undefined;
      for (const token of [undefined, stranger.access]) {
        const seen = await call(`/albums/${a.id}`, { token, headers });
        expect(seen.status).toBe(200);
        expect(seen.body.files.map((f: any) => f.id).sort()).toEqual([pub1.id, pub2.id].sort());
        expect(seen.body.fileCount).toBe(2);
        expect(seen.body.coverImageId).toBeNull();
        expect(JSON.stringify(seen.body)).not.toContain(priv.id);
      }
      const mine = await call(`/albums/${a.id}`, { token: owner.access });
      expect(mine.body).toMatchObject({ fileCount: 3, coverImageId: priv.id });
      // A visible cover is shown to everyone.
      await call(`/albums/${a.id}`, { method: "PATCH", token: owner.access, body: { coverImageId: pub2.id } });
      expect((await call(`/albums/${a.id}`, { headers })).body.coverImageId).toBe(pub2.id);
    },
  );

  it("shows strangers only live, non-private files, and no age-restricted ones under safe mode", async () => {
    const pub = await seedFile(owner.id);
    const priv = await seedFile(owner.id, { visibility: "private" });
    const nsfw = await seedFile(owner.id, { ageRestricted: true });
    const a = await newAlbum({ fileIds: [pub.id, priv.id, nsfw.id] });
    await ownerDb.prepare("UPDATE files SET banned_at = ? WHERE id = ?").bind(Date.now(), pub.id).run();
    const pub2 = await seedFile(owner.id);
    await call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: [pub2.id] } });
    // Files added in one request share their time (then ordered by id), so compare as sets.
    const ids = async (token?: string) => (await call(`/albums/${a.id}`, { token })).body.files.map((f: any) => f.id).sort();
    expect(await ids()).toEqual([pub2.id]);
    expect(await ids(stranger.access)).toEqual([pub2.id]);
    expect(await ids(adult.access)).toEqual([nsfw.id, pub2.id].sort());
    expect(await ids(owner.access)).toEqual([priv.id, nsfw.id, pub2.id].sort());
  });

  it("visibility matrix", async () => {
    const pub = await newAlbum({ visibility: "public" });
    const unl = await newAlbum({ visibility: "unlisted" });
    const prv = await newAlbum({ visibility: "private" });
    const cases: [string, string | undefined, number, number, number][] = [
      ["anonymous", undefined, 200, 200, 404],
      ["owner", owner.access, 200, 200, 200],
      ["stranger", stranger.access, 200, 200, 404],
      ["owner's read key", keys.read, 200, 200, 200],
      ["owner's key without read", keys.manage, 403, 403, 403],
      ["revoked key", keys.revoked, 401, 401, 401],
    ];
    for (const [name, token, p, u, v] of cases) {
      expect((await call(`/albums/${pub.id}`, { token })).status, `${name} public`).toBe(p);
      expect((await call(`/albums/${unl.id}`, { token })).status, `${name} unlisted`).toBe(u);
      expect((await call(`/albums/${prv.id}`, { token })).status, `${name} private`).toBe(v);
    }
  });

  it("404s unknown ids, malformed ids and albums of banned owners", async () => {
    expect((await call("/albums/alb_AAAAAAAAAAAAAAAAAAAAA")).status).toBe(404);
    expect((await call("/albums/whatever")).status).toBe(404);
    const u = await signup();
    const a = await newAlbum({}, u.access);
    await setOwnerBan(u.id);
    expect((await call(`/albums/${a.id}`)).status).toBe(404);
  });

  it("the owner's state on its shard decides whether its albums show, not the directory's copy", async () => {
    const u = await signup();
    const a = await newAlbum({}, u.access);
    await setOwnerBan(u.id, Date.now(), "directory");
    expect((await call(`/albums/${a.id}`)).status).toBe(200);
    await setOwnerBan(u.id, Date.now(), "shard");
    expect((await call(`/albums/${a.id}`)).status).toBe(404);
    await setOwnerBan(u.id, null, "shard");
    expect((await call(`/albums/${a.id}`)).status).toBe(200);
    await setOwnerDeleted(u.id, Date.now(), "shard");
    expect((await call(`/albums/${a.id}`)).status).toBe(404);
  });
});

describe("password-protected albums", () => {
  it("401 without the password, 403 with a wrong one, 200 with the right one; the owner needs none", async () => {
    const f = await seedFile(owner.id);
    const a = await newAlbum({ password: "open sesame", fileIds: [f.id] });
    expect(a.passwordProtected).toBe(true);
    const missing = await call(`/albums/${a.id}`);
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: "Unauthorized", details: { code: "album_password_required" } });
    const wrong = await call(`/albums/${a.id}`, { headers: { "x-album-password": "open sesame!" }, ip: "198.51.100.1" });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ error: "Forbidden", details: { code: "invalid_album_password" } });
    const right = await call(`/albums/${a.id}`, { headers: { "x-album-password": "open sesame" } });
    expect(right.status).toBe(200);
    expect(right.body.files.map((x: any) => x.id)).toEqual([f.id]);
    expect((await call(`/albums/${a.id}`, { token: owner.access })).status).toBe(200);
    // Stored hashed, never in clear.
    const row = await ownerDb.prepare("SELECT password_hash AS h FROM albums WHERE id = ?").bind(a.id).first<{ h: string }>();
    expect(row!.h).toMatch(/^pbkdf2-sha256\$/);
    expect(row!.h).not.toContain("open sesame");
  });

  it("rate limits repeated wrong passwords per album and client (429), without affecting other clients", async () => {
    clearOfWindowEdge(ALBUMS.passwordWindowSeconds);
    const a = await newAlbum({ password: "the right one" });
    const ip = "203.0.113.77";
    for (let i = 0; i < 10; i++) {
      expect((await call(`/albums/${a.id}`, { headers: { "x-album-password": `guess ${i}` }, ip })).status).toBe(403);
    }
    const limited = await call(`/albums/${a.id}`, { headers: { "x-album-password": "guess 11" }, ip });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
    expect(limited.body.retryAfter).toBeGreaterThan(0);
    expect(limited.headers.get("retry-after")).toBe(String(limited.body.retryAfter));
    // Even the right password waits: the lock is what makes guessing slow.
    expect((await call(`/albums/${a.id}`, { headers: { "x-album-password": "the right one" }, ip })).status).toBe(429);
    // Another client is unaffected.
    expect((await call(`/albums/${a.id}`, { headers: { "x-album-password": "the right one" }, ip: "203.0.113.78" })).status).toBe(200);
  });

  it("the gate itself: 100 parallel checks verify at most the window's 10 guesses; the right one last is refused", async () => {
    clearOfWindowEdge(ALBUMS.passwordWindowSeconds);
    const a = await newAlbum({ password: "the right one" });
    const loaded = await loadAlbum(shardDb(env, shardOfIdIn(env, "alb", a.id)), a.id);
    const guesses = Array.from({ length: 99 }, (_, i) => `guess ${i}`).concat("the right one");
    const outcomes = await Promise.all(
      guesses.map((g) =>
        checkAlbumPassword(env, loaded!.album, ANONYMOUS_VIEWER, "203.0.113.199", g).then(
          () => "accepted",
          (err) => (err instanceof RateLimitError ? "limited" : err.details?.code),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === "invalid_album_password")).toHaveLength(10);
    expect(outcomes.filter((o) => o === "limited")).toHaveLength(90);
    expect(outcomes.at(-1)).toBe("limited");
  });

  it("a parallel burst of guesses cannot slip past the limit: each attempt is counted before the check", async () => {
    clearOfWindowEdge(ALBUMS.passwordWindowSeconds);
    const a = await newAlbum({ password: "the right one" });
    const ip = "203.0.113.200";
    // 100 guesses at once with the right password last (as a probe found: it used to be accepted).
    const guesses = Array.from({ length: 99 }, (_, i) => `guess ${i}`).concat("the right one");
    const replies = await Promise.all(guesses.map((g) => call(`/albums/${a.id}`, { headers: { "x-album-password": g }, ip })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 403).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(89);
    expect(statuses.at(-1)).toBe(429);
    // A right password within the budget passes and is given back, so it costs the client nothing.
    const other = "203.0.113.201";
    for (let i = 0; i < 5; i++) expect((await call(`/albums/${a.id}`, { headers: { "x-album-password": "the right one" }, ip: other })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await call(`/albums/${a.id}`, { headers: { "x-album-password": `no ${i}` }, ip: other })).status).toBe(403);
    expect((await call(`/albums/${a.id}`, { headers: { "x-album-password": "the right one" }, ip: other })).status).toBe(429);
  });

  it("PATCH sets, changes and removes the password", async () => {
    const a = await newAlbum();
    const set = await call(`/albums/${a.id}`, { method: "PATCH", token: owner.access, body: { password: "hunter22" } });
    expect(set.status).toBe(200);
    expect(set.body.album.passwordProtected).toBe(true);
    expect((await call(`/albums/${a.id}`)).status).toBe(401);
    expect((await call(`/albums/${a.id}`, { headers: { "x-album-password": "hunter22" } })).status).toBe(200);
    await call(`/albums/${a.id}`, { method: "PATCH", token: owner.access, body: { password: null } });
    expect((await call(`/albums/${a.id}`)).status).toBe(200);
  });

  it("a private album stays 404 to strangers whatever password they send", async () => {
    const a = await newAlbum({ visibility: "private", password: "secret pw" });
    expect((await call(`/albums/${a.id}`, { headers: { "x-album-password": "secret pw" } })).status).toBe(404);
  });
});

describe("PATCH /albums/:id", () => {
  it("changes the allowed fields and bumps updatedAt", async () => {
    const a = await newAlbum();
    await new Promise((r) => setTimeout(r, 5));
    const res = await call(`/albums/${a.id}`, {
      method: "PATCH",
      token: owner.access,
      body: { title: "Renamed", description: "d", visibility: "unlisted", tags: ["x"] },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Album updated");
    expect(res.body.album).toMatchObject({ title: "Renamed", description: "d", visibility: "unlisted", tags: ["x"] });
    expect(Date.parse(res.body.album.updatedAt)).toBeGreaterThan(Date.parse(a.updatedAt));
  });

  it("coverImageId must be a file in the album; null clears it", async () => {
    const inside = await seedFile(owner.id);
    const outside = await seedFile(owner.id);
    const a = await newAlbum({ fileIds: [inside.id] });
    const bad = await call(`/albums/${a.id}`, { method: "PATCH", token: owner.access, body: { coverImageId: outside.id } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.code).toBe("cover_not_in_album");
    const good = await call(`/albums/${a.id}`, { method: "PATCH", token: owner.access, body: { coverImageId: inside.id } });
    expect(good.body.album.coverImageId).toBe(inside.id);
    const cleared = await call(`/albums/${a.id}`, { method: "PATCH", token: owner.access, body: { coverImageId: null } });
    expect(cleared.body.album.coverImageId).toBeNull();
  });

  it("refuses unknown fields and counters (no mass assignment)", async () => {
    const a = await newAlbum();
    for (const body of [{ fileCount: 99 }, { viewCount: 99 }, { userId: stranger.id }, { passwordHash: "x" }]) {
      expect((await call(`/albums/${a.id}`, { method: "PATCH", token: owner.access, body })).status).toBe(400);
    }
    expect((await albumRow(a.id)).file_count).toBe(0);
  });

  it("who may patch", async () => {
    const a = await newAlbum();
    const p = await newAlbum({ visibility: "private" });
    const body = { title: "t" };
    expect((await call(`/albums/${a.id}`, { method: "PATCH", token: keys.manage, body })).status).toBe(200);
    expect((await call(`/albums/${a.id}`, { method: "PATCH", token: keys.read, body })).status).toBe(403);
    expect((await call(`/albums/${a.id}`, { method: "PATCH", body })).status).toBe(401);
    expect((await call(`/albums/${a.id}`, { method: "PATCH", token: keys.revoked, body })).status).toBe(401);
    expect((await call(`/albums/${a.id}`, { method: "PATCH", token: stranger.access, body })).status).toBe(403);
    expect((await call(`/albums/${p.id}`, { method: "PATCH", token: stranger.access, body })).status).toBe(404);
  });
});

describe("DELETE /albums/:id", () => {
  it("deletes the album only; its files stay", async () => {
    const f = await seedFile(owner.id);
    const a = await newAlbum({ fileIds: [f.id] });
    expect((await call(`/albums/${a.id}`, { method: "DELETE", token: stranger.access })).status).toBe(403);
    expect((await call(`/albums/${a.id}`, { method: "DELETE" })).status).toBe(401);
    expect((await call(`/albums/${a.id}`, { method: "DELETE", token: keys.read })).status).toBe(403);
    const res = await call(`/albums/${a.id}`, { method: "DELETE", token: keys.manage });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: "Album deleted" });
    expect((await call(`/albums/${a.id}`, { token: owner.access })).status).toBe(404);
    expect((await call(`/files/${f.id}`)).status).toBe(200);
    const left = await ownerDb.prepare("SELECT COUNT(*) AS n FROM album_files WHERE album_id = ?").bind(a.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
    expect((await call(`/albums/${a.id}`, { method: "DELETE", token: owner.access })).status).toBe(404);
  });
});

describe("POST /albums/:id/files and DELETE /albums/:id/files/:fileId", () => {
  it("adds only the caller's own live files, never twice, and keeps fileCount true", async () => {
    const a = await newAlbum();
    const f1 = await seedFile(owner.id);
    const f2 = await seedFile(owner.id);
    const theirs = await seedFile(stranger.id);
    const expired = await seedFile(owner.id, { expiresAt: new Date(Date.now() - 1) });
    const res = await call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: [f1.id, f2.id, f1.id, theirs.id, expired.id] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: 2, requested: 4 });
    expect(typeof res.body.message).toBe("string");
    const again = await call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: [f1.id, f2.id] } });
    expect(again.body).toMatchObject({ added: 0, requested: 2 });
    expect((await albumRow(a.id)).file_count).toBe(2);
  });

  it("concurrent adds of overlapping sets still count each file once", async () => {
    const a = await newAlbum();
    const fs = await Promise.all(Array.from({ length: 8 }, () => seedFile(owner.id)));
    const ids = fs.map((f) => f.id);
    const replies = await Promise.all([
      call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: ids.slice(0, 6) } }),
      call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: ids.slice(2, 8) } }),
      call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: ids } }),
    ]);
    expect(replies.reduce((n, r) => n + r.body.added, 0)).toBe(8);
    expect((await albumRow(a.id)).file_count).toBe(8);
  });

  it("accepts up to 500 ids in one request (chunked under D1's parameter limit)", async () => {
    const a = await newAlbum();
    const f = await seedFile(owner.id);
    const ids = [f.id, ...Array.from({ length: 499 }, (_, i) => `file_${String(i).padStart(21, "0")}`)];
    const res = await call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: ids } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: 1, requested: 500 });
    expect((await call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: [...ids, "one-too-many"] } })).status).toBe(400);
  });

  it("validation and permissions", async () => {
    const a = await newAlbum();
    const p = await newAlbum({ visibility: "private" });
    const f = await seedFile(owner.id);
    expect((await call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: [] } })).status).toBe(400);
    expect((await call(`/albums/${a.id}/files`, { token: owner.access, body: { fileIds: [f.id], extra: 1 } })).status).toBe(400);
    expect((await call(`/albums/${a.id}/files`, { token: stranger.access, body: { fileIds: [f.id] } })).status).toBe(403);
    expect((await call(`/albums/${p.id}/files`, { token: stranger.access, body: { fileIds: [f.id] } })).status).toBe(404);
    expect((await call(`/albums/${a.id}/files`, { token: keys.read, body: { fileIds: [f.id] } })).status).toBe(403);
    expect((await call(`/albums/${a.id}/files`, { body: { fileIds: [f.id] } })).status).toBe(401);
    expect((await call(`/albums/${a.id}/files`, { token: keys.manage, body: { fileIds: [f.id] } })).body.added).toBe(1);
  });

  it("removes a file, keeps the count true, clears the cover and bumps updatedAt", async () => {
    const f1 = await seedFile(owner.id);
    const f2 = await seedFile(owner.id);
    const a = await newAlbum({ fileIds: [f1.id, f2.id] });
    await call(`/albums/${a.id}`, { method: "PATCH", token: owner.access, body: { coverImageId: f1.id } });
    const before = await albumRow(a.id);
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(`/albums/${a.id}/files/${f1.id}`, { method: "DELETE", token: stranger.access })).status).toBe(403);
    expect((await call(`/albums/${a.id}/files/${f1.id}`, { method: "DELETE", token: keys.read })).status).toBe(403);
    const res = await call(`/albums/${a.id}/files/${f1.id}`, { method: "DELETE", token: owner.access });
    expect(res.status).toBe(200);
    const after = await albumRow(a.id);
    expect(after.file_count).toBe(1);
    expect(after.cover_file_id).toBeNull();
    expect(after.updated_at).toBeGreaterThan(before.updated_at);
    const again = await call(`/albums/${a.id}/files/${f1.id}`, { method: "DELETE", token: owner.access });
    expect(again.status).toBe(404);
    expect(again.body.details.code).toBe("file_not_in_album");
    expect((await call(`/files/${f1.id}`)).status).toBe(200); // the file itself stays
  });
});
