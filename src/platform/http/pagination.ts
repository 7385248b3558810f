import { z } from "@hono/zod-openapi";

export const Pagination = z
  .object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), hasMore: z.boolean() })
  .openapi("Pagination");

/** limit 1..100 (default 50), offset >= 0 (default 0): the contract's rule for every list. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50).openapi({ example: 50 }),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0).openapi({ example: 0 }),
});
