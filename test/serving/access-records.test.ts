// Byte links decided from edge-cached access records (src/serving/access-records.ts). The suite runs with
// ACCESS_RECORD_SECONDS=0 (every view reads D1, so tests may change rows directly); this file turns the
// records on and checks every access rule on the cached path, and that every change through the API,
// moderation, admin and the analysis job reaches the very next view.
import { createExecutionContext, env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { analyzeFile } from "../../src/analysis/job";
import { fileAccessKey } from "../../src/serving/edge-cache";
import { ownerStates } from "../../src/serving/records";
import { purgeGlobally } from "../../src/platform/edge/global-purge";
import { fillFileRecords } from "../../src/serving/records";
import { loadFile } from "../../src/serving/access";
import { shardDb } from "../../src/platform/data/db";
import { shardOfIdIn } from "../../src/platform/data/shards";
import { cdnUrl } from "../../src/platform/http/urls";
import type { FileRow } from "../../src/db/schema";
import { PASSWORD, call, verifiedUser, type TestUser } from "../support/api";
import { IMAGE, pngLikeBytes, seedFile } from "../support/files";
import { report, resolve, userWithRole } from "../support/moderation";
import { makePng } from "../uploads/helpers";
import { unreachableBindings, isD1Call } from "../support/unreachable";
import { expectCached, recordsOn, view } from "../support/records";
import { setOwnerBan } from "../support/owners";
import { SERVING } from "../../src/config";
import { ownerDb } from "../support/shard-db";

const cache = () => (caches as unknown as { default: Cache }).default;
const short = (f: FileRow) => `${IMAGE}/${f.id}`;

let owner: TestUser;
beforeAll(async () => {
  owner = await verifiedUser();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a cache hit waits for no D1 query and no Durable Object", () => {
  it("short link, CDN link, thumbnail, HEAD and 304 are answered with D1 and the Durable Objects unreachable", async () => {
    const content = pngLikeBytes(50_000, 9);
    const f = await seedFile(owner.id, { content, thumb: pngLikeBytes(900, 2) });
    for (const url of [short(f), cdnUrl(env, f.storeKey), `${short(f)}/thumb`]) await view(url); // fill

    const probe = unreachableBindings(env);
    const ctx = createExecutionContext();
    const hit = await worker.fetch(new Request(short(f)) as Request<unknown, IncomingRequestCfProperties>, { ...recordsOn, ...probe.bindings }, ctx);
    expect(hit.status).toBe(200);
    expect(new Uint8Array(await hit.arrayBuffer())).toEqual(content);
    expect(probe.calls.filter((c) => isD1Call(c))).toEqual([]);
    // The view is counted by an RPC sent after the response (held here: it never answers).
    expect(probe.calls.filter((c) => !isD1Call(c))).toEqual(["VIEW_COUNTER.add"]);

    expect((await view(cdnUrl(env, f.storeKey), {}, true)).bytes).toEqual(content);
    expect((await view(`${short(f)}/thumb`, {}, true)).bytes).toEqual(pngLikeBytes(900, 2));
    expect((await view(short(f), { method: "HEAD" }, true)).headers.get("content-length")).toBe(String(content.byteLength));
    expect((await view(short(f), { headers: { "if-none-match": `"${f.storeEtag}"` } }, true)).status).toBe(304);
  });

  it("the records hold no secret and expire by their own max-age", async () => {
    const f = await seedFile(null, { deleteTokenHash: "a".repeat(64) });
    await view(short(f));
    const record = await cache().match(fileAccessKey(env, f.id));
    expect(record?.headers.get("cache-control")).toBe("public, max-age=30");
    expect(await record!.text()).not.toContain("a".repeat(64));
  });
});

describe("every access rule holds on the cached path", () => {
  it("private: 404 to anonymous viewers from the record; the owner (Bearer) still reads it", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    await expectCached(short(f), 404);
    expect((await view(short(f), { headers: { authorization: `Bearer ${owner.access}` } })).status).toBe(200);
  });

  it("unknown ids, other states and a CDN path naming another object are 404", async () => {
    expect((await view(`${IMAGE}/file_doesnotexist000000000`)).status).toBe(404);
    const uploading = await seedFile(owner.id, { state: "uploaded" });
    expect((await view(short(uploading))).status).toBe(404);
    expect(await cache().match(fileAccessKey(env, uploading.id))).toBeUndefined(); // never cached before finalize
    const f = await seedFile(owner.id);
    await expectCached(short(f), 200);
    await expectCached(cdnUrl(env, f.storeKey.replace("photo.png", "other.png")), 404);
  });

  it("gone states read 410 from the record: deleted, banned, hidden, quarantined, purged, owner banned", async () => {
    const at = new Date();
    for (const state of [{ deletedAt: at }, { bannedAt: at }, { hiddenAt: at }, { quarantinedAt: at }, { purgedAt: at }]) {
      await expectCached(short(await seedFile(owner.id, state)), 410);
    }
    const banned = await verifiedUser();
    await setOwnerBan(banned.id);
    await expectCached(short(await seedFile(banned.id)), 410);
  });

  it("the owner's state on its shard decides, carried by the file's record or read for the owner's own", async () => {
    for (const [copies, status] of [["shard", 410], ["directory", 200]] as const) {
      const carried = await verifiedUser();
      await setOwnerBan(carried.id, Date.now(), copies);
      await expectCached(short(await seedFile(carried.id)), status);
      // A file past the bound decides by the owner's record: read from D1 again when it is missing.
      const other = await verifiedUser();
      await setOwnerBan(other.id, Date.now(), copies);
      const later = await seedFile(other.id, { ownerOrdinal: SERVING.ownerStateCarriedFiles + 1 });
      await expectCached(short(later), status);
      await cache().delete(ownerStates.key(env, other.id));
      expect((await view(short(later))).status, copies).toBe(status);
      expect((await cache().match(ownerStates.key(env, other.id))) !== undefined).toBe(true);
    }
  });

  it("hotlink policies judge each Referer against the record", async () => {
    const blocked = await seedFile(owner.id, { hotlinkPolicy: "block" });
    const listed = await seedFile(owner.id, { hotlinkPolicy: "whitelist", hotlinkDomains: ["friend.example"] });
    await expectCached(short(blocked), 200);
    await expectCached(short(blocked), 403, { headers: { referer: "https://elsewhere.example/page" } });
    await expectCached(short(listed), 200, { headers: { referer: "https://friend.example/post" } });
    await expectCached(short(listed), 403, { headers: { referer: "https://elsewhere.example/page" } });
  });

  it("expiry needs no purge: the record knows expiresAt", async () => {
    const f = await seedFile(owner.id, { expiresAt: new Date(Date.now() + 60_000) });
    await expectCached(short(f), 200);
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 61_000);
    expect((await view(short(f), {}, true)).status).toBe(410);
  });
});

describe("every change reaches the very next view", () => {
  const patch = (f: FileRow, body: Record<string, unknown>) => call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body });

  it("PATCH visibility and hotlink policy", async () => {
    const f = await seedFile(owner.id);
    await expectCached(short(f), 200);
    expect((await patch(f, { visibility: "private" })).status).toBe(200);
    await expectCached(short(f), 404);
    expect((await patch(f, { visibility: "unlisted" })).status).toBe(200);
    await expectCached(short(f), 200);
    const foreign = { headers: { referer: "https://elsewhere.example/" } };
    await expectCached(short(f), 200, foreign);
    expect((await patch(f, { hotlinkPolicy: "block" })).status).toBe(200);
    await expectCached(short(f), 403, foreign);
    expect((await patch(f, { hotlinkPolicy: "allow" })).status).toBe(200);
    await expectCached(short(f), 200, foreign);
  });

  it("DELETE by the owner", async () => {
    const f = await seedFile(owner.id);
    await expectCached(short(f), 200);
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    await expectCached(short(f), 410);
  });

  it("a csam report hides the file at once; a moderator's dismissal restores it; remove and ban", async () => {
    const moderator = await userWithRole("moderator");
    const f = await seedFile(owner.id);
    await expectCached(short(f), 200);
    const filed = await report({ fileId: f.id, reason: "csam" }, { ip: "203.0.113.77" });
    expect(filed.status).toBe(201);
    await expectCached(short(f), 410);
    expect((await resolve(moderator.access, filed.body.reportId, { action: "dismiss" })).status).toBe(200);
    await expectCached(short(f), 200);

    for (const action of ["remove_file", "ban_file"]) {
      const g = await seedFile(owner.id);
      await expectCached(short(g), 200);
      const r = await report({ fileId: g.id, reason: "spam" }, { ip: "203.0.113.78" });
      expect((await resolve(moderator.access, r.body.reportId, { action })).status).toBe(200);
      await expectCached(short(g), 410);
    }
  });

  it("ban_user, and an admin's ban and unban, reach every file of the owner", async () => {
    const moderator = await userWithRole("moderator");
    const admin = await userWithRole("admin");
    const user = await verifiedUser();
    const [a, b] = [await seedFile(user.id), await seedFile(user.id)];
    for (const f of [a, b]) await expectCached(short(f), 200);
    const setBan = (banned: boolean) => call(`/admin/users/${user.id}`, { method: "PATCH", token: admin.access, body: { banned } });
    expect((await setBan(true)).status).toBe(200);
    for (const f of [a, b]) await expectCached(short(f), 410);
    expect((await setBan(false)).status).toBe(200);
    for (const f of [a, b]) await expectCached(short(f), 200);

    const r = await report({ fileId: a.id, reason: "spam" }, { ip: "203.0.113.79" });
    expect((await resolve(moderator.access, r.body.reportId, { action: "ban_user" })).status).toBe(200);
    await expectCached(short(b), 410); // not reported itself: its owner is banned
    expect(await cache().match(ownerStates.key(env, user.id))).toBeDefined();
  });

  it("account deletion", async () => {
    const user = await verifiedUser();
    const f = await seedFile(user.id);
    await expectCached(short(f), 200);
    expect((await call("/account", { method: "DELETE", token: user.access, body: { password: PASSWORD } })).status).toBe(200);
    await expectCached(short(f), 410);
  });

  it("the analysis landing: the thumbnail link turns from the placeholder into the thumbnail", async () => {
    const f = await seedFile(owner.id, { content: makePng(96, 64, 5), analysis: "pending", thumbKey: null });
    const before = await view(`${short(f)}/thumb`);
    expect(before.headers.get("x-thumbnail")).toBe("pending");
    expect((await analyzeFile(env, f.id, { skipNsfw: true })).status).toBe("done");
    for (const offline of [false, true]) {
      const after = await view(`${short(f)}/thumb`, {}, offline);
      expect(after.status).toBe(200);
      expect(after.headers.get("x-thumbnail")).toBeNull();
      expect(after.headers.get("content-type")).toMatch(/^image\/(jpeg|webp|png)$/);
    }
  });
});

describe("a record written after a change does not outlive it", () => {
  it("records whose row changed between the read and the write are deleted once written (file, owner)", async () => {
    const user = await verifiedUser();
    const f = await seedFile(user.id);
    const before = (await loadFile(shardDb(env, shardOfIdIn(env, "file", f.id)), f.id))!;
    await ownerDb.prepare("UPDATE files SET visibility = 'private' WHERE id = ?").bind(f.id).run(); // its delete ran already
    await fillFileRecords(env, before, Date.now(), 30);
    expect(await cache().match(fileAccessKey(env, f.id))).toBeUndefined();
    expect(await cache().match(ownerStates.key(env, user.id))).toBeDefined(); // the owner did not change
    expect((await view(short(f))).status).toBe(404);

    const g = await seedFile(user.id);
    const live = (await loadFile(shardDb(env, shardOfIdIn(env, "file", g.id)), g.id))!;
    await setOwnerBan(user.id);
    await fillFileRecords(env, live, Date.now(), 30);
    expect(await cache().match(ownerStates.key(env, user.id))).toBeUndefined();
    expect((await view(short(g))).status).toBe(410);

    const h = await seedFile(owner.id);
    await fillFileRecords(env, (await loadFile(shardDb(env, shardOfIdIn(env, "file", h.id)), h.id))!, Date.now(), 30);
    expect(await cache().match(fileAccessKey(env, h.id))).toBeDefined(); // unchanged: kept
  });
});

describe("global purge (Cloudflare's purge-by-URL API)", () => {
  it("sends the URLs, 30 per call, with the zone's token; nothing without configuration", async () => {
    const sent: { url: string; init: RequestInit }[] = [];
    const recorder = (async (url: string, init: RequestInit) => {
      sent.push({ url, init });
      return new Response("{}");
    }) as unknown as typeof fetch;
    const urls = Array.from({ length: 31 }, (_, i) => `https://cdn.example/__edge-cache/access/files/file_${i}`);
    await purgeGlobally(null, urls, recorder);
    expect(sent).toEqual([]);
    await purgeGlobally({ zoneId: "zone123", apiToken: "tok" }, urls, recorder);
    expect(sent.map((s) => s.url)).toEqual([
      "https://api.cloudflare.com/client/v4/zones/zone123/purge_cache",
      "https://api.cloudflare.com/client/v4/zones/zone123/purge_cache",
    ]);
    expect(new Headers(sent[0].init.headers).get("authorization")).toBe("Bearer tok");
    expect(JSON.parse(sent[0].init.body as string).files).toHaveLength(30);
    expect(JSON.parse(sent[1].init.body as string).files).toEqual([urls[30]]);
  });
});
