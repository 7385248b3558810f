// Anonymous GET /files/:id decided from the same edge-cached access records as the byte links
// (src/serving/access-records.ts): no D1 query and no Durable Object call on a hit, every access rule
// held from the record, every change reaching the very next read. Signed-in callers always read D1.
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { FileRow } from "../../src/db/schema";
import { BASE, PASSWORD, call, verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { unreachableBindings } from "../support/unreachable";
import { expectCached, recordsOn, view } from "../support/records";
import { userWithRole } from "../support/moderation";

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
    expect(probe.calls.filter((c) => c.startsWith("DB."))).toEqual([]);
    // Only the view count's RPC, sent after the response (it never answers here).
    expect(probe.calls.filter((c) => !c.startsWith("DB.") && c !== "VIEW_COUNTER.add")).toEqual([]);
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

  it("a signed-in caller reads D1, not the record: the owner sees a change made behind the record's back", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const asOwner = { headers: { authorization: `Bearer ${owner.access}` } };
    expect((await view(api(f), asOwner)).status).toBe(200);
    await expectCached(api(f), 404);
    await env.DB.prepare("UPDATE files SET title = 'changed in D1' WHERE id = ?").bind(f.id).run();
    expect(json(await view(api(f), asOwner))).toMatchObject({ title: "changed in D1" });
    const stranger = await verifiedUser();
    expect((await view(api(f), { headers: { authorization: `Bearer ${stranger.access}` } })).status).toBe(404);
  });
});
