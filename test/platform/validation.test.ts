import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "@hono/zod-openapi";
import { fieldErrors, validationError } from "../../src/platform/http/validation";
import { ApiError } from "../../src/platform/errors/errors";
import { SignupRequest } from "../../src/auth/schemas";

describe("fieldErrors", () => {
  it("joins paths with dots", () => {
    expect(fieldErrors([{ path: ["a", 0, "b"], message: "bad" }])).toEqual([{ path: "a.0.b", message: "bad" }]);
    expect(fieldErrors([{ path: [], message: "root" }])).toEqual([{ path: "", message: "root" }]);
  });

  it("lists each unknown key as its own field", () => {
    expect(fieldErrors([{ path: [], message: "x", code: "unrecognized_keys", keys: ["foo", "bar"] }])).toEqual([
      { path: "foo", message: "Unknown field" },
      { path: "bar", message: "Unknown field" },
    ]);
    expect(fieldErrors([{ path: ["nested"], message: "x", code: "unrecognized_keys", keys: ["k"] }])).toEqual([
      { path: "nested.k", message: "Unknown field" },
    ]);
  });

  it("works on real zod issues", () => {
    const schema = z.object({ a: z.string(), b: z.object({ c: z.number() }).strict() }).strict();
    const r = schema.safeParse({ a: 1, b: { c: "x", d: 1 }, e: 2 });
    expect(r.success).toBe(false);
    const fields = fieldErrors(r.error!.issues);
    expect(fields.map((f) => f.path).sort()).toEqual(["a", "b.c", "b.d", "e"]);
  });

  it("validationError is the contract's 400", () => {
    const err = validationError([{ path: ["email"], message: "Invalid email" }]);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.body()).toEqual({
      error: "Bad Request",
      message: "Invalid request body",
      details: { code: "validation_error", fields: [{ path: "email", message: "Invalid email" }] },
    });
  });
});

describe("SignupRequest (property)", () => {
  it("never throws; accepts exactly the documented shapes", () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const r = SignupRequest.safeParse(input);
        if (r.success) {
          expect(r.data.password.length).toBeGreaterThanOrEqual(8);
          expect(r.data.password.length).toBeLessThanOrEqual(256);
          expect(r.data.username).toMatch(/^[A-Za-z0-9_.-]{3,32}$/);
        } else {
          expect(fieldErrors(r.error.issues).length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("passwords: 8..256 characters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (password) => {
        const r = SignupRequest.safeParse({ email: "a@example.com", username: "abc", password });
        expect(r.success).toBe(password.length >= 8 && password.length <= 256);
      }),
      { numRuns: 500 },
    );
  });

  it("usernames: 3..32 of letters, digits, _ . -", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (username) => {
        const r = SignupRequest.safeParse({ email: "a@example.com", username, password: "12345678" });
        expect(r.success).toBe(/^[A-Za-z0-9_.-]{3,32}$/.test(username.trim()));
      }),
      { numRuns: 1000 },
    );
  });
});
