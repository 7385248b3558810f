// The HTTP skeleton: request ids, the JSON 404, the OpenAPI document, the docs page.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, call, isErrorBody, signup } from "../support/api";
import { PAGE_CSP } from "../../src/pages/routes";
import { createApp } from "../../src/app";

const SITE = "http://localhost:8787";

describe("X-Request-Id", () => {
  it("is on successes, errors, 404s and site pages, and differs per request", async () => {
    const user = await signup();
    const replies = [
      await call("/account", { token: user.access }), // 200
      await call("/account"), // 401
      await call("/auth/signup", { body: {} }), // 400
      await call("/auth/login", { raw: "{", headers: { "content-type": "application/json" } }), // 400 malformed
      await call("/nope"), // 404
      await call(`${SITE}/docs`), // html
      await call(`${SITE}/no-such-page`), // html 404
    ];
    const ids = replies.map((r) => r.headers.get("x-request-id"));
    for (const [i, id] of ids.entries()) expect(id, `reply ${i} (${replies[i].status})`).toMatch(/^req_[A-Za-z0-9_-]{21}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keeps a well-formed incoming id and replaces a bad one", async () => {
    const kept = await call("/nope", { headers: { "x-request-id": "trace-1234567890" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-1234567890");
    const replaced = await call("/nope", { headers: { "x-request-id": "bad id <script>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);
  });
});

describe("unknown API routes", () => {
  it("are a JSON 404 in the contract body", async () => {
    for (const [method, path] of [
      ["GET", "/nope"],
      ["POST", "/auth/nope"],
      ["DELETE", "/account/extra/segments"],
      ["PUT", "/auth/login"],
    ]) {
      const res = await call(path, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(isErrorBody(res.body)).toBe(true);
      expect(res.body).toMatchObject({ error: "Not Found", details: { code: "not_found" } });
    }
  });

  it("site pages that do not exist are an HTML 404", async () => {
    const res = await call(`${SITE}/no-such-page`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });
});

describe("GET /openapi.json", () => {
  it("is OpenAPI 3.1 and lists every foundation route", async () => {
    const res = await call("/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers).toEqual([{ url: BASE, description: "This deployment's API (BASE_URL)" }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    const expected: [string, string][] = [
      ["/auth/signup", "post"],
      ["/auth/login", "post"],
      ["/auth/refresh", "post"],
      ["/auth/logout", "post"],
      ["/auth/verify-email", "post"],
      ["/auth/resend-verification", "post"],
      ["/account", "get"],
      ["/account", "patch"],
      ["/keys", "post"],
      ["/keys", "get"],
      ["/keys/{id}", "delete"],
    ];
    for (const [path, method] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method.toUpperCase()} ${path}`).toBeDefined();
      expect(op.summary, `${method} ${path} summary`).toBeTruthy();
      expect(op.tags?.length, `${method} ${path} tags`).toBeGreaterThan(0);
      expect(Object.keys(op.responses).length).toBeGreaterThan(1);
    }
    // Session-only routes declare the bearer scheme.
    for (const [path, method] of [["/auth/logout", "post"], ["/account", "get"], ["/keys", "post"]]) {
      expect(doc.paths[path][method].security).toEqual([{ bearerAuth: [] }]);
    }
    // The error schemas are shared components.
    expect(doc.components.schemas.Error).toBeDefined();
    expect(doc.components.schemas.RateLimitError).toBeDefined();
    expect(doc.paths["/auth/login"].post.responses["429"]).toBeDefined();
  });
});

describe("{site_url}/docs", () => {
  it("renders the API reference as HTML with a CSP", async () => {
    const res = await call(`${SITE}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(PAGE_CSP);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.text).toContain("<html");
    expect(res.text).toContain("/auth/signup");
  });

  it("the home page renders too", async () => {
    const res = await call(`${SITE}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(PAGE_CSP);
  });
});

describe("errors never leak as 500", () => {
  it("odd inputs give 4xx", async () => {
    const odd: [string, Parameters<typeof call>[1]][] = [
      ["/auth/signup", { raw: "\u0000\u0001", headers: { "content-type": "application/json" } }],
      ["/auth/signup", { raw: '{"email":{"$gt":""}}', headers: { "content-type": "application/json" } }],
      ["/auth/login", { raw: "1e999", headers: { "content-type": "application/json" } }],
      ["/auth/refresh", { body: { refresh_token: ["a"] } }],
      ["/keys?limit=1e400", { headers: { authorization: "Bearer pk_" } }],
      ["/account", { headers: { authorization: "Bearer ..." } }],
      ["/account", { headers: { authorization: "Bearer eyJ.eyJ.x" } }],
    ];
    for (const [path, opts] of odd) {
      const res = await call(path, opts);
      expect(res.status, `${path} ${JSON.stringify(opts)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${path} ${JSON.stringify(opts)}`).toBeLessThan(500);
      expect(isErrorBody(res.body)).toBe(true);
    }
  });
});

describe("unexpected failures", () => {
  it("answer 500 in the contract body with the request id and no internals", async () => {
    const app = createApp();
    app.get("/boom", () => {
      throw new Error("secret internal detail");
    });
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request("http://localhost:8787/boom"), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(500);
    const id = res.headers.get("x-request-id");
    expect(id).toMatch(/^req_/);
    const body = (await res.json()) as any;
    expect(body).toEqual({ error: "Internal Server Error", message: expect.any(String), details: { code: "internal_error", requestId: id } });
    expect(JSON.stringify(body)).not.toContain("secret internal detail");
  });
});

describe("routing", () => {
  // Hono's SmartRouter falls back to its slower TrieRouter, for every request, when one route is one
  // RegExpRouter cannot hold (a static segment beside a parameter with deeper routes, per method: e.g.
  // POST /app/files/bulk beside POST /app/files/:id/edit). Routing was 8% of a short link's CPU on TrieRouter.
  it("matches every route with the RegExpRouter", async () => {
    const app = createApp();
    const ctx = createExecutionContext();
    await app.fetch(new Request(`${SITE}/i/file_AAAAAAAAAAAAAAAAAAAAA`), env, ctx);
    await waitOnExecutionContext(ctx);
    expect((app as unknown as { router: { name: string } }).router.name).toBe("SmartRouter + RegExpRouter");
  });
});
