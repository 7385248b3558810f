// The answer of GET /account/limits (routes.ts), also read by the pages and the upload script.
import { z } from "@hono/zod-openapi";

const Bucket = z
  .object({
    limit: z.number().int().nullable().openapi({ description: "Requests per window; null when limits are switched off" }),
    remaining: z.number().int().nullable(),
    reset: z.number().int().nullable().openapi({ description: "Unix epoch seconds when the window ends" }),
    windowSeconds: z.number().int(),
  })
  .openapi("RateLimitBucket");

export const LimitsBody = z
  .object({
    plan: z.enum(["free", "pro", "enterprise"]),
    maxFileBytes: z.number().int(),
    quota: z.object({
      used: z.number().int(),
      reserved: z.number().int().openapi({ description: "Held for uploads in flight" }),
      total: z.number().int(),
      remaining: z.number().int(),
    }),
    rateLimits: z.object({ apiCalls: Bucket, uploads: Bucket }),
  })
  .openapi("AccountLimits");
