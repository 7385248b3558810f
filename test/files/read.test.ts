// GET /files and GET /files/:id: listing, the File resource, and who sees what.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, createKey, isErrorBody, signup, verifiedUser, type TestUser } from "../support/api";
import { indexBands, pngLikeBytes, seedFile, settledCount } from "../support/files";
import type { FileRow } from "../../src/db/schema";
import { shardDb } from "../../src/platform/data/db";
import { listCountQuery, listPageQuery } from "../../src/files/queries";
import { encodeFeatures } from "../../src/analysis/embedding";
import { ANALYSIS } from "../../src/config";
import { setOwnerBan, setOwnerDeleted } from "../support/owners";

const db = shardDb(env, 0);

let owner: TestUser;
let stranger: TestUser;
let adult: TestUser;
let keys: { read: string; manage: string; upload: string; revoked: string; expired: string; adultRead: string };

async function expireKey(id: string) {
  await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, id).run();
}

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await signup();
  adult = await verifiedUser();
  expect((await call("/account", { method: "PATCH", token: adult.access, body: { ageConfirmed: true, safeMode: false } })).status).toBe(200);
  const revoked = await createKey(owner, { permissions: ["read"] });
  await call(`/keys/${revoked.id}`, { method: "DELETE", token: owner.access });
  const expired = await createKey(owner, { permissions: ["read"] });
  await expireKey(expired.id);
  keys = {
    read: (await createKey(owner, { permissions: ["read"] })).key,
    manage: (await createKey(owner, { permissions: ["manage"] })).key,
    upload: (await createKey(owner, { permissions: ["upload"] })).key,
    revoked: revoked.key,
    expired: expired.key,
    adultRead: (await createKey(adult, { permissions: ["read"] })).key,
  };
});

describe("GET /files/:id", () => {
  let pub: FileRow;
  beforeAll(async () => {
    pub = await seedFile(owner.id, { title: "Sunset", description: "over the sea", tags: ["sky", "sea"], width: 800, height: 600 });
  });

  it("returns the File resource with the contract's fields and the analysis fields", async () => {
    const res = await call(`/files/${pub.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: pub.id,
      url: `${env.IMAGE_URL}/${pub.id}`,
      cdnUrl: `${env.CDN_URL}/${pub.storeKey}`,
      thumbnailUrl: `${env.IMAGE_URL}/${pub.id}/thumb`,
      title: "Sunset",
      description: "over the sea",
      mime: "image/png",
      bytes: pub.bytes,
      width: 800,
      height: 600,
      visibility: "public",
      downloadCount: 0,
      nsfwScore: 0.01,
      ageRestricted: false,
      tags: ["sky", "sea"],
      hotlinkPolicy: "allow",
      phash: null,
      duplicates: [],
      analysis: "done",
      expiresAt: null,
    });
    expect(typeof res.body.viewCount).toBe("number");
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    // Owner-only and internal fields never leak.
    for (const k of ["hotlinkDomains", "userId", "storeKey", "sha256", "deleteTokenHash", "state"]) expect(res.body).not.toHaveProperty(k);
  });

  it("counts a view per read (lagging, aggregated)", async () => {
    const f = await seedFile(owner.id);
    await Promise.all([call(`/files/${f.id}`), call(`/files/${f.id}`), call(`/files/${f.id}`, { token: owner.access })]);
    expect(await settledCount("file_view", f.id, 3)).toBe(3);
    expect((await call(`/files/${f.id}`)).body.viewCount).toBe(3);
  });

  it("shows expiresAt as an ISO timestamp and phash from the client's hint until analysis", async () => {
    const at = new Date(Date.now() + 3_600_000);
    const f = await seedFile(owner.id, { expiresAt: at, phash: null, clientPhash: "8f0f0f0f0f0f0f0f", analysis: "pending", nsfwScore: null, clientNsfwScore: 0.3 });
    const res = await call(`/files/${f.id}`);
    expect(res.body.expiresAt).toBe(at.toISOString());
    expect(res.body.phash).toBe("8f0f0f0f0f0f0f0f");
    expect(res.body.analysis).toBe("pending");
    expect(res.body.nsfwScore).toBe(0.3);
  });

  it("lists exact duplicates among the owner's files, to the owner only", async () => {
    const bytes = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const a = await seedFile(owner.id, { content: bytes });
    const b = await seedFile(owner.id, { content: bytes });
    await seedFile(stranger.id, { content: bytes }); // someone else's copy is never listed
    const mine = await call(`/files/${a.id}`, { token: owner.access });
    expect(mine.body.duplicates).toEqual([{ fileId: b.id, url: `${env.IMAGE_URL}/${b.id}`, distance: 0, match: "exact" }]);
    expect(mine.body.hotlinkDomains).toEqual([]);
    expect((await call(`/files/${a.id}`, { token: stranger.access })).body.duplicates).toEqual([]);
  });

  it("lists near duplicates (phash within PHASH_DISTANCE) as similar", async () => {
    const a = await seedFile(owner.id, { phash: "ffff0000ffff0000", content: pngLikeBytes(3000, 41) });
    const b = await seedFile(owner.id, { phash: "ffff0000ffff0001", content: pngLikeBytes(3000, 42) });
    await indexBands(a, b);
    const res = await call(`/files/${a.id}`, { token: owner.access });
    expect(res.body.phash).toBe("ffff0000ffff0000");
    expect(res.body.duplicates).toEqual([
      { fileId: b.id, url: `${env.IMAGE_URL}/${b.id}`, distance: 1, match: "similar", signal: "phash", distances: { phash: 1, embedding: null } },
    ]);
  });

  it("lists copies near by the embedding only as similar with signal embedding, a private one to the owner only", async () => {
    // Features 0.01 apart in cosine distance (10 thousandths), phashes far apart; one shared code.
    const features = Array.from({ length: 384 }, (_, i) => Math.cos(i));
    const near = features.map((x, i) => x + (i % 7 === 0 ? 0.35 : 0));
    const code = "0123456789abcdef".repeat(4);
    const embedded = (f: number[]) => ({ embedding: encodeFeatures(f), embeddingCode: code });
    const a = await seedFile(owner.id, { phash: "0f0f0f0f0f0f0f0f", content: pngLikeBytes(3000, 51), ...embedded(features) });
    const b = await seedFile(owner.id, { phash: "f0f0f0f0f0f0f0f0", content: pngLikeBytes(3000, 52), visibility: "private", ...embedded(near) });
    const theirs = await seedFile(stranger.id, { phash: "0f0f0f0f0f0f0f0f", content: pngLikeBytes(3000, 53), ...embedded(features) });
    await indexBands(a, b, theirs);
    const res = await call(`/files/${a.id}`, { token: owner.access });
    expect(res.body.duplicates).toEqual([
      { fileId: b.id, url: `${env.IMAGE_URL}/${b.id}`, distance: expect.any(Number), match: "similar", signal: "embedding", distances: { phash: 64, embedding: expect.any(Number) } },
    ]);
    expect(res.body.duplicates[0].distance).toBe(res.body.duplicates[0].distances.embedding);
    expect(res.body.duplicates[0].distance).toBeLessThanOrEqual(ANALYSIS.embeddingDistance);
    // The stranger sees neither the owner's duplicates nor the private copy; their own identical copy lists none of the owner's.
    expect((await call(`/files/${a.id}`, { token: stranger.access })).body.duplicates).toEqual([]);
    expect((await call(`/files/${b.id}`, { token: stranger.access })).status).toBe(404);
    expect((await call(`/files/${theirs.id}`, { token: stranger.access })).body.duplicates).toEqual([]);
  });

  describe("visibility matrix", () => {
    let priv: FileRow;
    let unlisted: FileRow;
    beforeAll(async () => {
      priv = await seedFile(owner.id, { visibility: "private" });
      unlisted = await seedFile(owner.id, { visibility: "unlisted" });
    });

    it.each([
      ["anonymous", undefined, 200, 200, 404],
      ["owner session", "owner", 200, 200, 200],
      ["other user", "stranger", 200, 200, 404],
      ["owner's read key", "key:read", 200, 200, 200],
    ])("%s: public %i, unlisted %i, private %i", async (_name, who, pubStatus, unlistedStatus, privStatus) => {
      const token = who === "owner" ? owner.access : who === "stranger" ? stranger.access : who === "key:read" ? keys.read : undefined;
      expect((await call(`/files/${pub.id}`, { token })).status).toBe(pubStatus);
      expect((await call(`/files/${unlisted.id}`, { token })).status).toBe(unlistedStatus);
      const p = await call(`/files/${priv.id}`, { token });
      expect(p.status).toBe(privStatus);
      if (privStatus === 404) expect(p.body).toMatchObject({ error: "Not Found", details: { code: "file_not_found" } });
    });

    it("a key without read is 403 even on public files", async () => {
      for (const k of [keys.manage, keys.upload]) {
        const res = await call(`/files/${pub.id}`, { token: k });
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ error: "Forbidden", details: { code: "missing_permission" } });
      }
    });

    it("revoked and expired keys are 401 with the contract's texts", async () => {
      const r = await call(`/files/${pub.id}`, { token: keys.revoked });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe("API key has been revoked");
      const e = await call(`/files/${pub.id}`, { token: keys.expired });
      expect(e.status).toBe(401);
      expect(e.body.error).toBe("API key has expired");
      expect((await call(`/files/${pub.id}`, { token: "pk_notarealkeyatall" })).body.error).toBe("Invalid API key");
    });

    it("a private file is 404 to a stranger even when it is gone (410 to its owner)", async () => {
      const f = await seedFile(owner.id, { visibility: "private", deletedAt: new Date() });
      expect((await call(`/files/${f.id}`, { token: stranger.access })).status).toBe(404);
      expect((await call(`/files/${f.id}`, { token: owner.access })).status).toBe(410);
    });
  });

  describe("gone files are 410", () => {
    const past = () => new Date(Date.now() - 1);
    it.each([
      ["deleted", { deletedAt: past() }, "file_deleted"],
      ["expired", { expiresAt: past() }, "file_expired"],
      ["banned", { bannedAt: past() }, "file_banned"],
      ["hidden under review", { hiddenAt: past() }, "file_unavailable"],
      ["quarantined", { quarantinedAt: past() }, "file_unavailable"],
    ])("%s", async (_n, overrides, code) => {
      const f = await seedFile(owner.id, overrides);
      for (const token of [undefined, owner.access, stranger.access]) {
        const res = await call(`/files/${f.id}`, { token });
        expect(res.status).toBe(410);
        expect(res.body).toMatchObject({ error: "Gone", details: { code } });
      }
    });

    it("a file whose owner is banned", async () => {
      const u = await signup();
      const f = await seedFile(u.id);
      await setOwnerBan(u.id);
      expect((await call(`/files/${f.id}`)).status).toBe(410);
    });

    it("the owner's state on its shard decides: banned or deleted there 410, the directory's copy alone nothing", async () => {
      const u = await signup();
      const f = await seedFile(u.id);
      await setOwnerBan(u.id, Date.now(), "directory");
      await setOwnerDeleted(u.id, Date.now(), "directory");
      expect((await call(`/files/${f.id}`)).status).toBe(200);
      await setOwnerBan(u.id, Date.now(), "shard");
      expect((await call(`/files/${f.id}`)).body.details.code).toBe("file_unavailable");
      await setOwnerBan(u.id, null, "shard");
      expect((await call(`/files/${f.id}`)).status).toBe(200);
      await setOwnerDeleted(u.id, Date.now(), "shard");
      expect((await call(`/files/${f.id}`)).status).toBe(410);
    });
  });

  describe("safe mode", () => {
    let nsfw: FileRow;
    beforeAll(async () => {
      nsfw = await seedFile(owner.id, { ageRestricted: true, nsfwScore: 0.95 });
    });
    it.each([
      ["anonymous", () => undefined, 403],
      ["a signed-in user with safe mode on (the default)", () => stranger.access, 403],
      ["the owner", () => owner.access, 200],
      ["an age-confirmed user with safe mode off", () => adult.access, 200],
      ["that user's API key", () => keys.adultRead, 200],
    ])("%s -> %i", async (_n, token, status) => {
      const res = await call(`/files/${nsfw.id}`, { token: token() });
      expect(res.status).toBe(status);
      if (status === 403) expect(res.body).toMatchObject({ error: "Forbidden", details: { code: "content_restricted" } });
    });

    it("a moderator's override wins over the score either way", async () => {
      const cleared = await seedFile(owner.id, { ageRestricted: true, ageRestrictedOverride: false });
      expect((await call(`/files/${cleared.id}`)).status).toBe(200);
      const flagged = await seedFile(owner.id, { ageRestricted: false, ageRestrictedOverride: true });
      expect((await call(`/files/${flagged.id}`)).status).toBe(403);
    });
  });

  it("404s unknown and malformed ids, and non-finalized files", async () => {
    expect((await call("/files/file_AAAAAAAAAAAAAAAAAAAAA")).status).toBe(404);
    expect((await call("/files/not-an-id")).status).toBe(404);
    const f = await seedFile(owner.id, { state: "created" });
    expect((await call(`/files/${f.id}`)).status).toBe(404);
  });
});

describe("GET /files", () => {
  let lister: TestUser;
  let listerKey: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    lister = await verifiedUser();
    listerKey = (await createKey(lister, { permissions: ["read"] })).key;
    const base = Date.now() - 100_000;
    const mk = async (name: string, o: Parameters<typeof seedFile>[1]) => {
      ids[name] = (await seedFile(lister.id, o)).id;
    };
    await mk("old", { createdAt: new Date(base), viewCount: 5, content: new Uint8Array(300) });
    await mk("mid", { createdAt: new Date(base + 1000), viewCount: 50, content: new Uint8Array(100), visibility: "unlisted" });
    await mk("new", { createdAt: new Date(base + 2000), viewCount: 1, content: new Uint8Array(200), visibility: "private" });
    await mk("nsfw", { createdAt: new Date(base + 3000), ageRestricted: true });
    await mk("deleted", { createdAt: new Date(base + 4000), deletedAt: new Date() });
    await mk("expired", { createdAt: new Date(base + 5000), expiresAt: new Date(Date.now() - 1) });
    await mk("banned", { createdAt: new Date(base + 6000), bannedAt: new Date() });
    await mk("pending", { createdAt: new Date(base + 7000), state: "uploaded" });
    await seedFile(owner.id); // someone else's
  });

  it("lists the caller's live files, newest first, with list items and pagination", async () => {
    const res = await call("/files", { token: lister.access });
    expect(res.status).toBe(200);
    expect(res.body.files.map((f: any) => f.id)).toEqual([ids.new, ids.mid, ids.old]);
    expect(res.body.pagination).toEqual({ total: 3, limit: 50, offset: 0, hasMore: false });
    expect(Object.keys(res.body.files[0]).sort()).toEqual(
      ["ageRestricted", "bytes", "createdAt", "dominantColor", "height", "id", "mime", "placeholder", "thumbnailUrl", "title", "url", "viewCount", "visibility", "width"].sort(),
    );
    expect(res.body.files[0].thumbnailUrl).toBe(`${env.IMAGE_URL}/${ids.new}/thumb`);
  });

  it("searches through the search index (every word, case-insensitive, the last as a prefix; punctuation is no word) and filters by tag", async () => {
    const u = await verifiedUser();
    const beach = (await seedFile(u.id, { title: "Sunny Beach day", tags: ["holiday", "sea"] })).id;
    const cat = (await seedFile(u.id, { title: "cat on the beach", tags: ["cat"] })).id;
    const odd = (await seedFile(u.id, { title: "100% done_now", tags: [] })).id;
    const ids = async (q: string) => ((await call(`/files?${q}`, { token: u.access })).body.files as { id: string }[]).map((f) => f.id).sort();
    expect(await ids("q=BEACH")).toEqual([beach, cat].sort());
    expect(await ids("q=beach%20sunny")).toEqual([beach]);
    expect(await ids("q=100%25")).toEqual([odd]);
    expect(await ids("q=done%20no")).toEqual([odd]);
    expect(await ids("q=_")).toEqual([]);
    expect(await ids("q=")).toEqual([beach, cat, odd].sort()); // blank: no filter
    expect(await ids("tag=cat")).toEqual([cat]);
    expect(await ids("tag=sea&q=day")).toEqual([beach]);
    expect(await ids("tag=ca")).toEqual([]);
    const total = await call("/files?q=beach", { token: u.access });
    expect(total.body.pagination.total).toBe(2);
    expect(total.body.files[0].ageRestricted).toBe(false);
  });

  it("sorts by views and size in both orders", async () => {
    const views = await call("/files?sort=views&order=desc", { token: lister.access });
    expect(views.body.files.map((f: any) => f.id)).toEqual([ids.mid, ids.old, ids.new]);
    const size = await call("/files?sort=size&order=asc", { token: lister.access });
    expect(size.body.files.map((f: any) => f.id)).toEqual([ids.mid, ids.new, ids.old]);
    const created = await call("/files?order=asc", { token: lister.access });
    expect(created.body.files.map((f: any) => f.id)).toEqual([ids.old, ids.mid, ids.new]);
  });

  it("filters by visibility and includes age-restricted files only when asked", async () => {
    const unlisted = await call("/files?visibility=unlisted", { token: lister.access });
    expect(unlisted.body.files.map((f: any) => f.id)).toEqual([ids.mid]);
    expect(unlisted.body.pagination.total).toBe(1);
    const all = await call("/files?excludeNsfw=false", { token: lister.access });
    expect(all.body.files.map((f: any) => f.id)).toEqual([ids.nsfw, ids.new, ids.mid, ids.old]);
  });

  it("pages with limit and offset", async () => {
    const p1 = await call("/files?limit=2", { token: lister.access });
    expect(p1.body.files).toHaveLength(2);
    expect(p1.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    const p2 = await call("/files?limit=2&offset=2", { token: lister.access });
    expect(p2.body.files.map((f: any) => f.id)).toEqual([ids.old]);
    expect(p2.body.pagination.hasMore).toBe(false);
  });

  it("works with a read key, refuses other keys, anonymous, revoked and expired keys", async () => {
    expect((await call("/files", { token: listerKey })).body.pagination.total).toBe(3);
    expect((await call("/files", { token: keys.upload })).status).toBe(403);
    expect((await call("/files", { token: keys.manage })).status).toBe(403);
    expect((await call("/files")).status).toBe(401);
    expect((await call("/files", { token: keys.revoked })).status).toBe(401);
    expect((await call("/files", { token: keys.expired })).status).toBe(401);
  });

  it.each(["limit=0", "limit=101", "limit=abc", "offset=-1", "sort=name", "order=up", "visibility=secret", "excludeNsfw=maybe"])(
    "400 for %s",
    async (q) => {
      const res = await call(`/files?${q}`, { token: lister.access });
      expect(res.status).toBe(400);
      expect(isErrorBody(res.body)).toBe(true);
      expect(res.body.details.code).toBe("validation_error");
    },
  );

  it("every sort walks a (user_id, column) index, never the whole table or a temp sort", async () => {
    for (const [sort, index] of [["created", "files_user_created"], ["views", "files_user_views"], ["size", "files_user_bytes"]] as const) {
      for (const excludeNsfw of [true, false]) {
        const q = listPageQuery(db, lister.id, { limit: 50, offset: 0, sort, order: "desc", excludeNsfw }, Date.now()).toSQL();
        const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
          .bind(...q.params)
          .all<{ detail: string }>();
        const details = plan.results.map((r) => r.detail).join(" | ");
        expect(details, sort).toContain(index);
        expect(details).not.toContain("TEMP B-TREE");
      }
    }
  });

  it("counts the total from files_user_created alone, reading no files row", async () => {
    for (const excludeNsfw of [true, false]) {
      for (const visibility of [undefined, "public"] as const) {
        const q = listCountQuery(db, lister.id, { limit: 50, offset: 0, sort: "created", order: "desc", excludeNsfw, visibility }, Date.now()).toSQL();
        const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
          .bind(...q.params)
          .all<{ detail: string }>();
        expect(plan.results.map((r) => r.detail).join(" | ")).toContain("USING COVERING INDEX files_user_created (user_id=?)");
      }
    }
  });
});
