// GET /account/whoami: the account a credential belongs to, for API keys too (GET /account is session-only), so
// `imghost login` can say whose key it saved.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, uniqueUsername, verifiedUser, type TestUser } from "../support/api";
import { uploadKeys } from "../support/key-set";

let user: TestUser;
let username: string;

beforeAll(async () => {
  username = uniqueUsername("who");
  user = await verifiedUser({ username });
});

describe("GET /account/whoami", () => {
  it("an API key of any permission learns its account and itself", async () => {
    const { id, key } = await createKey(user, { name: "laptop", permissions: ["upload"] });
    const res = await call("/account/whoami", { token: key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      user: { id: user.id, username, email: user.email, plan: "free" },
      via: "api_key",
      key: { id, name: "laptop", prefix: expect.any(String), permissions: ["upload"], expiresAt: null },
    });
    expect(key.startsWith(res.body.key.prefix)).toBe(true);
  });

  it("a session: the account, and no key", async () => {
    const res = await call("/account/whoami", { token: user.access });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user: { id: user.id, username, email: user.email }, via: "session", key: null });
  });

  it("no credentials, a revoked or an expired key: 401", async () => {
    const { revoked, expired } = await uploadKeys(user);
    expect((await call("/account/whoami")).status).toBe(401);
    expect((await call("/account/whoami", { token: revoked })).body.error).toBe("API key has been revoked");
    expect((await call("/account/whoami", { token: expired })).body.error).toBe("API key has expired");
  });
});
