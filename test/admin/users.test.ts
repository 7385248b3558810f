// GET /admin/users, GET|PATCH /admin/users/:id: role checks, listing, changes, bans and their audit.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, call, createKey, uniqueEmail, verifiedUser, type TestUser } from "../support/api";
import { auditFor, planChangesOf, roleCast, storedFile, userRow } from "./helpers";
import { ownerRow, setStorage } from "../support/owners";
import { ownerDb } from "../support/shard-db";

const IMAGE = "http://localhost:8787/i";

let cast: Awaited<ReturnType<typeof roleCast>>;
beforeAll(async () => {
  cast = await roleCast();
});

const patch = (id: string, body: unknown, token = cast.admin.access) => call(`/admin/users/${id}`, { method: "PATCH", token, body });

describe("role checks", () => {
  const routes = () => [
    { path: "/admin/users" },
    { path: `/admin/users/${cast.user.id}` },
    { path: `/admin/users/${cast.user.id}`, method: "PATCH", body: { plan: "pro" } },
    { path: "/admin/plan-changes" },
  ];

  it("admins with a session pass", async () => {
    for (const r of routes().filter((r) => !r.method)) expect((await call(r.path, { token: cast.admin.access })).status).toBe(200);
  });

  it("users and moderators get 403, anonymous 401, an admin's API key the contract's 403", async () => {
    for (const r of routes()) {
      for (const who of [cast.user, cast.moderator]) {
        const res = await call(r.path, { ...r, token: who.access });
        expect(res.status, `${r.path} ${who.email}`).toBe(403);
        expect(res.body.details.code).toBe("insufficient_role");
      }
      const key = await call(r.path, { ...r, token: cast.adminKey });
      expect(key.status).toBe(403);
      expect(key.body.message).toContain("API keys can only access");
      expect((await call(r.path, { ...r })).status).toBe(401);
    }
    expect((await userRow(cast.user.id))?.plan).toBe("free");
  });

  it("a revoked or demoted admin loses access at once", async () => {
    const admin2 = (await verifiedUser()) as TestUser;
    await env.DB.prepare("UPDATE users SET role = 'admin' WHERE id = ?").bind(admin2.id).run();
    expect((await call("/admin/users", { token: admin2.access })).status).toBe(200);
    expect((await patch(admin2.id, { role: "user" })).status).toBe(200);
    expect((await call("/admin/users", { token: admin2.access })).status).toBe(403);
  });
});

describe("GET /admin/users", () => {
  it("pages through accounts, newest first", async () => {
    const all = await call("/admin/users?limit=100", { token: cast.admin.access });
    expect(all.status).toBe(200);
    const total = all.body.pagination.total;
    expect(total).toBe(all.body.users.length);
    const page = await call("/admin/users?limit=2&offset=1", { token: cast.admin.access });
    expect(page.body.pagination).toEqual({ total, limit: 2, offset: 1, hasMore: total > 3 });
    expect(page.body.users.map((u: any) => u.id)).toEqual(all.body.users.slice(1, 3).map((u: any) => u.id));
    const first = all.body.users.find((u: any) => u.id === cast.user.id);
    expect(Object.keys(first).sort()).toEqual(
      ["bannedAt", "banned", "createdAt", "email", "emailVerified", "id", "plan", "role", "storageReserved", "storageUsed", "updatedAt", "username"].sort(),
    );
    expect(JSON.stringify(all.body)).not.toMatch(/password|pbkdf2/i);
  });

  it("shows each account's usage from its shard's owners row (none: 0), in the list and alone", async () => {
    const [a, b] = [await verifiedUser(), await verifiedUser()];
    await setStorage(a.id, 4321, 12);
    // The directory's old counters (kept for the previous deploy) are not the usage any more.
    await env.DB.prepare("UPDATE users SET storage_used = 99, storage_reserved = 99 WHERE id IN (?, ?)").bind(a.id, b.id).run();
    const list = await call("/admin/users?limit=100", { token: cast.admin.access });
    const usage = (id: string) => list.body.users.filter((u: any) => u.id === id).map((u: any) => [u.storageUsed, u.storageReserved]);
    expect(usage(a.id)).toEqual([[4321, 12]]);
    expect(usage(b.id)).toEqual([[0, 0]]);
    const one = await call(`/admin/users/${a.id}`, { token: cast.admin.access });
    expect(one.body.user).toMatchObject({ storageUsed: 4321, storageReserved: 12 });
    const patched = await patch(a.id, { role: "moderator" });
    expect(patched.body.user).toMatchObject({ storageUsed: 4321, storageReserved: 12 });
  });

  it("searches by part of the e-mail, case-insensitively, with literal % and _", async () => {
    const tag = `needle${crypto.randomUUID().slice(0, 6)}`;
    const a = await verifiedUser({ email: `${tag}_a@example.com` });
    await verifiedUser({ email: `${tag}xa@example.com` });
    const res = await call(`/admin/users?search=${tag.toUpperCase()}`, { token: cast.admin.access });
    expect(res.body.users).toHaveLength(2);
    const underscore = await call(`/admin/users?search=${encodeURIComponent(`${tag}_`)}`, { token: cast.admin.access });
    expect(underscore.body.users.map((u: any) => u.id)).toEqual([a.id]);
    expect((await call("/admin/users?search=%25", { token: cast.admin.access })).body.users).toHaveLength(0);
  });

  it("filters by role, plan and ban", async () => {
    const mods = await call("/admin/users?role=moderator", { token: cast.admin.access });
    expect(mods.body.users.map((u: any) => u.id)).toContain(cast.moderator.id);
    expect(mods.body.users.every((u: any) => u.role === "moderator")).toBe(true);
    const u = await verifiedUser();
    await patch(u.id, { plan: "enterprise", banned: true });
    const hits = await call("/admin/users?plan=enterprise&banned=true", { token: cast.admin.access });
    expect(hits.body.users.map((x: any) => x.id)).toContain(u.id);
    const notBanned = await call("/admin/users?banned=false&limit=100", { token: cast.admin.access });
    expect(notBanned.body.users.map((x: any) => x.id)).not.toContain(u.id);
  });

  it("validates the query", async () => {
    for (const q of ["limit=0", "limit=101", "offset=-1", "role=root", "plan=gold", "banned=maybe"]) {
      const res = await call(`/admin/users?${q}`, { token: cast.admin.access });
      expect(res.status, q).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
  });
});

describe("PATCH /admin/users/:id", () => {
  it("changes role and plan, with an audit record per change and a plan history row", async () => {
    const u = await verifiedUser();
    const res = await patch(u.id, { role: "moderator", plan: "pro" });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: u.id, role: "moderator", plan: "pro", banned: false });
    const me = await call("/account", { token: u.access });
    expect(me.body.user).toMatchObject({ role: "moderator", plan: "pro" });
    const audit = await auditFor(u.id);
    expect(audit.map((a) => [a.action, a.actor_id, a.details])).toEqual([
      ["user.role_change", cast.admin.id, { from: "user", to: "moderator" }],
      ["user.plan_change", cast.admin.id, { from: "free", to: "pro" }],
    ]);
    const history = await planChangesOf(u.id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ provider: "admin", status: "applied", decided_by: cast.admin.id });
    // Setting what is already there changes and audits nothing.
    expect((await patch(u.id, { role: "moderator", plan: "pro" })).status).toBe(200);
    expect(await auditFor(u.id)).toHaveLength(2);
  });

  it("validates the body and the target", async () => {
    for (const body of [{}, { role: "root" }, { plan: "gold" }, { banned: "yes" }, { role: "user", email: "x@y.z" }]) {
      const res = await patch(cast.user.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
    expect((await patch("usr_V1StGXR8_Z5jdHi6B-myT", { plan: "pro" })).status).toBe(404);
    expect((await patch("nonsense", { plan: "pro" })).status).toBe(404);
    expect((await call("/admin/users/usr_V1StGXR8_Z5jdHi6B-myT", { token: cast.admin.access })).status).toBe(404);
  });

  it("an admin cannot ban or demote themselves", async () => {
    for (const body of [{ banned: true }, { role: "user" }]) {
      const res = await patch(cast.admin.id, body);
      expect(res.status).toBe(400);
      expect(res.body.details.code).toBe("cannot_modify_self");
    }
    expect((await patch(cast.admin.id, { plan: "pro" })).status).toBe(200);
  });
});

describe("bans", () => {
  it("stop the user's session, refresh, login and keys at once; their files go 410; unban restores all", async () => {
    const email = uniqueEmail("banned");
    const u = await verifiedUser({ email });
    const { key } = await createKey(u, { permissions: ["read"] });
    const pub = await storedFile(u.id, "public");
    const unlisted = await storedFile(u.id, "unlisted");
    expect((await call(`/files/${pub.id}`)).status).toBe(200);
    expect((await call(`${IMAGE}/${pub.id}`)).status).toBe(200);

    const res = await patch(u.id, { banned: true });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ banned: true });
    expect(res.body.user.bannedAt).toMatch(/Z$/);
    // The owner's shard first has the same time: what the files' reads decide from.
    expect(await ownerRow(u.id)).toMatchObject({ banned_at: Date.parse(res.body.user.bannedAt) });
    expect((await userRow(u.id))?.banned_at).toBe(Date.parse(res.body.user.bannedAt));

    const session = await call("/account", { token: u.access });
    expect(session.status).toBe(401);
    expect(session.body.details.code).toBe("account_banned");
    const byKey = await call("/files", { token: key });
    expect(byKey.status).toBe(403);
    expect(byKey.body).toMatchObject({ error: "Forbidden", details: { code: "account_banned" } });
    expect((await call("/auth/refresh", { body: { refresh_token: u.refresh } })).status).toBe(401);
    expect((await call("/auth/login", { body: { email, password: PASSWORD } })).status).toBe(403);
    for (const f of [pub, unlisted]) {
      expect((await call(`/files/${f.id}`)).status).toBe(410);
      expect((await call(`${IMAGE}/${f.id}`)).status).toBe(410);
    }
    expect((await auditFor(u.id)).map((a) => a.action)).toEqual(["user.ban"]);

    const lifted = await patch(u.id, { banned: false });
    expect(lifted.body.user).toMatchObject({ banned: false, bannedAt: null });
    expect(await ownerRow(u.id)).toMatchObject({ banned_at: null });
    expect((await call("/account", { token: u.access })).status).toBe(200);
    expect((await call("/files", { token: key })).status).toBe(200);
    expect((await call(`/files/${pub.id}`)).status).toBe(200);
    expect((await call(`${IMAGE}/${pub.id}`)).status).toBe(200);
    expect((await auditFor(u.id)).map((a) => a.action)).toEqual(["user.ban", "user.unban"]);
  });

  it("reach an owner the shard has no row for yet: its albums go, and come back with the unban", async () => {
    const u = await verifiedUser();
    const album = await call("/albums", { token: u.access, body: { title: "Only an album", visibility: "public" } });
    expect(album.status).toBe(201);
    expect(await ownerRow(u.id)).toBeNull();
    expect((await patch(u.id, { banned: true })).status).toBe(200);
    expect((await ownerRow(u.id))?.banned_at).toBeTypeOf("number");
    expect((await call(`/albums/${album.body.id}`)).status).toBe(404);
    expect((await patch(u.id, { plan: "pro", banned: false })).status).toBe(200); // through the plan change's batch
    expect((await ownerRow(u.id))?.banned_at).toBeNull();
    expect((await call(`/albums/${album.body.id}`)).status).toBe(200);
  });

  it("a moderator's own file ban survives the owner's unban", async () => {
    const u = await verifiedUser();
    const f = await storedFile(u.id);
    await ownerDb.prepare("UPDATE files SET banned_at = ? WHERE id = ?").bind(Date.now() - 1000, f.id).run();
    await patch(u.id, { banned: true });
    await patch(u.id, { banned: false });
    expect((await call(`/files/${f.id}`)).status).toBe(410);
  });
});
