import type { Hook } from "@hono/zod-openapi";
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

/** Requests (Hono's, per context) whose JSON body did not parse: marked by platform/http/router.ts, refused by the hook. */
export const malformedJson = new WeakSet<object>();

// The hook every OpenAPIHono router uses: a failed validation becomes the contract's 400 body, and a body marked
// malformed is refused in the body validator's turn, whatever the schema made of the stand-in value it was given.
export const validationHook: Hook<unknown, any, any, unknown> = (result, c) => {
  if (result.target === "json" && malformedJson.has(c.req)) throw new ApiError("malformed_json", "The request body is not valid JSON");
  if (!result.success) {
    const target = "target" in result ? String(result.target) : "body";
    throw validationError(result.error.issues as readonly Issue[], target === "json" ? "body" : target);
  }
};
