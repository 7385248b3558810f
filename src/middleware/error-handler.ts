// The one error mapper: every failure leaves as the contract's body. Unknown errors are logged with the
// request id and answered 500 without internals.
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../platform/http/env";
import { ApiError, RateLimitError } from "../platform/errors/errors";
import { malformedJson } from "../platform/http/validation";

/** Hono's own refusals: HTTPExceptions with a status and no code, known by class and status only (Hono may change
 * its texts): @hono/zod-openapi's media-type gate is the 415, bodyLimit without our onError the 413, a JSON body that
 * does not parse the JSON validator's 400 (platform/http/validation.ts). Anything else keeps the contract's earlier
 * answer: `http_error`, Hono's message for a refusal, none for a failure (one other 4xx would be answered 400). */
function fromHttpException(err: HTTPException): ApiError {
  if (err.status === 415) return new ApiError("unsupported_content_type", "This endpoint does not accept the request's Content-Type");
  if (err.status === 413) return new ApiError("body_too_large", "The request body is too large");
  if (err.status < 500) return new ApiError("http_error", err.message || "Request failed");
  return new ApiError("http_error_internal", "Internal error");
}

/** The contract's response for an ApiError, with the context's headers (request id, security headers). */
export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  // A refusal that passes (owner_moving) says when to come back.
  if (typeof err.details.retryAfter === "number") c.header("Retry-After", String(err.details.retryAfter));
  return c.json(err.body(), err.status);
}

export const onError: ErrorHandler<AppEnv> = async (err, c: Context<AppEnv>) => {
  if (err instanceof RateLimitError) {
    c.header("Retry-After", String(err.retryAfter));
    c.header("X-RateLimit-Limit", String(err.limit));
    c.header("X-RateLimit-Remaining", "0");
    c.header("X-RateLimit-Reset", String(err.reset));
    return c.json(err.body(), 429);
  }
  // ApiError is an HTTPException too, so it is tested first.
  if (err instanceof ApiError) return errorResponse(c, err);
  if (err instanceof HTTPException) return errorResponse(c, (await malformedJson(c, err)) ?? fromHttpException(err));
  console.error(`[${c.get("requestId") ?? "-"}] unhandled error`, err instanceof Error ? err.stack ?? err.message : err);
  return errorResponse(c, new ApiError("internal_error", "Something went wrong on our side", { requestId: c.get("requestId") }));
};
