import { z } from "@hono/zod-openapi";
import { PASSWORD_LENGTH } from "../config";

export const Email = z.string().trim().max(254).email().openapi({ example: "ada@example.com" });
export const Password = z.string().min(PASSWORD_LENGTH.min).max(PASSWORD_LENGTH.max).openapi({ example: "correct horse battery" });
export const Username = z
  .string()
  .trim()
  .min(3)
  .max(32)
  .regex(/^[A-Za-z0-9_.-]+$/, "Use letters, digits, '_', '.' or '-'")
  .openapi({ example: "ada" });

export const SignupRequest = z
  .object({
    email: Email,
    password: Password,
    username: Username,
    firstName: z.string().trim().max(100).optional(),
    lastName: z.string().trim().max(100).optional(),
    ageConfirmed: z.boolean().optional(),
  })
  .strict()
  .openapi("SignupRequest");

export const LoginRequest = z.object({ email: Email, password: z.string().min(1).max(PASSWORD_LENGTH.max) }).strict().openapi("LoginRequest");
export const RefreshRequest = z.object({ refresh_token: z.string().min(1).max(512) }).strict().openapi("RefreshRequest");
export const VerifyEmailRequest = z.object({ token: z.string().min(1).max(512) }).strict().openapi("VerifyEmailRequest");

/** Password change and recovery (extensions.md §7): new passwords follow the signup rules (Password). */
export const ChangePasswordRequest = z
  .object({ currentPassword: z.string().min(1).max(PASSWORD_LENGTH.max), newPassword: Password })
  .strict()
  .openapi("ChangePasswordRequest");
export const ForgotPasswordRequest = z.object({ email: Email }).strict().openapi("ForgotPasswordRequest");
export const ResetPasswordRequest = z
  .object({ token: z.string().min(1).max(512).openapi({ description: "The code from the reset mail" }), newPassword: Password })
  .strict()
  .openapi("ResetPasswordRequest");

export const User = z
  .object({
    id: z.string().openapi({ example: "usr_V1StGXR8_Z5jdHi6B-myT" }),
    email: z.string(),
    username: z.string(),
    role: z.enum(["user", "moderator", "admin"]),
    plan: z.enum(["free", "pro", "enterprise"]),
    ageConfirmed: z.boolean(),
  })
  .openapi("User");

export const Session = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    expires_in: z.number().int().openapi({ description: "Seconds until the access token expires", example: 900 }),
    token_type: z.literal("Bearer"),
  })
  .openapi("Session");

export const AuthResponse = z.object({ user: User, session: Session }).openapi("AuthResponse");
export const RefreshResponse = z.object({ session: Session }).openapi("RefreshResponse");
export const PasswordChanged = z.object({ session: Session }).openapi("PasswordChanged");

/** The account resource (accountResource in ./queries.ts): /account and verify-email answer it. */
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
