// DELETE /account: password check, then every credential dead, content soft-deleted, e-mail free again.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PASSWORD, call, createKey, uniqueUsername, verifiedUser } from "../support/api";
import { auditFor, storedFile, userRow } from "../admin/helpers";
import { atNextStep, enableTotp } from "../support/totp";
import { creationOptions, signInWith, withPasskey } from "../support/passkeys";
import { ownerRow, setStorage } from "../support/owners";
import { ownerDb } from "../support/shard-db";
import { clearOfWindowEdge } from "../support/clock";
import { LOGIN_LIMITS } from "../../src/config/auth";

afterEach(() => vi.useRealTimers());

const IMAGE = "http://localhost:8787/i";
const del = (token: string, body: unknown = { password: PASSWORD }) => call("/account", { method: "DELETE", token, body });

async function login(email: string, password = PASSWORD) {
  return call("/auth/login", { body: { email, password } });
}

describe("DELETE /account", () => {
  it("ends the account: sessions, refresh tokens and keys dead; files and albums gone; e-mail reusable", async () => {
    const u = await verifiedUser();
    const second = await login(u.email); // another device
    expect(second.status).toBe(200);
    const { key } = await createKey(u, { permissions: ["read", "upload", "manage"] });
    const f1 = await storedFile(u.id, "public");
    const f2 = await storedFile(u.id, "unlisted");
    await setStorage(u.id, 5000);
    const album = await call("/albums", { token: u.access, body: { title: "Mine", fileIds: [f1.id], visibility: "public" } });
    expect(album.status).toBe(201);
    expect((await call("/billing/subscription", { token: u.access, body: { plan: "pro" } })).status).toBe(202);
    const bystander = await verifiedUser();

    const res = await del(u.access);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: "Your account has been deleted", deleted: { files: 2, albums: 1, sessions: 2, apiKeys: 1 } });

    // Every credential stops at once.
    expect((await call("/account", { token: u.access })).status).toBe(401);
    expect((await call("/account", { token: second.body.session.access_token })).status).toBe(401);
    expect((await call("/auth/refresh", { body: { refresh_token: u.refresh } })).status).toBe(401);
    const byKey = await call("/files", { token: key });
    expect(byKey.status).toBe(401);
    expect(byKey.body.error).toBe("API key has been revoked");
    const relogin = await login(u.email);
    expect(relogin.status).toBe(401);
    expect(relogin.body.details.code).toBe("invalid_credentials");

    // Content reads as gone; the stored objects wait for the purge, and the quota is not released early.
    for (const f of [f1, f2]) {
      expect((await call(`/files/${f.id}`)).status).toBe(410);
      expect((await call(`${IMAGE}/${f.id}`)).status).toBe(410);
      expect(await env.BUCKET.head(f.storeKey)).not.toBeNull();
    }
    expect([404, 410]).toContain((await call(`/albums/${album.body.id}`)).status);
    const row = await userRow(u.id);
    expect(row?.deleted_at).toBeTypeOf("number");
    // The owner's shard has the same deletion (what its files' reads decide from), and the usage is kept.
    expect(await ownerRow(u.id)).toMatchObject({ deleted_at: row?.deleted_at, storage_used: 5000 });
    const fileRows = await ownerDb.prepare("SELECT deleted_at, purged_at FROM files WHERE user_id = ?").bind(u.id).all<{ deleted_at: number; purged_at: number | null }>();
    expect(fileRows.results.every((r) => r.deleted_at === row?.deleted_at && r.purged_at === null)).toBe(true);
    const pending = await env.DB.prepare("SELECT status FROM plan_changes WHERE user_id = ?").bind(u.id).all<{ status: string }>();
    expect(pending.results.map((r) => r.status)).toEqual(["cancelled"]);
    expect((await auditFor(u.id)).map((a) => [a.action, a.actor_id])).toEqual([["account.delete", u.id]]);

    // Others are untouched.
    expect((await call("/account", { token: bystander.access })).status).toBe(200);

    // The address (and the username) can sign up again: a new, separate account.
    const username = (row as any).username;
    const again = await call("/auth/signup", { body: { email: u.email.toUpperCase(), password: "a new password 123", username, ageConfirmed: true } });
    expect(again.status).toBe(201);
    expect(again.body.user.id).not.toBe(u.id);
    expect((await login(u.email, "a new password 123")).status).toBe(200);
    expect((await call("/account", { token: u.access })).status).toBe(401);
    const fresh = await call("/files", { token: again.body.session.access_token });
    expect(fresh.body.files).toEqual([]);
  });

  it("drops the second factors: the sealed TOTP seed, the recovery codes, passkeys, their waiting challenges and pending mfaTokens are deleted", async () => {
    atNextStep();
    const u = await verifiedUser();
    await enableTotp(u);
    const { authenticator } = await withPasskey(u);
    expect((await creationOptions(u.access)).status).toBe(200); // a registration left waiting
    const pending = await login(u.email);
    expect(pending.body.mfaRequired).toBe(true);
    expect((await del(u.access)).status).toBe(200);
    expect((await signInWith(authenticator)).status).toBe(401);
    for (const table of ["totp_factors", "recovery_codes", "mfa_tokens", "passkeys", "passkey_challenges"]) {
      const left = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE user_id = ?`).bind(u.id).first<{ n: number }>();
      expect(left?.n, table).toBe(0);
    }
  });

  it("an owner the shard has no row for yet (no upload) gets one, marked deleted", async () => {
    const u = await verifiedUser();
    expect(await ownerRow(u.id)).toBeNull();
    expect((await del(u.access)).status).toBe(200);
    expect(await ownerRow(u.id)).toMatchObject({ deleted_at: (await userRow(u.id))?.deleted_at, banned_at: null, storage_used: 0 });
  });

  it("turns the account's webhook endpoints off: nothing more is sent for it", async () => {
    const u = await verifiedUser();
    const made = await call("/webhooks", { token: u.access, body: { url: "https://hooks.example.com/in", events: ["file.deleted"] } });
    expect(made.status, made.text).toBe(201);
    expect((await del(u.access)).status).toBe(200);
    const row = await env.DB.prepare("SELECT enabled FROM webhook_endpoints WHERE id = ?").bind(made.body.id).first<{ enabled: number }>();
    expect(row!.enabled).toBe(0);
  });

  it("refuses a wrong password and changes nothing", async () => {
    const u = await verifiedUser();
    const res = await del(u.access, { password: "not my password" });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: "Forbidden", details: { code: "invalid_password" } });
    expect((await userRow(u.id))?.deleted_at).toBeNull();
    expect((await call("/account", { token: u.access })).status).toBe(200);
  });

  it("limits password guesses like logins", async () => {
    clearOfWindowEdge(LOGIN_LIMITS.windowSeconds);
    const u = await verifiedUser();
    const replies = [];
    for (let i = 0; i < 11; i++) replies.push(await del(u.access, { password: `guess number ${i}` }));
    expect(replies.slice(0, 10).every((r) => r.status === 403)).toBe(true);
    expect(replies[10].status).toBe(429);
    expect(replies[10].body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
    // Even the right password waits for the window now.
    expect((await del(u.access)).status).toBe(429);
    expect((await userRow(u.id))?.deleted_at).toBeNull();
  });

  it("validates the body", async () => {
    const u = await verifiedUser();
    for (const body of [{}, { password: "" }, { password: PASSWORD, confirm: true }, { password: 12345678 }]) {
      const res = await del(u.access, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
    const noBody = await call("/account", { method: "DELETE", token: u.access });
    expect(noBody.status).toBe(400);
    expect((await userRow(u.id))?.deleted_at).toBeNull();
  });

  it("is session-only", async () => {
    const u = await verifiedUser();
    const { key } = await createKey(u, { permissions: ["read", "upload", "manage"] });
    const byKey = await del(key);
    expect(byKey.status).toBe(403);
    expect(byKey.body.message).toContain("API keys can only access");
    expect((await call("/account", { method: "DELETE", body: { password: PASSWORD } })).status).toBe(401);
    expect((await userRow(u.id))?.deleted_at).toBeNull();
  });

  it("a second delete with the old token is 401", async () => {
    const u = await verifiedUser({ username: uniqueUsername("del") });
    expect((await del(u.access)).status).toBe(200);
    expect((await del(u.access)).status).toBe(401);
  });
});
