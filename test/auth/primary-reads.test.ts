// Login and refresh decide from D1's primary. The request's handle follows the client's `x-d1-bookmark`, which may
// be old and lead to a lagging replica: a password changed, a ban, or a session revoked a moment ago would not be
// there yet. Local D1 has no replicas, so these tests hand login() and refreshSession() a request handle whose
// every query fails: the password, the ban and the revocation are still decided, so they were not read through it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { PASSWORD, signup } from "../support/api";
import { freshIp } from "../support/password";
import { claimsOf } from "../support/tokens";
import { unreachableBindings } from "../support/unreachable";
import { createDb, database0 } from "../../src/platform/data/db";
import { sessions, users } from "../../src/db/schema";
import { login } from "../../src/auth/service";
import { refreshSession } from "../../src/auth/sessions";

/** A request handle (as a bookmarked session would give) that reaches no database: any query through it throws. */
const laggingHandle = () => database0(unreachableBindings(env).bindings.DB!).directory;
const db = () => createDb(env.DB);

describe("decided at D1's primary, whatever the client's bookmark", () => {
  it("login: a wrong password is refused without reading through the request's handle", async () => {
    const user = await signup();
    await expect(login(laggingHandle(), env, user.email, "not the password", freshIp())).rejects.toMatchObject({ code: "invalid_credentials" });
  });

  it("login: a banned account is refused without reading through the request's handle", async () => {
    const user = await signup();
    await db().update(users).set({ bannedAt: new Date() }).where(eq(users.id, user.id));
    await expect(login(laggingHandle(), env, user.email, PASSWORD, freshIp())).rejects.toMatchObject({ code: "account_suspended" });
  });

  it("refresh: a revoked session, and a banned account's, are refused without reading through the request's handle", async () => {
    const user = await signup();
    await db().update(sessions).set({ revokedAt: new Date(), revokedReason: "logout" }).where(eq(sessions.id, String(claimsOf(user.access).sid)));
    await expect(refreshSession(laggingHandle(), env, user.refresh)).rejects.toMatchObject({ code: "session_revoked" });

    const banned = await signup();
    await db().update(users).set({ bannedAt: new Date() }).where(eq(users.id, banned.id));
    await expect(refreshSession(laggingHandle(), env, banned.refresh)).rejects.toMatchObject({ code: "session_revoked" });
  });
});
