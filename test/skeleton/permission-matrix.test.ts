// Who may call what, table-driven from test/support/session-only-routes.ts: later features append rows there.
import { describe, expect, it } from "vitest";
import { call, createKey, verifiedUser } from "../support/api";
import { KEY_PERMISSION_ROUTES, NO_API_KEY_ROUTES, SESSION_ONLY_ROUTES } from "../support/session-only-routes";
import { PERMISSIONS } from "../../src/platform/http/env";

describe("permission matrix", async () => {
  // One user with a key holding every permission: even the strongest key is refused on these routes.
  const user = await verifiedUser();
  const { key: fullKey } = await createKey(user, { permissions: ["read", "upload", "manage"] });
  const { key: readKey } = await createKey(user, { permissions: ["read"] });

  describe.each(SESSION_ONLY_ROUTES)("$method $path (session only)", ({ method, path, body }) => {
    it.each([
      ["full key", fullKey],
      ["read key", readKey],
    ])("%s -> 403 Forbidden, API keys can only access", async (_name, key) => {
      const res = await call(path, { method, token: key, body });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("Forbidden");
      expect(res.body.message).toContain("API keys can only access");
      expect(res.body.details.code).toBe("api_key_not_allowed");
    });

    it("anonymous -> 401", async () => {
      const res = await call(path, { method, body });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("Unauthorized");
    });
  });

  describe.each(NO_API_KEY_ROUTES)("$method $path (no API keys)", ({ method, path, body }) => {
    it("API key -> 403 Forbidden, API keys can only access", async () => {
      const res = await call(path, { method, token: fullKey, body });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("Forbidden");
      expect(res.body.message).toContain("API keys can only access");
    });
  });

  // Filled in by later features; a key holding every permission except the needed one is refused.
  for (const { method, path, body, permission, anonymous } of KEY_PERMISSION_ROUTES) {
    describe(`${method} ${path} (needs '${permission}')`, () => {
      it(`a key without '${permission}' -> 403 missing_permission`, async () => {
        const others = PERMISSIONS.filter((p) => p !== permission);
        const { key } = await createKey(user, { name: `without ${permission}`, permissions: others });
        const res = await call(path, { method, token: key, body });
        expect(res.status).toBe(403);
        expect(res.body.error).toBe("Forbidden");
        expect(res.body.details.code).toBe("missing_permission");
      });
      if (anonymous !== undefined) {
        it(`anonymous -> ${anonymous}`, async () => {
          expect((await call(path, { method, body })).status).toBe(anonymous);
        });
      }
    });
  }
});
