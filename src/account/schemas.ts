import { z } from "@hono/zod-openapi";
import { AccountSchema, Username } from "../auth/schemas";
import { PASSWORD_LENGTH } from "../config/auth";

export const AccountPatch = z
  .object({ username: Username.optional(), ageConfirmed: z.boolean().optional(), safeMode: z.boolean().optional() })
  .strict()
  .openapi("AccountPatch");

export const DeleteAccountBody = z
  .object({ password: z.string().min(1).max(PASSWORD_LENGTH.max) })
  .strict()
  .openapi("DeleteAccount");

/** Answers of GET, PATCH and DELETE /account (routes.ts), named for the pages too. */
export const AccountBody = z.object({ user: AccountSchema });
export const AccountUpdated = z.object({ message: z.string(), user: AccountSchema });
export const AccountDeleted = z.object({ message: z.string(), deleted: z.object({ files: z.number().int(), albums: z.number().int(), sessions: z.number().int(), apiKeys: z.number().int() }) });
