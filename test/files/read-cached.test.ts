// GET /files/:id decided from the same edge-cached access records as the byte links
// (src/serving/access-records.ts): no D1 query and no Durable Object call on an anonymous hit, every access
// rule held from the record for anonymous and signed-in callers, every change reaching the very next read.
// Signed-in callers read D1 when they send a bookmark, and the owner while the analysis is under way.
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { FileRow } from "../../src/db/schema";
import { BASE, PASSWORD, call, verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { unreachableBindings, isD1Call } from "../support/unreachable";
import { expectCached, recordsOn, view } from "../support/records";
import { userWithRole } from "../support/moderation";
import { ownerDb } from "../support/shard-db";
import { parseBookmarks } from "../../src/platform/data/bookmarks";
import { shardOfIdIn } from "../../src/platform/data/shards";

const api = (f: FileRow) => `${BASE}/files/${f.id}`;
const json = (v: { bytes: Uint8Array }) => JSON.parse(new TextDecoder().decode(v.bytes));

let owner: TestUser;
beforeAll(async () => {
  owner = await verifiedUser();
});

describe("anonymous GET /files/:id from the access records", () => {
  it("a hit makes no D1 query and waits for no Durable Object, and answers the same body", async () => {
    const f = await seedFile(owner.id, { title: "Harbour at dusk" });
    const filled = await view(api(f));
    expect(filled.status).toBe(200);

    const probe = unreachableBindings(env);
    const res = await worker.fetch(new Request(api(f)) as Request<unknown, IncomingRequestCfProperties>, { ...recordsOn, ...probe.bindings }, createExecutionContext());
    expect(res.status).toBe(200);
    const body = await res.json<Record<string, unknown>>();
    expect(body).toEqual(json(filled));
    expect(body).toMatchObject({ id: f.id, title: "Harbour at dusk", duplicates: [] });
    expect(probe.calls.filter((c) => isD1Call(c))).toEqual([]);
    // Only the view count's RPC, sent after the response (it never answers here).
    expect(probe.calls.filter((c) => !isD1Call(c) && c !== "VIEW_COUNTER.add")).toEqual([]);
  });

  it("private is 404, age-restricted 403, gone states 410, from the record", async () => {
    await expectCached(api(await seedFile(owner.id, { visibility: "private" })), 404);
    await expectCached(api(await seedFile(owner.id, { ageRestricted: true })), 403);
    for (const state of [{ deletedAt: new Date() }, { hiddenAt: new Date() }, { expiresAt: new Date(Date.now() - 1000) }]) {
      await expectCached(api(await seedFile(owner.id, state)), 410);
    }
    await expectCached(api(await seedFile(owner.id, { visibility: "unlisted" })), 200);
  });

  it("PATCH and DELETE by the owner reach the very next anonymous read", async () => {
    const f = await seedFile(owner.id, { title: "before" });
    await expectCached(api(f), 200);
    expect((await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { title: "after" } })).status).toBe(200);
    for (const offline of [false, true]) expect(json(await view(api(f), {}, offline))).toMatchObject({ title: "after" });
    expect((await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { visibility: "private" } })).status).toBe(200);
    await expectCached(api(f), 404);
    expect((await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { visibility: "public" } })).status).toBe(200);
    await expectCached(api(f), 200);
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    await expectCached(api(f), 410);
  });

  it("an owner's ban and account deletion reach the very next anonymous read", async () => {
    const admin = await userWithRole("admin");
    const user = await verifiedUser();
    const f = await seedFile(user.id);
    await expectCached(api(f), 200);
    expect((await call(`/admin/users/${user.id}`, { method: "PATCH", token: admin.access, body: { banned: true } })).status).toBe(200);
    await expectCached(api(f), 410);
    expect((await call(`/admin/users/${user.id}`, { method: "PATCH", token: admin.access, body: { banned: false } })).status).toBe(200);
    await expectCached(api(f), 200);
    expect((await call("/account", { method: "DELETE", token: user.access, body: { password: PASSWORD } })).status).toBe(200);
    await expectCached(api(f), 410);
  });

  it("a signed-in caller is decided from the record too: owner, stranger, adult and minor", async () => {
    const stranger = await verifiedUser();
    const minor = await verifiedUser({ ageConfirmed: false });
    const adult = await verifiedUser();
    expect((await call("/account", { method: "PATCH", token: adult.access, body: { safeMode: false } })).status).toBe(200);
    const as = (u: TestUser) => ({ headers: { authorization: `Bearer ${u.access}` } });
    const cases: [Partial<FileRow>, [TestUser, number][]][] = [
      [{ visibility: "private" }, [[owner, 200], [stranger, 404]]],
      [{ ageRestricted: true }, [[owner, 200], [adult, 200], [stranger, 403], [minor, 403]]],
      [{ deletedAt: new Date() }, [[owner, 410], [stranger, 410]]],
      [{ expiresAt: new Date(Date.now() - 1000) }, [[owner, 410]]],
      [{ visibility: "unlisted" }, [[owner, 200], [stranger, 200]]],
    ];
    for (const [state, who] of cases) {
      const f = await seedFile(owner.id, state);
      // Filling, then from the record (the next test proves a signed-in read uses it).
      for (const [user, status] of who) for (let i = 0; i < 2; i++) expect((await view(api(f), as(user))).status, `${JSON.stringify(state)} ${i}`).toBe(status);
    }
  });

  it("without a bookmark the signed-in read answers from the record; with one (read-your-writes), from D1", async () => {
    const f = await seedFile(owner.id, { title: "before" });
    const asOwner = (extra: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${owner.access}`, ...extra } });
    expect(json(await view(api(f), asOwner()))).toMatchObject({ title: "before" });
    await ownerDb.prepare("UPDATE files SET title = 'changed in D1' WHERE id = ?").bind(f.id).run();
    expect(json(await view(api(f), asOwner()))).toMatchObject({ title: "before" });
    const bookmark = (await call("/account", { token: owner.access })).headers.get("x-d1-bookmark")!;
    expect(bookmark).toBeTruthy();
    expect(json(await view(api(f), asOwner({ "x-d1-bookmark": bookmark })))).toMatchObject({ title: "changed in D1" });
    // Through the API, the owner's change reaches their next read at once (the record is forgotten).
    expect((await call(`/files/${f.id}`, { method: "PATCH", token: owner.access, body: { title: "after" } })).status).toBe(200);
    expect(json(await view(api(f), asOwner()))).toMatchObject({ title: "after" });
  });

  it("the owner reads D1 while the analysis is under way, so a landed analysis shows at once", async () => {
    const f = await seedFile(owner.id, { analysis: "pending", nsfwScore: null });
    const asOwner = { headers: { authorization: `Bearer ${owner.access}` } };
    expect(json(await view(api(f), asOwner))).toMatchObject({ analysis: "pending" });
    expect(json(await view(api(f)))).toMatchObject({ id: f.id }); // an anonymous read fills the record
    // The job landing in another data centre: the row changes, this data centre's record does not.
    await ownerDb.prepare("UPDATE files SET analysis = 'done', nsfw_score = 0.01 WHERE id = ?").bind(f.id).run();
    expect(json(await view(api(f), asOwner))).toMatchObject({ analysis: "done" });
  });

  it("an answer from the record carries x-d1-bookmark: its read's bookmark, with no D1 query", async () => {
    const f = await seedFile(owner.id);
    const other = await seedFile(owner.id);
    const patch = (g: FileRow, title: string) => call(`/files/${g.id}`, { method: "PATCH", token: owner.access, body: { title } });
    const write = (await patch(f, "written")).headers.get("x-d1-bookmark")!; // also forgets f's record
    expect(write).toBeTruthy();
    const filled = await view(api(f));
    const recorded = filled.headers.get("x-d1-bookmark")!;
    expect(recorded).toBeTruthy();
    expect(parseBookmarks(recorded, 2).get(shardOfIdIn(env, "file", f.id))!.localeCompare(parseBookmarks(write, 2).get(shardOfIdIn(env, "file", f.id))!)).toBeGreaterThanOrEqual(0); // read after the write: no older

    // D1 unreachable (the rate limiter and the view counter are not: a limiter that never answers would fail a
    // request that must lease, and leave the next tests' leases waiting).
    const probe = unreachableBindings(env);
    const withoutD1 = (url: string) =>
      worker.fetch(new Request(url) as Request<unknown, IncomingRequestCfProperties>, { ...recordsOn, DB: probe.bindings.DB!, SHARD_1: probe.bindings.SHARD_1! }, createExecutionContext());
    const hit = await withoutD1(api(f));
    expect(hit.status).toBe(200);
    expect(hit.headers.get("x-d1-bookmark")).toBe(recorded);
    expect(probe.calls.filter((c) => isD1Call(c))).toEqual([]);
    // Errors decided from a record carry it too.
    const hidden = await seedFile(owner.id, { hiddenAt: new Date() });
    expect((await view(api(hidden))).headers.get("x-d1-bookmark")).toBeTruthy();
    const gone = await withoutD1(api(hidden));
    expect([gone.status, !!gone.headers.get("x-d1-bookmark")]).toEqual([410, true]);

    // It is a bookmark D1 takes: a signed-in read-your-writes read with it sees the write.
    const asOwner = { headers: { authorization: `Bearer ${owner.access}`, "x-d1-bookmark": recorded } };
    expect(json(await view(api(f), asOwner))).toMatchObject({ title: "written" });
    // A client that sends a later bookmark than the record's gets at least its own back, never the older one.
    const later = (await patch(other, "later")).headers.get("x-d1-bookmark")!;
    // Bookmarks order per database: the file's shard's (f and other are on their owner's shard).
    const onShard = (header: string) => parseBookmarks(header, 2).get(shardOfIdIn(env, "file", f.id)) ?? "";
    expect(onShard(later).localeCompare(onShard(recorded))).toBeGreaterThan(0);
    const echoed = await view(api(f), { headers: { "x-d1-bookmark": later } });
    expect([echoed.status, echoed.headers.get("x-d1-bookmark")]).toEqual([200, later]);
  });
});
