import { z } from "@hono/zod-openapi";
import { Username } from "../auth/schemas";
import { PASSWORD_LENGTH } from "../config";

export const AccountPatch = z
  .object({ username: Username.optional(), ageConfirmed: z.boolean().optional(), safeMode: z.boolean().optional() })
  .strict()
  .openapi("AccountPatch");

export const DeleteAccountBody = z
  .object({ password: z.string().min(1).max(PASSWORD_LENGTH.max) })
  .strict()
  .openapi("DeleteAccount");
