// The OpenAPI document's error listings (platform/http/openapi-errors.ts): each error response names, as examples, the
// codes its route declares (platform/http/route-errors.ts) of the response's status, and nothing else changes.
import { describe, expect, it } from "vitest";
import { call } from "../support/api";
import { createApi } from "../../src/app";
import { ERROR_CODES, wireCode, type ErrorCode } from "../../src/platform/errors/error-codes";
import { reasonPhrase } from "../../src/platform/errors/errors";
import { withErrorCodes } from "../../src/platform/http/openapi-errors";
import { ERROR_CODES_KEY, UNDECLARED, impliedErrorCodes, type RouteErrorCodes } from "../../src/platform/http/route-errors";
import { jsonBody } from "../../src/platform/http/openapi";
import { requireRole, requirePermission } from "../../src/middleware/guards";
import { z } from "@hono/zod-openapi";

type Example = { summary: string; value: { error: string; message: string; details: { code: string } } };
type RawDoc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }>; [ERROR_CODES_KEY]?: RouteErrorCodes }>> };
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { examples?: Record<string, Example> }> }> }>> };

async function document(): Promise<Doc> {
  const res = await call("/openapi.json");
  expect(res.status).toBe(200);
  return res.body;
}

const listed = (doc: Doc, method: string, path: string, status: number) =>
  Object.keys(doc.paths[path]?.[method]?.responses[status]?.content?.["application/json"]?.examples ?? {});

/** Every (operation, status, example) of the document. */
function* examples(doc: Doc) {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        for (const [name, example] of Object.entries(response.content?.["application/json"]?.examples ?? {})) {
          yield { where: `${method.toUpperCase()} ${path} ${status} ${name}`, status: Number(status), name, example };
        }
      }
    }
  }
}

const codes = Object.keys(ERROR_CODES) as ErrorCode[];

describe("error listings in /openapi.json", () => {
  it("list the codes each operation can answer, by status", async () => {
    const doc = await document();
    expect(listed(doc, "post", "/upload/presign", 402)).toEqual(["quota_exceeded"]);
    expect(listed(doc, "post", "/upload/presign", 413)).toEqual(["body_too_large", "file_too_large", "use_multipart"]);
    expect(listed(doc, "post", "/upload/presign", 415)).toEqual(["unsupported_content_type", "unsupported_media_type"]);
    expect(listed(doc, "get", "/files/{id}", 410)).toEqual(["file_deleted", "file_expired", "file_banned", "file_unavailable"]);
    expect(listed(doc, "get", "/files/{id}", 403)).toContain("content_restricted");
    // The owner's changes do not apply safe mode; the listing says so.
    expect(listed(doc, "patch", "/files/{id}", 403)).toEqual(["missing_permission", "account_banned", "not_owner"]);
    expect(listed(doc, "delete", "/files/{id}", 403)).toEqual(["missing_permission", "account_banned", "not_owner", "invalid_delete_token"]);
    expect(listed(doc, "patch", "/files/{id}", 409)).toEqual(["file_under_review"]);
    expect(listed(doc, "post", "/moderation/reports/{id}/resolve", 409)).toEqual([
      "report_already_resolved",
      "file_missing",
      "no_owner_account",
      "cannot_ban_self",
    ]);
    // A code answered with two statuses is listed under each, by the code programs see.
    expect(listed(doc, "post", "/auth/login", 401)).toEqual(expect.arrayContaining(["invalid_credentials", "account_banned"]));
    expect(listed(doc, "post", "/auth/login", 403)).toEqual(["api_key_not_allowed", "account_banned"]);
    expect(listed(doc, "post", "/auth/verify-email", 400)).toContain("invalid_token");
    // JSON bodies can be malformed; a route without one cannot.
    expect(listed(doc, "post", "/auth/signup", 400)).toEqual(["validation_error", "malformed_json"]);
    expect(listed(doc, "get", "/files", 400)).toEqual(["validation_error"]);
    // Session-only routes refuse API keys; routes open to keys check their permissions instead. Any of them
    // refuses a suspended account's key (a session token of it gets account_banned's 401).
    expect(listed(doc, "get", "/account", 403)).toEqual(["api_key_not_allowed", "account_banned"]);
    expect(listed(doc, "get", "/albums", 403)).toEqual(["missing_permission", "account_banned"]);
    expect(listed(doc, "get", "/albums", 401)).toContain("account_banned");
    // Only the routes that start an upload refuse an upload token (canStartUpload); the others never do.
    expect(listed(doc, "post", "/upload/presign", 403)).toContain("upload_token_scope");
    expect(listed(doc, "post", "/upload/finalize", 403)).not.toContain("upload_token_scope");
  });

  it("derive the codes of a route's guards and JSON body, and every route's", () => {
    const admin = impliedErrorCodes({ method: "post", middleware: [requireRole("admin")], request: { body: jsonBody(z.object({})) }, responses: {} });
    expect(admin).toEqual(expect.arrayContaining(["validation_error", "invalid_token", "api_key_not_allowed", "unauthorized", "insufficient_role", "malformed_json"]));
    const reader = impliedErrorCodes({ method: "get", middleware: [requirePermission("read")], responses: {} });
    expect(reader).toEqual(expect.arrayContaining(["unauthorized", "missing_permission"]));
    expect(reader).not.toContain("malformed_json");
    expect(reader).not.toContain("insufficient_role");
  });

  it("list only codes of the table, under their own status, with the body the API answers", async () => {
    const doc = await document();
    let count = 0;
    for (const { where, status, name, example } of examples(doc)) {
      count += 1;
      const code = codes.find((c) => wireCode(c) === name && ERROR_CODES[c].status === status);
      expect(code, where).toBeDefined();
      const spec: { description: string; error?: string } = ERROR_CODES[code!];
      expect(example, where).toEqual({
        summary: spec.description,
        value: { error: spec.error ?? reasonPhrase(status), message: spec.description, details: { code: name } },
      });
    }
    expect(count).toBeGreaterThan(100);
  });

  it("list every code some route declares, and none of those no route declares", async () => {
    const doc = await document();
    const seen = new Set([...examples(doc)].map((e) => `${e.status} ${e.name}`));
    for (const code of codes) {
      const key = `${ERROR_CODES[code].status} ${wireCode(code)}`;
      const undeclared = (UNDECLARED as readonly string[]).includes(code);
      if (!undeclared) expect(seen.has(key), `${code} is listed somewhere`).toBe(true);
    }
    for (const code of ["http_error", "internal_error", "hotlink_refused", "oembed_url"] as const) {
      expect(seen.has(`${ERROR_CODES[code].status} ${wireCode(code)}`), code).toBe(false);
    }
  });

  it("come from routes that declare codes of the table, under statuses they answer", () => {
    const raw = createApi().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } }) as unknown as RawDoc;
    const declared = new Set<string>();
    for (const [path, item] of Object.entries(raw.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const codesOf = op[ERROR_CODES_KEY];
        const statuses = Object.keys(op.responses ?? {});
        // (tus's HEAD is described on its own, without a JSON body to list codes in.)
        const listsErrors = statuses.some((s) => Number(s) >= 400 && op.responses![s].content?.["application/json"]);
        if (!listsErrors && !codesOf) continue;
        expect(codesOf, `${where} is made with defineRoute`).toBeDefined();
        for (const code of [...codesOf!.own, ...codesOf!.implied]) {
          expect(code in ERROR_CODES, `${where}: ${code}`).toBe(true);
          declared.add(code);
        }
        // A route's own codes are answered with statuses its responses list (implied ones need not be).
        for (const code of codesOf!.own) expect(statuses, `${where}: ${code}`).toContain(String(ERROR_CODES[code].status));
      }
    }
    for (const code of UNDECLARED) expect(declared.has(code), `${code} is declared by a route`).toBe(false);
    expect(codes.filter((c) => !declared.has(c) && !(UNDECLARED as readonly string[]).includes(c))).toEqual([]);
  });

  it("add examples, remove the routes' declarations and change nothing else in the document", () => {
    const raw = createApi().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } }) as unknown as RawDoc;
    const withCodes = withErrorCodes(JSON.parse(JSON.stringify(raw)) as Doc);
    for (const item of Object.values(raw.paths)) for (const op of Object.values(item)) delete op[ERROR_CODES_KEY];
    const before = JSON.stringify(raw);
    let stripped = 0;
    for (const { path, method, status } of responses(withCodes)) {
      const media = withCodes.paths[path][method].responses[status].content?.["application/json"];
      if (media?.examples) {
        delete media.examples;
        stripped += 1;
      }
    }
    expect(stripped).toBeGreaterThan(100);
    expect(JSON.stringify(withCodes)).toBe(before);
  });
});

function* responses(doc: Doc) {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const status of Object.keys(op.responses ?? {})) yield { path, method, status };
    }
  }
}

describe("the ErrorCode table", () => {
  it("has snake_case codes, error statuses, and a wire code only where one contract code has two answers", () => {
    const answer = (c: ErrorCode) => {
      const spec: { status: number; error?: string } = ERROR_CODES[c];
      return `${spec.status} ${spec.error ?? reasonPhrase(spec.status)}`;
    };
    for (const code of codes) {
      const spec: { status: number; wire?: string } = ERROR_CODES[code];
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(spec.status).toBeGreaterThanOrEqual(400);
      if (spec.wire) {
        const twins = codes.filter((c) => c !== code && wireCode(c) === spec.wire);
        expect(twins.length, `${code} shares ${spec.wire}`).toBeGreaterThan(0);
        for (const t of twins) expect(answer(t), `${code} vs ${t}`).not.toBe(answer(code));
      }
    }
  });
});
