import type { Hook } from "@hono/zod-openapi";
import { ApiError } from "./errors";

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

/** What the body validator reads when the JSON body did not parse (platform/router.ts); compared by identity. */
export const MALFORMED_JSON: unknown = Object.freeze({});

// The hook every OpenAPIHono router uses: a failed validation becomes the contract's 400 body.
export const validationHook: Hook<unknown, any, any, unknown> = (result) => {
  if ("data" in result && result.data === MALFORMED_JSON) throw new ApiError("malformed_json", "The request body is not valid JSON");
  if (!result.success) {
    const target = "target" in result ? String(result.target) : "body";
    throw validationError(result.error.issues as readonly Issue[], target === "json" ? "body" : target);
  }
};
