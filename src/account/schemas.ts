import { z } from "@hono/zod-openapi";
import { Username } from "../auth/schemas";
import { PASSWORD_LENGTH } from "../config";

export const AccountSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    username: z.string(),
    role: z.enum(["user", "moderator", "admin"]),
    plan: z.enum(["free", "pro", "enterprise"]),
    ageConfirmed: z.boolean(),
    firstName: z.string(),
    lastName: z.string(),
    safeMode: z.boolean(),
    emailVerified: z.boolean(),
    createdAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Account");

export const AccountPatch = z
  .object({ username: Username.optional(), ageConfirmed: z.boolean().optional(), safeMode: z.boolean().optional() })
  .strict()
  .openapi("AccountPatch");

export const DeleteAccountBody = z
  .object({ password: z.string().min(1).max(PASSWORD_LENGTH.max) })
  .strict()
  .openapi("DeleteAccount");
