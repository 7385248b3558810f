// Request and response schemas of the insights API (extensions.md § 10).
import { z } from "@hono/zod-openapi";

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const Date_ = z.string().regex(DATE, "A UTC date, YYYY-MM-DD");

export const StatsQuery = z.object({
  from: Date_.optional().openapi({ description: "First day, inclusive (UTC). Default: 29 days before `to`.", example: "2026-11-01" }),
  to: Date_.optional().openapi({ description: "Last day, inclusive (UTC). Default: today.", example: "2026-11-30" }),
});

const count = z.number().int().nonnegative();
export const Referrer = z.object({ host: z.string().openapi({ example: "blog.example.com" }), views: count }).openapi("Referrer");
const Totals = z.object({ views: count, downloads: count });

export const FileStatsBody = z
  .object({
    days: z.array(z.object({ date: z.string().openapi({ example: "2026-11-30" }), views: count, downloads: count })),
    referrers: z.array(Referrer).openapi({ description: "Top 10 referring hosts; views without a Referer are `(direct)`." }),
    totals: Totals,
  })
  .openapi("FileStats");

export const AccountStatsBody = z
  .object({
    days: z.array(z.object({ date: z.string(), views: count, downloads: count, uploads: count, storageBytes: count })),
    topFiles: z.array(z.object({ id: z.string(), title: z.string(), thumbnailUrl: z.string(), views: count })),
    referrers: z.array(Referrer),
  })
  .openapi("AccountStats");

export const AdminStatsBody = z
  .object({
    days: z.array(
      z.object({ date: z.string(), signups: count, uploads: count, uploadBytes: count, views: count, reports: count, storageBytes: count }),
    ),
  })
  .openapi("AdminStats");

export type FileStats = z.infer<typeof FileStatsBody>;
export type AccountStats = z.infer<typeof AccountStatsBody>;
export type AdminStats = z.infer<typeof AdminStatsBody>;
