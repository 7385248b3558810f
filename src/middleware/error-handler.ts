// The one error mapper: every failure leaves as the contract's body. Unknown errors are logged with the
// request id and answered 500 without internals.
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../env";
import { ApiError, RateLimitError } from "../platform/errors";

/**
 * Hono's own refusals: HTTPExceptions that carry a status and no code. Known by class and status only (their
 * message texts are Hono's to change): the media-type gate of @hono/zod-openapi is the 415, bodyLimit without our
 * onError the 413. Malformed JSON never gets here as Hono's 400: platform/router.ts parses bodies first.
 */
function fromHttpException(err: HTTPException): ApiError {
  switch (err.status) {
    case 415:
      return new ApiError("unsupported_content_type", "This endpoint does not accept the request's Content-Type");
    case 413:
      return new ApiError("body_too_large", "The request body is too large");
    case 401:
      return new ApiError("unauthorized", err.message || "Authentication required");
    case 403:
      return new ApiError("forbidden", err.message || "Forbidden");
    case 404:
      return new ApiError("not_found", err.message || "Not found");
  }
  // Any other refusal of the request stays a 4xx (bad input never answers 500).
  if (err.status < 500) return new ApiError("bad_request", err.message || "Request failed");
  return new ApiError("internal_error", "Internal error");
}

/** The contract's response for an ApiError, with the context's headers (request id, security headers). */
export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  return c.json(err.body(), err.status);
}

export const onError: ErrorHandler<AppEnv> = (err, c: Context<AppEnv>) => {
  if (err instanceof RateLimitError) {
    c.header("Retry-After", String(err.retryAfter));
    c.header("X-RateLimit-Limit", String(err.limit));
    c.header("X-RateLimit-Remaining", "0");
    c.header("X-RateLimit-Reset", String(err.reset));
    return c.json(err.body(), 429);
  }
  // ApiError is an HTTPException too, so it is tested first.
  if (err instanceof ApiError) return errorResponse(c, err);
  if (err instanceof HTTPException) return errorResponse(c, fromHttpException(err));
  console.error(`[${c.get("requestId") ?? "-"}] unhandled error`, err instanceof Error ? err.stack ?? err.message : err);
  return c.json({ error: "Internal Server Error", message: "Something went wrong on our side", details: { code: "internal_error", requestId: c.get("requestId") } }, 500);
};
