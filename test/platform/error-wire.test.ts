// Error bodies on the wire (decisions.md § Errors): what the ErrorCode table and the error mapper answer
// (malformed JSON: platform/http/validation.ts), byte for byte, including Hono's own refusals.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { call, signup } from "../support/api";
import { REQUEST_LIMITS } from "../../src/config";
import { ApiError } from "../../src/platform/errors/errors";
import { onError } from "../../src/middleware/error-handler";
import type { AppEnv } from "../../src/platform/http/env";

const SITE = "http://localhost:8787";
const MALFORMED = { error: "Bad Request", message: "The request body is not valid JSON", details: { code: "malformed_json" } };
const json = (type = "application/json") => ({ "content-type": type });

describe("JSON bodies that do not parse", () => {
  it("are 400 malformed_json, whatever JSON media type they claim", async () => {
    for (const type of ["application/json", "application/json; charset=utf-8", "application/merge-patch+json"]) {
      const res = await call("/auth/login", { raw: '{"email":', headers: json(type) });
      expect(res.status, type).toBe(400);
      expect(res.text).toBe(JSON.stringify(MALFORMED));
    }
  });

  it("are answered in the body's turn: guards, then path parameters, then the body", async () => {
    const user = await signup();
    const longId = "x".repeat(65);
    const anonymous = await call(`/files/${longId}`, { method: "PATCH", raw: "{", headers: json() });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.details.code).toBe("unauthorized");
    const badParam = await call(`/files/${longId}`, { method: "PATCH", raw: "{", headers: json(), token: user.access });
    expect(badParam.status).toBe(400);
    expect(badParam.body).toMatchObject({ error: "Bad Request", message: "Invalid request param", details: { code: "validation_error" } });
    expect(badParam.body.details.fields.map((f: { path: string }) => f.path)).toEqual(["id"]);
    const badBody = await call("/files/file_V1StGXR8_Z5jdHi6B-myT", { method: "PATCH", raw: "{", headers: json(), token: user.access });
    expect(badBody.status).toBe(400);
    expect(badBody.text).toBe(JSON.stringify(MALFORMED));
  });

  it("a body that parses reaches the handler as before", async () => {
    const res = await call("/auth/login", { body: { email: "nobody@example.com", password: "x" } });
    expect(res.status).toBe(401);
    expect(res.body.details.code).toBe("invalid_credentials");
  });
});

describe("Hono's refusals", () => {
  it("a Content-Type the route does not declare is 415 unsupported_content_type", async () => {
    const res = await call("/auth/login", { raw: "email=a", headers: json("text/plain") });
    expect(res.status).toBe(415);
    expect(res.text).toBe(
      JSON.stringify({
        error: "Unsupported Media Type",
        message: "This endpoint does not accept the request's Content-Type",
        details: { code: "unsupported_content_type" },
      }),
    );
  });

  it("a JSON body over the limit is 413 body_too_large", async () => {
    const res = await call("/auth/login", { raw: JSON.stringify({ email: "a".repeat(REQUEST_LIMITS.jsonBodyBytes) }), headers: json() });
    expect(res.status).toBe(413);
    expect(res.text).toBe(
      JSON.stringify({
        error: "Payload Too Large",
        message: `JSON bodies are limited to ${REQUEST_LIMITS.jsonBodyBytes} bytes`,
        details: { code: "body_too_large" },
      }),
    );
  });

  it("other HTTPExceptions keep the http_error answer, known by class and status", async () => {
    const app = new Hono<AppEnv>();
    app.get("/refused", () => {
      throw new HTTPException(400, { message: "Invalid mounted path" });
    });
    app.get("/failed", () => {
      throw new HTTPException(500, { message: "internals" });
    });
    app.get("/ours", () => {
      throw new ApiError("upload_expired", "This upload expired; start a new one");
    });
    app.onError(onError);
    const refused = await app.request("/refused", {}, env);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toBe(JSON.stringify({ error: "Bad Request", message: "Invalid mounted path", details: { code: "http_error" } }));
    const failed = await app.request("/failed", {}, env);
    expect(failed.status).toBe(500);
    expect(await failed.text()).toBe(JSON.stringify({ error: "Internal Server Error", message: "Internal error", details: { code: "http_error" } }));
    const ours = await app.request("/ours", {}, env);
    expect(ours.status).toBe(410);
    expect(await ours.json()).toEqual({ error: "Gone", message: "This upload expired; start a new one", details: { code: "upload_expired" } });
  });
});

describe("ApiError", () => {
  it("is Hono's HTTPException: status from the table, the contract's body from getResponse", async () => {
    const err = new ApiError("account_suspended", "The account that owns this API key is suspended");
    expect(err).toBeInstanceOf(HTTPException);
    expect(err.status).toBe(403);
    expect(err.body()).toEqual({ error: "Forbidden", message: "The account that owns this API key is suspended", details: { code: "account_banned" } });
    const res = err.getResponse();
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual(err.body());
    // The contract's own `error` texts, where it has them.
    expect(new ApiError("api_key_revoked", "m").body()).toEqual({ error: "API key has been revoked", message: "m", details: { code: "api_key_revoked" } });
    // Extra details follow the code, in the order given.
    expect(JSON.stringify(new ApiError("size_mismatch", "m", { expected: 3, received: 2 }).details)).toBe('{"code":"size_mismatch","expected":3,"received":2}');
  });
});

describe("unknown API routes", () => {
  it("are answered (not thrown): the contract's 404 with the rate-limit and request-id headers", async () => {
    const res = await call("/nope/deeper", { method: "DELETE" });
    expect(res.status).toBe(404);
    expect(res.text).toBe(JSON.stringify({ error: "Not Found", message: "No route for DELETE /api/v1/nope/deeper", details: { code: "not_found" } }));
    expect(res.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });
});

describe("oEmbed errors", () => {
  it("use the table's codes in the API's body", async () => {
    const format = await call(`${SITE}/oembed?format=xml&url=x`);
    expect(format.status).toBe(501);
    expect(format.text).toBe(JSON.stringify({ error: "Not Implemented", message: "Only format=json is supported", details: { code: "oembed_format" } }));
    const url = await call(`${SITE}/oembed?url=not-a-url`);
    expect(url.status).toBe(400);
    expect(url.text).toBe(JSON.stringify({ error: "Bad Request", message: "url must be an absolute URL", details: { code: "oembed_url" } }));
    const missing = await call(`${SITE}/oembed?url=${encodeURIComponent("https://elsewhere.example/x")}`);
    expect(missing.status).toBe(404);
    expect(missing.text).toBe(JSON.stringify({ error: "Not Found", message: "No embeddable content at that URL", details: { code: "not_found" } }));
  });
});
