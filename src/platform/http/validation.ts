import type { Hook } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { HTTPException } from "hono/http-exception";
import { ApiError } from "../errors/errors";

type Issue = { path: PropertyKey[]; message: string; code?: string; keys?: string[] };

/** zod issues -> `details.fields: [{ path, message }]` (decisions.md § Errors). */
export function fieldErrors(issues: readonly Issue[]) {
  const fields: { path: string; message: string }[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys" && issue.keys?.length) {
      for (const key of issue.keys) fields.push({ path: base ? `${base}.${key}` : key, message: "Unknown field" });
    } else {
      fields.push({ path: base, message: issue.message });
    }
  }
  return fields;
}

export function validationError(issues: readonly Issue[], target = "body") {
  return new ApiError("validation_error", `Invalid request ${target}`, { fields: fieldErrors(issues) });
}

/** The media types Hono's validator parses as JSON (hono/validator compares the media type alone). */
const JSON_PARSED = /^application\/([\w.-]+\+)?json$/i;

/**
 * Hono's JSON validator refuses a body that does not parse with a bare HTTPException(400), told apart only by its
 * text. The mapper asks here instead: the body was read (the validator's turn came) and, read again from Hono's
 * cache, throws the parser's SyntaxError. Nothing is parsed on a request that succeeds.
 */
export async function malformedJson(c: Context, err: HTTPException): Promise<ApiError | undefined> {
  const type = c.req.header("content-type");
  if (err.status !== 400 || !type || !JSON_PARSED.test(type.split(";")[0].trim()) || !c.req.raw.bodyUsed) return undefined;
  try {
    await c.req.json();
    return undefined;
  } catch (parse) {
    return parse instanceof SyntaxError ? new ApiError("malformed_json", "The request body is not valid JSON") : undefined;
  }
}

/** The hook every OpenAPIHono router uses (platform/http/router.ts): a failed validation is the contract's 400 body. */
export const validationHook: Hook<unknown, any, any, unknown> = (result) => {
  if (!result.success) {
    const target = "target" in result ? String(result.target) : "body";
    throw validationError(result.error.issues as readonly Issue[], target === "json" ? "body" : target);
  }
};
