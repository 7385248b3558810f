// The one error mapper: every failure leaves as the contract's body. Unknown errors are logged with the
// request id and answered 500 without internals.
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../env";
import { ApiError, RateLimitError } from "../platform/errors";

function fromHttpException(err: HTTPException): ApiError {
  const msg = err.message || "";
  if (err.status === 400 && /malformed json/i.test(msg)) return new ApiError(400, "The request body is not valid JSON", { code: "malformed_json" });
  if (err.status === 400 && /content-type/i.test(msg)) {
    return new ApiError(415, "Send the request body as application/json", { code: "unsupported_content_type" });
  }
  // @hono/zod-openapi's media-type gate (a Content-Type the route does not declare) throws a bare 415.
  if (err.status === 415) {
    return new ApiError(415, "This endpoint does not accept the request's Content-Type", { code: "unsupported_content_type" });
  }
  if (err.status === 413) return new ApiError(413, "The request body is too large", { code: "body_too_large" });
  const status = err.status >= 400 && err.status < 600 ? err.status : 500;
  return new ApiError(status as ApiError["status"], status >= 500 ? "Internal error" : msg || "Request failed", { code: "http_error" });
}

export const onError: ErrorHandler<AppEnv> = (err, c: Context<AppEnv>) => {
  if (err instanceof RateLimitError) {
    c.header("Retry-After", String(err.retryAfter));
    c.header("X-RateLimit-Limit", String(err.limit));
    c.header("X-RateLimit-Remaining", "0");
    c.header("X-RateLimit-Reset", String(err.reset));
    return c.json(err.body(), 429);
  }
  const apiError = err instanceof ApiError ? err : err instanceof HTTPException ? fromHttpException(err) : undefined;
  if (apiError) {
    for (const [k, v] of Object.entries(apiError.headers)) c.header(k, v);
    return c.json(apiError.body(), apiError.status);
  }
  console.error(`[${c.get("requestId") ?? "-"}] unhandled error`, err instanceof Error ? err.stack ?? err.message : err);
  return c.json({ error: "Internal Server Error", message: "Something went wrong on our side", details: { code: "internal_error", requestId: c.get("requestId") } }, 500);
};
