import { describe, expect, it } from "vitest";
import { PASSWORD, call, createKey, isErrorBody, uniqueEmail, uniqueUsername, verifiedUser } from "../support/api";

const signupBody = (over: Record<string, unknown> = {}) => ({
  email: uniqueEmail(),
  password: PASSWORD,
  username: uniqueUsername(),
  ...over,
});

/** The paths named in details.fields of a 400. */
const failingFields = (body: any): string[] => body.details.fields.map((f: { path: string }) => f.path);

describe("POST /auth/signup", () => {
  it("creates the account and signs in", async () => {
    const email = uniqueEmail();
    const username = uniqueUsername();
    const res = await call("/auth/signup", {
      body: { email, password: PASSWORD, username, firstName: "Ada", lastName: "L", ageConfirmed: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.user).toEqual({ id: res.body.user.id, email, username, role: "user", plan: "free", ageConfirmed: true });
    expect(res.body.user.id).toMatch(/^usr_[A-Za-z0-9_-]{21}$/);
    expect(Object.keys(res.body.user).sort()).toEqual(["ageConfirmed", "email", "id", "plan", "role", "username"]);
    expect(res.body.session).toMatchObject({ expires_in: 900, token_type: "Bearer" });
    expect(Object.keys(res.body.session).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type"]);
    expect(res.body.session.access_token.split(".")).toHaveLength(3);
    expect(typeof res.body.session.refresh_token).toBe("string");
    expect(res.body.session.refresh_token.length).toBeGreaterThanOrEqual(32);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);

    // The access token works at once.
    const me = await call("/account", { token: res.body.session.access_token });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: res.body.user.id, firstName: "Ada", lastName: "L", emailVerified: false, safeMode: true });
  });

  it("lower-cases the e-mail and defaults ageConfirmed to false", async () => {
    const local = `Mixed.Case-${crypto.randomUUID().slice(0, 8)}`;
    const res = await call("/auth/signup", { body: signupBody({ email: `  ${local}@Example.COM ` }) });
    expect(res.status).toBe(201);
    expect(res.body.user.email).toBe(`${local.toLowerCase()}@example.com`);
    expect(res.body.user.ageConfirmed).toBe(false);
  });

  describe("validation (400, details.fields)", () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["bad e-mail", { email: "not-an-email" }, "email"],
      ["e-mail without domain", { email: "ada@" }, "email"],
      ["e-mail not a string", { email: 42 }, "email"],
      ["password of 7 characters", { password: "1234567" }, "password"],
      ["password of 257 characters", { password: "x".repeat(257) }, "password"],
      ["username too short", { username: "ab" }, "username"],
      ["username too long", { username: "a".repeat(33) }, "username"],
      ["username with a space", { username: "ada lovelace" }, "username"],
      ["username with a slash", { username: "ada/l" }, "username"],
      ["ageConfirmed not a boolean", { ageConfirmed: "yes" }, "ageConfirmed"],
      ["unknown field", { isAdmin: true }, "isAdmin"],
      ["role may not be chosen", { role: "admin" }, "role"],
    ];
    for (const [name, over, field] of cases) {
      it(name, async () => {
        const res = await call("/auth/signup", { body: signupBody(over) });
        expect(res.status).toBe(400);
        expect(isErrorBody(res.body)).toBe(true);
        expect(res.body.error).toBe("Bad Request");
        expect(res.body.details.code).toBe("validation_error");
        expect(failingFields(res.body)).toContain(field);
        for (const f of res.body.details.fields) expect(typeof f.message).toBe("string");
      });
    }

    it("missing required fields are all listed", async () => {
      const res = await call("/auth/signup", { body: {} });
      expect(res.status).toBe(400);
      expect(failingFields(res.body).sort()).toEqual(["email", "password", "username"]);
    });

    it("accepts passwords of exactly 8 and 256 characters", async () => {
      for (const password of ["12345678", "p".repeat(256)]) {
        const res = await call("/auth/signup", { body: signupBody({ password }) });
        expect(res.status).toBe(201);
      }
    });

    it("a JSON array or scalar body is a 400, not a 500", async () => {
      for (const raw of ["[]", "null", "42", '"x"']) {
        const res = await call("/auth/signup", { raw, headers: { "content-type": "application/json" } });
        expect(res.status).toBe(400);
        expect(isErrorBody(res.body)).toBe(true);
      }
    });
  });

  describe("conflicts (409)", () => {
    it("duplicate e-mail, whatever its case", async () => {
      const email = uniqueEmail("dup");
      expect((await call("/auth/signup", { body: signupBody({ email }) })).status).toBe(201);
      const again = await call("/auth/signup", { body: signupBody({ email: email.toUpperCase() }) });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ error: "Conflict", details: { code: "email_taken" } });
    });

    it("duplicate username (case-insensitive)", async () => {
      const username = uniqueUsername("Dup");
      expect((await call("/auth/signup", { body: signupBody({ username }) })).status).toBe(201);
      const same = await call("/auth/signup", { body: signupBody({ username }) });
      expect(same.status).toBe(409);
      expect(same.body).toMatchObject({ error: "Conflict", details: { code: "username_taken" } });
      const otherCase = await call("/auth/signup", { body: signupBody({ username: username.toLowerCase() }) });
      expect(otherCase.status).toBe(409);
    });

    it("two parallel signups with one e-mail: exactly one wins", async () => {
      const email = uniqueEmail("race");
      const results = await Promise.all([0, 1].map(() => call("/auth/signup", { body: signupBody({ email }) })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    });
  });

  describe("body handling", () => {
    it("malformed JSON -> 400 malformed_json", async () => {
      const res = await call("/auth/signup", { raw: '{"email": "a@b.c",', headers: { "content-type": "application/json" } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: "Bad Request", details: { code: "malformed_json" } });
    });

    it("wrong content type -> 415", async () => {
      const res = await call("/auth/signup", {
        raw: JSON.stringify(signupBody()),
        headers: { "content-type": "text/plain" },
      });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ error: "Unsupported Media Type", details: { code: "unsupported_content_type" } });
      expect(isErrorBody(res.body)).toBe(true);
    });

    it("form-encoded body -> 415", async () => {
      const res = await call("/auth/signup", {
        raw: "email=a%40b.c&password=12345678&username=abc",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(res.status).toBe(415);
    });

    it("a JSON body without Content-Type -> 415", async () => {
      const res = await call("/auth/signup", { raw: JSON.stringify(signupBody()) });
      expect(res.status).toBe(415);
      expect(res.body.details.code).toBe("unsupported_content_type");
    });

    it("no body at all -> 4xx, never 500", async () => {
      const res = await call("/auth/signup", { method: "POST" });
      expect([400, 415]).toContain(res.status);
      expect(isErrorBody(res.body)).toBe(true);
    });

    it("oversized body -> 413", async () => {
      const res = await call("/auth/signup", { body: signupBody({ firstName: "x".repeat(70 * 1024) }) });
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ error: "Payload Too Large", details: { code: "body_too_large" } });
    });
  });

  it("an API key in Authorization -> 403 with the contract message", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user);
    const res = await call("/auth/signup", { token: key, body: signupBody() });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("Forbidden");
    expect(res.body.message).toContain("API keys can only access");
  });
});
