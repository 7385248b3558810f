// Access-token security: every token here differs from a valid one in exactly one way and must give 401.
import { describe, expect, it } from "vitest";
import { call, signup } from "../support/api";
import { TEST_AUDIENCE, TEST_ISSUER, claimsOf, signJwt, unsignedJwt } from "../support/tokens";

const account = (token: string) => call("/account", { token });

async function sessionClaims() {
  const user = await signup();
  const { sub, sid, typ, jti } = claimsOf(user.access);
  return { user, claims: { sub, sid, typ, jti } };
}

const expectUnauthorized = (res: { status: number; body: any }) => {
  expect(res.status).toBe(401);
  expect(res.body.error).toBe("Unauthorized");
  expect(typeof res.body.message).toBe("string");
};

describe("access tokens (JWT)", () => {
  it("the real token carries the decided claims", async () => {
    const user = await signup();
    const c = claimsOf(user.access);
    expect(c).toMatchObject({ iss: TEST_ISSUER, aud: TEST_AUDIENCE, sub: user.id, typ: "access" });
    expect(c.sid).toMatch(/^ses_/);
    expect(c.jti).toMatch(/^tok_/);
    expect((c.exp as number) - (c.iat as number)).toBe(900);
    const header = JSON.parse(atob(user.access.split(".")[0].replace(/-/g, "+").replace(/_/g, "/")));
    expect(header.alg).toBe("HS256");
  });

  it("control: a token we sign ourselves with the right settings is accepted", async () => {
    const { claims } = await sessionClaims();
    expect((await account(await signJwt(claims))).status).toBe(200);
  });

  it("tampered payload (signature of another payload)", async () => {
    const { claims, user } = await sessionClaims();
    const other = await signup();
    const [h, , s] = user.access.split(".");
    const [, p2] = other.access.split(".");
    expectUnauthorized(await account(`${h}.${p2}.${s}`));
    // Flipping one character of the payload.
    const [, p] = user.access.split(".");
    const flipped = p.slice(0, 10) + (p[10] === "A" ? "B" : "A") + p.slice(11);
    expectUnauthorized(await account(`${h}.${flipped}.${s}`));
    void claims;
  });

  it("alg: none", async () => {
    const { claims } = await sessionClaims();
    const now = Math.floor(Date.now() / 1000);
    const token = unsignedJwt({ ...claims, iss: TEST_ISSUER, aud: TEST_AUDIENCE, iat: now, exp: now + 600 });
    expectUnauthorized(await account(token));
  });

  it("HS512 with the right secret (algorithm pinned to HS256)", async () => {
    const { claims } = await sessionClaims();
    expectUnauthorized(await account(await signJwt(claims, { alg: "HS512" })));
    expectUnauthorized(await account(await signJwt(claims, { alg: "HS384" })));
  });

  it("wrong secret", async () => {
    const { claims } = await sessionClaims();
    expectUnauthorized(await account(await signJwt(claims, { secret: "another-secret-that-is-long-enough-0123456789" })));
  });

  it("wrong audience", async () => {
    const { claims } = await sessionClaims();
    expectUnauthorized(await account(await signJwt(claims, { audience: "https://evil.example.com/api/v1" })));
  });

  it("wrong issuer", async () => {
    const { claims } = await sessionClaims();
    expectUnauthorized(await account(await signJwt(claims, { issuer: "https://evil.example.com" })));
  });

  it("expired", async () => {
    const { claims } = await sessionClaims();
    const now = Math.floor(Date.now() / 1000);
    expectUnauthorized(await account(await signJwt(claims, { iat: now - 2000, exp: now - 1000 })));
  });

  it("missing claims: sid, jti, typ", async () => {
    const { claims } = await sessionClaims();
    for (const drop of ["sid", "jti", "typ"] as const) {
      const { [drop]: _dropped, ...rest } = claims;
      expectUnauthorized(await account(await signJwt(rest)));
    }
  });

  it("unknown typ, e.g. refresh", async () => {
    const { claims } = await sessionClaims();
    expectUnauthorized(await account(await signJwt({ ...claims, typ: "refresh" })));
  });

  it("a session id that belongs to another user", async () => {
    const { claims } = await sessionClaims();
    const other = await signup();
    expectUnauthorized(await account(await signJwt({ ...claims, sub: other.id })));
  });

  it("a session id that does not exist", async () => {
    const { claims } = await sessionClaims();
    expectUnauthorized(await account(await signJwt({ ...claims, sid: "ses_V1StGXR8_Z5jdHi6B-myT" })));
  });

  it("an upload token (typ upload) on /account", async () => {
    const { claims } = await sessionClaims();
    const token = await signJwt({ sub: "anonymous", typ: "upload", fid: "file_V1StGXR8_Z5jdHi6B-myT", jti: claims.jti });
    expectUnauthorized(await account(token));
    expectUnauthorized(await call("/keys", { token }));
    expectUnauthorized(await call("/auth/logout", { method: "POST", token }));
  });

  it("a refresh token used as a bearer access token", async () => {
    const user = await signup();
    // Not shaped like a JWT, so it is read as an API key attempt (auth/principal.ts) and gets that 401 text.
    const res = await account(user.refresh);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("Invalid API key");
  });

  it("malformed Authorization headers", async () => {
    const user = await signup();
    for (const value of [`Basic ${btoa("a:b")}`, "Bearer", "Bearer ", `Token ${user.access}`, `Bearer ${user.access} extra`, "Bearer a.b"]) {
      const res = await call("/account", { headers: { authorization: value } });
      expect(res.status, value).toBe(401);
    }
    // The scheme is case-insensitive.
    expect((await call("/account", { headers: { authorization: `bearer ${user.access}` } })).status).toBe(200);
  });

  it("a token whose payload is not JSON", async () => {
    const user = await signup();
    const [h, , s] = user.access.split(".");
    expectUnauthorized(await account(`${h}.bm90LWpzb24.${s}`));
  });
});
