// GET /account/export: the caller's data, streamed, complete across pages, without secrets.
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { BASE, call, createKey, verifiedUser, type TestUser } from "../support/api";
import { storedFile, userWithRole } from "../admin/helpers";
import { EXPORT_PAGE_SIZE } from "../../src/account/export";
import { atNextStep, enableTotp } from "../support/totp";
import { withPasskey } from "../support/passkeys";
import { setStorage } from "../support/owners";
import { databaseOf, ownerDb } from "../support/shard-db";

let owner: TestUser;
let other: TestUser;
let key: { id: string; key: string };
let files: { id: string; storeKey: string }[];
let albumId: string;
let exported: any;
let exportText: string;
let exportHeaders: Headers;
let totp: { secret: string; recoveryCodes: string[] };
let passkey: { id: string; name: string; createdAt: string };

beforeAll(async () => {
  owner = await verifiedUser();
  other = await verifiedUser();
  key = await createKey(owner, { name: "ci key", permissions: ["read", "upload"] });
  atNextStep();
  totp = await enableTotp(owner);
  passkey = (await withPasskey(owner, "Export laptop")).passkey;
  vi.useRealTimers();
  files = [await storedFile(owner.id, "public"), await storedFile(owner.id, "private"), await storedFile(owner.id, "unlisted")];
  await storedFile(other.id, "public");
  await ownerDb.prepare("UPDATE files SET deleted_at = ? WHERE id = ?").bind(Date.now(), files[2].id).run();
  // The usage is the owner's counters on its shard; the directory's old copy (kept for the previous deploy) is not.
  await setStorage(owner.id, 4096, 512);
  await env.DB.prepare("UPDATE users SET storage_used = 1, storage_reserved = 1 WHERE id = ?").bind(owner.id).run();
  const album = await call("/albums", { token: owner.access, body: { title: "Holiday", fileIds: [files[0].id, files[1].id], visibility: "private", password: "album secret 1" } });
  expect(album.status).toBe(201);
  albumId = album.body.id;
  await call("/albums", { token: other.access, body: { title: "Not yours" } });
  await env.DB.prepare(
    "INSERT INTO reports (id, file_id, reason, details, email, reporter_user_id, priority, status, report_count, note, resolved_by, created_at, updated_at) VALUES (?, ?, 'spam', 'looks like spam', 'me@example.com', ?, 'normal', 'pending', 1, 'moderator-only note', 'usr_moderator', ?, ?)",
  )
    .bind("rep_exporttest000000000001", files[0].id, owner.id, Date.now(), Date.now())
    .run();
  expect((await call("/billing/subscription", { token: owner.access, body: { plan: "pro" } })).status).toBe(202);
  const admin = await userWithRole("admin");
  expect((await call(`/admin/users/${owner.id}`, { method: "PATCH", token: admin.access, body: { role: "moderator" } })).status).toBe(200);

  const res = await call("/account/export", { token: owner.access });
  expect(res.status).toBe(200);
  exported = res.body;
  exportText = res.text;
  exportHeaders = res.headers;
});

describe("GET /account/export", () => {
  it("is a JSON attachment, not cached", () => {
    expect(exportHeaders.get("content-type")).toMatch(/^application\/json/);
    expect(exportHeaders.get("content-disposition")).toMatch(/^attachment; filename="account-export-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(exportHeaders.get("cache-control")).toBe("no-store");
    expect(exportHeaders.get("x-ratelimit-limit")).not.toBeNull();
  });

  it("holds the profile and every section", () => {
    expect(Object.keys(exported)).toEqual(["format", "exportedAt", "profile", "files", "albums", "albumFiles", "apiKeys", "sessions", "secondFactors", "reports", "planChanges", "accountHistory", "mail"]);
    expect(exported.format).toBe("image-host-export/1");
    expect(exported.profile).toMatchObject({ id: owner.id, email: owner.email, role: "moderator", plan: "free", emailVerified: true, storageUsed: 4096, storageReserved: 512 });
  });

  it("lists the caller's files with their links, deleted ones included, nobody else's", () => {
    expect(exported.files.map((f: any) => f.id)).toEqual(files.map((f) => f.id));
    const [first] = exported.files;
    expect(first).toMatchObject({
      url: `${env.IMAGE_URL}/${files[0].id}`,
      cdnUrl: `${env.CDN_URL}/${files[0].storeKey}`,
      thumbnailUrl: `${env.IMAGE_URL}/${files[0].id}/thumb`,
      pageUrl: `${env.SITE_URL}/f/${files[0].id}`,
      visibility: "public",
      mime: "image/png",
      deletedAt: null,
    });
    expect(exported.files[2].deletedAt).toMatch(/Z$/);
  });

  it("lists albums and their files; an album password shows only as a flag", () => {
    expect(exported.albums).toHaveLength(1);
    expect(exported.albums[0]).toMatchObject({ id: albumId, title: "Holiday", url: `${env.SITE_URL}/a/${albumId}`, passwordProtected: true, fileCount: 2 });
    expect(exported.albumFiles.map((m: any) => [m.albumId, m.fileId]).sort()).toEqual([[albumId, files[0].id], [albumId, files[1].id]].sort());
  });

  it("lists keys, sessions, filed reports, plan changes, account history and mail without secrets", () => {
    expect(exported.apiKeys).toEqual([expect.objectContaining({ id: key.id, name: "ci key", prefix: key.key.slice(0, 9), permissions: ["read", "upload"] })]);
    expect(exported.apiKeys[0]).not.toHaveProperty("key");
    expect(exported.sessions.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(exported.sessions[0]).sort()).toEqual(["createdAt", "expiresAt", "revokedAt", "revokedReason"]);
    expect(exported.secondFactors).toEqual([
      { method: "totp", createdAt: expect.any(String), confirmedAt: expect.any(String), usedAt: expect.any(String) },
      { method: "passkey", name: "Export laptop", createdAt: passkey.createdAt, confirmedAt: passkey.createdAt, usedAt: null },
      ...totp.recoveryCodes.map(() => ({ method: "recovery", createdAt: expect.any(String), confirmedAt: null, usedAt: null })),
    ]);
    expect(exported.reports).toEqual([
      { reportId: "rep_exporttest000000000001", fileId: files[0].id, reason: "spam", details: "looks like spam", email: "me@example.com", status: "pending", createdAt: expect.any(String), resolvedAt: null },
    ]);
    expect(exported.planChanges).toEqual([expect.objectContaining({ fromPlan: "free", toPlan: "pro", status: "pending" })]);
    expect(exported.accountHistory).toEqual([expect.objectContaining({ action: "user.role_change", details: { from: "user", to: "moderator" } })]);
    expect(exported.mail.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(exported.mail[0]).sort()).toEqual(["createdAt", "kind", "sentAt", "subject"]);
  });

  it("contains no secret", async () => {
    const row = await env.DB.prepare("SELECT password_hash FROM users WHERE id = ?").bind(owner.id).first<{ password_hash: string }>();
    const keyRow = await env.DB.prepare("SELECT key_hash FROM api_keys WHERE id = ?").bind(key.id).first<{ key_hash: string }>();
    const seed = await env.DB.prepare("SELECT secret_sealed FROM totp_factors WHERE user_id = ?").bind(owner.id).first<{ secret_sealed: string }>();
    const codeHashes = await env.DB.prepare("SELECT code_hash FROM recovery_codes WHERE user_id = ?").bind(owner.id).all<{ code_hash: string }>();
    const stored = await env.DB.prepare("SELECT credential_id, public_key FROM passkeys WHERE id = ?").bind(passkey.id).first<{ credential_id: string; public_key: string }>();
    const twoFactor = [stored!.credential_id, stored!.public_key, totp.secret, seed!.secret_sealed, ...codeHashes.results.map((r) => r.code_hash), ...totp.recoveryCodes, ...totp.recoveryCodes.map((c) => c.replace(/-/g, ""))];
    for (const secret of [key.key, keyRow!.key_hash, row!.password_hash, owner.refresh, owner.access, "album secret 1", "moderator-only note", "usr_moderator", ...twoFactor]) {
      expect(exportText).not.toContain(secret);
    }
    expect(exportText).not.toMatch(/pbkdf2|password_hash|passwordHash|keyHash|tokenHash|verification token/i);
    expect(exportText).not.toContain(other.id);
    expect(exportText).not.toContain("Not yours");
  });

  it("streams: many rows arrive complete and in order across pages, in several chunks", async () => {
    const u = await verifiedUser();
    const count = EXPORT_PAGE_SIZE * 2 + 37;
    const t0 = Date.now() - 100_000;
    const db = (await databaseOf(u.id))!; // the owner's shard
    const stmts = [];
    for (let i = 0; i < count; i++) {
      // Pairs share a timestamp, so the keyset's id tie-break is exercised.
      const id = `file_bulk${String(i).padStart(5, "0")}${u.id.slice(4, 11)}`;
      stmts.push(
        db.prepare(
          "INSERT INTO files (id, user_id, filename, mime, bytes, store_key, state, created_at, updated_at) VALUES (?, ?, 'x.png', 'image/png', 1, ?, 'finalized', ?, ?)",
        ).bind(id, u.id, `uploads/2026-01-01/${id}/x.png`, t0 + Math.floor(i / 2), t0),
      );
    }
    await db.batch(stmts);
    const res = await exports.default.fetch(`${BASE}/account/export`, { headers: { authorization: `Bearer ${u.access}` } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      text += decoder.decode(value, { stream: true });
    }
    expect(chunks).toBeGreaterThan(3);
    const body = JSON.parse(text);
    expect(body.files).toHaveLength(count);
    const ids = body.files.map((f: any) => f.id);
    expect(new Set(ids).size).toBe(count);
    expect(ids).toEqual([...ids].sort());
  });

  it("is session-only", async () => {
    const byKey = await call("/account/export", { token: key.key });
    expect(byKey.status).toBe(403);
    expect(byKey.body.message).toContain("API keys can only access");
    expect((await call("/account/export")).status).toBe(401);
  });
});
