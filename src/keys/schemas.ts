// Request and response shapes of /keys (routes.ts), also the pages' types (pages/app/api.ts).
import { z } from "@hono/zod-openapi";
import { PERMISSIONS } from "../platform/http/env";
import { Pagination } from "../platform/http/pagination";

export const Permission = z.enum(PERMISSIONS as unknown as ["read", "upload", "manage"]);

export const CreateKeyRequest = z
  .object({
    name: z.string().trim().min(1).max(100),
    permissions: z.array(Permission).min(1).max(3).default(["read", "upload"]),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .refine((v) => v === undefined || Date.parse(v) > Date.now(), "expiresAt must be in the future"),
  })
  .strict()
  .openapi("CreateApiKeyRequest");

export const ApiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ example: "pk_4hQ2vZ" }),
    permissions: z.array(Permission),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    createdAt: z.string(),
    revokedAt: z.string().nullable(),
  })
  .openapi("ApiKey");

export const CreatedKey = z
  .object({
    id: z.string(),
    name: z.string(),
    key: z.string().openapi({ description: "The full key. Shown only in this response." }),
    prefix: z.string(),
    permissions: z.array(Permission),
    expiresAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("CreatedApiKey");

export const ApiKeyList = z.object({ keys: z.array(ApiKey), pagination: Pagination });
