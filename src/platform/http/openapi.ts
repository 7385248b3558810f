// Shared OpenAPI pieces: the error bodies every route may answer with, and response helpers.
import { z } from "@hono/zod-openapi";

export const ErrorBody = z
  .object({
    error: z.string().openapi({ example: "Bad Request" }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).openapi({ example: { code: "validation_error" } }),
  })
  .openapi("Error");

export const RateLimitBody = z
  .object({ error: z.string(), message: z.string().optional(), retryAfter: z.number(), remaining: z.literal(0) })
  .openapi("RateLimitError");

export const MessageBody = z.object({ message: z.string() }).openapi("Message");

const describe: Record<number, string> = {
  400: "Invalid input (details.fields lists the failing fields)",
  401: "Missing, invalid, revoked or expired credentials",
  402: "Storage quota exceeded",
  403: "Forbidden",
  404: "Not found",
  409: "Conflict",
  410: "Gone",
  413: "Payload too large",
  415: "Unsupported media type",
  422: "The request was understood but could not be carried out (details.code says why)",
  412: "Precondition failed",
  423: "Locked",
  460: "Checksum mismatch",
};

/** Error responses for createRoute: errors(400, 401) -> { 400: {...}, 401: {...} }. 429 uses the rate-limit body. */
export function errors(...statuses: number[]) {
  const out: Record<number, { description: string; content: { "application/json": { schema: typeof ErrorBody | typeof RateLimitBody } } }> = {};
  for (const s of statuses) {
    out[s] =
      s === 429
        ? { description: "Rate limit exceeded", content: { "application/json": { schema: RateLimitBody } } }
        : { description: describe[s] ?? "Error", content: { "application/json": { schema: ErrorBody } } };
  }
  return out;
}

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

export const bearer = [{ bearerAuth: [] }];

/** A public operation: no credential (stated, not left out, so generated clients and linters know). */
export const noCredentials: Record<string, string[]>[] = [];
