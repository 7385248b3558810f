import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { call, createKey, signup, uniqueUsername, verifiedUser } from "../support/api";
import { createDb } from "../../src/platform/data/db";
import { users } from "../../src/db/schema";

const ACCOUNT_FIELDS = ["ageConfirmed", "createdAt", "email", "emailVerified", "firstName", "id", "lastName", "plan", "role", "safeMode", "username"];

describe("GET /account", () => {
  it("returns the caller's account", async () => {
    const username = uniqueUsername();
    const user = await signup({ username, firstName: "Ada", lastName: "Lovelace", ageConfirmed: false });
    const res = await call("/account", { token: user.access });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["user"]);
    expect(Object.keys(res.body.user).sort()).toEqual(ACCOUNT_FIELDS);
    expect(res.body.user).toMatchObject({
      id: user.id,
      email: user.email,
      username,
      role: "user",
      plan: "free",
      ageConfirmed: false,
      firstName: "Ada",
      lastName: "Lovelace",
      safeMode: true,
      emailVerified: false,
    });
    expect(new Date(res.body.user.createdAt).toISOString()).toBe(res.body.user.createdAt);
    // Nothing secret leaks.
    expect(res.text).not.toMatch(/pbkdf2|password|storage/i);
  });

  it("shows role and plan changes made behind the scenes", async () => {
    const user = await signup();
    await createDb(env.DB).update(users).set({ plan: "pro", role: "moderator" }).where(eq(users.id, user.id));
    const res = await call("/account", { token: user.access });
    expect(res.body.user).toMatchObject({ plan: "pro", role: "moderator" });
  });
});

describe("PATCH /account", () => {
  it("changes username, ageConfirmed and safeMode", async () => {
    const user = await signup({ ageConfirmed: false });
    const username = uniqueUsername("new");
    const res = await call("/account", { method: "PATCH", token: user.access, body: { username, ageConfirmed: true, safeMode: false } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Account updated");
    expect(res.body.user).toMatchObject({ id: user.id, username, ageConfirmed: true, safeMode: false });
    expect(Object.keys(res.body.user).sort()).toEqual(ACCOUNT_FIELDS);
    const me = await call("/account", { token: user.access });
    expect(me.body.user).toMatchObject({ username, ageConfirmed: true, safeMode: false });
  });

  it("changes one field at a time and leaves the others", async () => {
    const user = await signup({ ageConfirmed: true });
    const before = (await call("/account", { token: user.access })).body.user;
    const res = await call("/account", { method: "PATCH", token: user.access, body: { safeMode: false } });
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({ ...before, safeMode: false });
    const empty = await call("/account", { method: "PATCH", token: user.access, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.user).toEqual({ ...before, safeMode: false });
  });

  it("keeping one's own username in another case is not a conflict", async () => {
    const username = uniqueUsername("case");
    const user = await signup({ username });
    const res = await call("/account", { method: "PATCH", token: user.access, body: { username: username.toUpperCase() } });
    expect(res.status).toBe(200);
    expect(res.body.user.username).toBe(username.toUpperCase());
  });

  it("only username, ageConfirmed and safeMode may change (others 400)", async () => {
    const user = await signup();
    for (const body of [
      { email: "new@example.com" },
      { role: "admin" },
      { plan: "enterprise" },
      { emailVerified: true },
      { firstName: "X" },
      { password: "new password 123" },
      { username: "a b" },
      { username: "ab" },
      { safeMode: "false" },
      { ageConfirmed: 1 },
    ]) {
      const res = await call("/account", { method: "PATCH", token: user.access, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
      expect(res.body.details.fields.length).toBeGreaterThan(0);
    }
    const me = (await call("/account", { token: user.access })).body.user;
    expect(me).toMatchObject({ role: "user", plan: "free", emailVerified: false });
  });

  it("a taken username -> 409 (case-insensitive)", async () => {
    const taken = uniqueUsername("taken");
    await signup({ username: taken });
    const user = await signup();
    for (const username of [taken, taken.toUpperCase()]) {
      const res = await call("/account", { method: "PATCH", token: user.access, body: { username } });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: "Conflict", details: { code: "username_taken" } });
    }
  });

  it("malformed JSON 400, wrong content type 415", async () => {
    const user = await signup();
    const bad = await call("/account", { method: "PATCH", token: user.access, raw: "{x", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.code).toBe("malformed_json");
    const text = await call("/account", { method: "PATCH", token: user.access, raw: "{}", headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
  });
});

describe("/account is session only", () => {
  it("API key -> 403 with the contract message; anonymous -> 401", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user, { permissions: ["read", "upload", "manage"] });
    for (const [method, body] of [["GET", undefined], ["PATCH", { safeMode: false }]] as const) {
      const withKey = await call("/account", { method, token: key, body });
      expect(withKey.status).toBe(403);
      expect(withKey.body.error).toBe("Forbidden");
      expect(withKey.body.message).toContain("API keys can only access");
      expect(withKey.body.details.code).toBe("api_key_not_allowed");
      const anon = await call("/account", { method, body });
      expect(anon.status).toBe(401);
    }
    // The key's PATCH attempt changed nothing.
    expect((await call("/account", { token: user.access })).body.user.safeMode).toBe(true);
  });
});
