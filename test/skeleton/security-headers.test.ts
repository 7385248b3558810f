// Headers every response carries (nosniff; HSTS in production) and the API's CORS for Bearer clients.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, signup, type TestUser } from "../support/api";
import { IMAGE, SITE, fetchRaw, seedFile } from "../support/files";
import { createApp } from "../../src/app";

let user: TestUser;
let fileId: string;
beforeAll(async () => {
  user = await signup();
  fileId = (await seedFile(user.id)).id;
});

describe("security headers", () => {
  it("JSON API responses carry nosniff: successes, errors, 404s, validation errors", async () => {
    for (const reply of [await call("/account", { token: user.access }), await call("/account"), await call("/nope"), await call("/auth/signup", { body: {} })]) {
      expect(reply.headers.get("x-content-type-options"), String(reply.status)).toBe("nosniff");
      expect(reply.headers.get("x-frame-options"), String(reply.status)).toBe("DENY");
      expect(reply.headers.get("strict-transport-security")).toBeNull(); // not production
    }
  });

  it("JSON gets the API's set, pages the document headers too", async () => {
    const documentOnly = ["cross-origin-opener-policy", "origin-agent-cluster", "x-dns-prefetch-control", "x-download-options", "x-xss-protection"];
    const api = await call(`/files/${fileId}`);
    for (const h of documentOnly) expect(api.headers.get(h), h).toBeNull();
    const page = await fetchRaw(`${SITE}/docs`);
    for (const h of [...documentOnly, "referrer-policy", "x-permitted-cross-domain-policies"]) expect(page.headers.get(h), h).not.toBeNull();
  });

  it("production responses carry HSTS on the API, pages and byte links", async () => {
    const app = createApp();
    const prod = { ...env, ENVIRONMENT: "production" };
    for (const path of ["/api/v1/nope", `/api/v1/files/${fileId}`, "/docs", `/i/${fileId}`, "/no-such-page"]) {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(`http://localhost:8787${path}`), prod, ctx);
      await waitOnExecutionContext(ctx);
      await res.body?.cancel();
      expect(res.headers.get("strict-transport-security"), path).toBe("max-age=31536000; includeSubDomains");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
  });

  it("routes keep their own stricter headers: pages DENY framing, byte links stay embeddable", async () => {
    const page = await fetchRaw(`${SITE}/docs`);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const bytes = await fetchRaw(`${IMAGE}/${fileId}`);
    expect(bytes.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
  });
});

describe("CORS on the API", () => {
  const origin = "https://tool.example";

  it("answers a preflight (not 404) allowing Authorization, without credentials", async () => {
    for (const path of ["/files", "/upload/presign", `/files/${fileId}`]) {
      const res = await call(path, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-headers")).toContain("Authorization");
      expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });

  it("exposes the rate-limit headers and Retry-After on answers and errors", async () => {
    for (const reply of [await call("/files", { token: user.access, headers: { origin } }), await call("/files", { headers: { origin } })]) {
      expect(reply.headers.get("access-control-allow-origin")).toBe("*");
      const exposed = reply.headers.get("access-control-expose-headers") ?? "";
      for (const h of ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"]) expect(exposed).toContain(h);
    }
  });

  it("the web app's cookie routes stay same-origin: no CORS headers", async () => {
    const res = await fetchRaw(`${SITE}/app/login`, { headers: { origin } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await fetchRaw(`${SITE}/app/login`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });
});
