import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Reason phrases used as the contract's `error` field for statuses without a more specific text. */
const REASON: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export function reasonPhrase(status: number): string {
  return REASON[status] ?? "Error";
}

export type ErrorDetails = { code?: string; [key: string]: unknown };

/** An error that maps one-to-one onto the contract's body `{ error, message, details }`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details: ErrorDetails = {},
    readonly errorText: string = reasonPhrase(status),
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  body() {
    return { error: this.errorText, message: this.message, details: this.details };
  }
}

export const badRequest = (message: string, code = "bad_request", extra: ErrorDetails = {}) =>
  new ApiError(400, message, { code, ...extra });
export const unauthorized = (message = "Authentication required", code = "unauthorized") =>
  new ApiError(401, message, { code });
export const forbidden = (message = "You do not have permission to do this", code = "forbidden") =>
  new ApiError(403, message, { code });
export const notFound = (message = "Not found", code = "not_found") => new ApiError(404, message, { code });
export const conflict = (message: string, code: string) => new ApiError(409, message, { code });
export const gone = (message = "This resource is no longer available", code = "gone") =>
  new ApiError(410, message, { code });

/** 429 in the contract's rate-limit shape is produced by {@link RateLimitError}, not by ApiError. */
export class RateLimitError extends Error {
  constructor(
    readonly retryAfter: number,
    readonly limit: number,
    readonly reset: number,
    message = "Rate limit exceeded",
  ) {
    super(message);
    this.name = "RateLimitError";
  }

  body() {
    return { error: "Too Many Requests", message: this.message, retryAfter: this.retryAfter, remaining: 0 };
  }
}
