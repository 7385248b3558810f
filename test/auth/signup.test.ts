import { describe, expect, it } from "vitest";
import { PASSWORD, call, isErrorBody, uniqueEmail, uniqueUsername } from "../support/api";

describe("POST /auth/signup", () => {
  it("creates the account and signs in", async () => {
    const email = uniqueEmail();
    const res = await call("/auth/signup", {
      body: { email, password: PASSWORD, username: uniqueUsername(), firstName: "Ada", lastName: "L", ageConfirmed: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email, role: "user", plan: "free", ageConfirmed: true });
    expect(res.body.user.id).toMatch(/^usr_[A-Za-z0-9_-]{21}$/);
    expect(Object.keys(res.body.user).sort()).toEqual(["ageConfirmed", "email", "id", "plan", "role", "username"]);
    expect(res.body.session).toMatchObject({ expires_in: 900, token_type: "Bearer" });
    expect(res.body.session.access_token.split(".")).toHaveLength(3);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });
});
