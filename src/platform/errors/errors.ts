import { HTTPException } from "hono/http-exception";
import { ERROR_CODES, errorSpec, wireCode, type ErrorCode, type StatusOf } from "./error-codes";

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
  423: "Locked",
  460: "Checksum Mismatch",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

export function reasonPhrase(status: number): string {
  return REASON[status] ?? "Error";
}

export type ErrorDetails = { code: string; [key: string]: unknown };

/**
 * An error that maps one-to-one onto the contract's body `{ error, message, details }`. The code decides the
 * status and the `error` text (./error-codes.ts); `extra` adds fields next to `details.code`. Built on Hono's
 * HTTPException so that anything handling those (Hono's default handler included) answers the contract's body.
 */
export class ApiError<C extends ErrorCode = ErrorCode> extends HTTPException {
  declare readonly status: StatusOf<C>;
  readonly details: ErrorDetails;

  constructor(
    readonly code: C,
    message: string,
    extra: Record<string, unknown> = {},
  ) {
    super(ERROR_CODES[code].status, { message });
    this.name = "ApiError";
    this.details = { code: wireCode(code), ...extra };
  }

  get errorText(): string {
    return errorSpec(this.code).error ?? reasonPhrase(this.status);
  }

  body() {
    return { error: this.errorText, message: this.message, details: this.details };
  }

  override getResponse(): Response {
    return Response.json(this.body(), { status: this.status });
  }
}

/** The one shorthand: guards refuse callers without the right credentials in many places, with one text. */
export const unauthorized = () => new ApiError("unauthorized", "Authentication required");

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
