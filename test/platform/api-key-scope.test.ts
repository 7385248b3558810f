// An API key refused on a session-only route is told what keys may call (api-v1.md: "API keys can only access"),
// the list read off the routes' guards (middleware/guards.ts describeKeyScope), not written beside them.
import { describe, expect, it } from "vitest";
import { call, createKey, verifiedUser } from "../support/api";

describe("the API key refusal's message", async () => {
  const user = await verifiedUser();
  const { key } = await createKey(user, { permissions: ["read", "upload", "manage"] });

  it("names what keys may call, from the routes, and each of those takes the key", async () => {
    const refused = await call("/keys", { token: key });
    expect(refused.status).toBe(403);
    const message: string = refused.body.message;
    expect(message).toMatch(/^API keys can only access .+; sign in for this endpoint$/);
    const named = message.replace(/^API keys can only access /, "").replace(/; sign in.*$/, "").split(/, | and /);
    expect(named).toEqual(expect.arrayContaining(["/upload", "/files", "/albums", "/search", "POST /moderation/report"]));
    for (const prefix of ["/auth", "/keys", "/admin", "/billing"]) expect(named).not.toContain(prefix);
    // A named route answers the key with anything but api_key_not_allowed.
    for (const probe of ["/files", "/albums", "/search?q=x", "/account/limits", "/account/whoami"]) {
      const r = await call(probe, { token: key });
      expect([probe, r.body?.details?.code]).not.toEqual([probe, "api_key_not_allowed"]);
    }
  });
});
