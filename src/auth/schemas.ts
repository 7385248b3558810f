import { z } from "@hono/zod-openapi";
import { PASSWORD_LENGTH } from "../config/auth";
import { AuthenticationCredential } from "./passkey-schemas";

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

/** Two-factor sign-in (extensions.md §5). */
const Method = z.enum(["totp", "passkey", "recovery"]);
export const MfaRequired = z
  .object({
    mfaRequired: z.literal(true),
    mfaToken: z.string().openapi({ description: "Single use, valid 5 minutes: send it to POST /auth/login/2fa with a code" }),
    methods: z.array(Method).openapi({ description: "What can finish this sign-in", example: ["totp", "recovery"] }),
  })
  .openapi("MfaRequired");
export const LoginResponse = z.union([AuthResponse, MfaRequired]).openapi("LoginResponse");
const Code = z.string().trim().min(1).max(64);
const TotpCode = z
  .string()
  .transform((s) => s.replace(/\s/g, ""))
  .pipe(z.string().regex(/^[0-9]{6}$/, "Enter the 6-digit code from the authenticator app"))
  .openapi({ type: "string", example: "123456", description: "The 6-digit code the authenticator app shows now (spaces allowed)" });
export const LoginSecondStepRequest = z
  .object({
    mfaToken: z.string().min(1).max(512),
    code: Code.optional().openapi({ description: "A TOTP code, or a recovery code", example: "123456" }),
    response: AuthenticationCredential.optional().openapi({ description: "Or a passkey's answer to the options of POST /auth/passkeys/login/options { mfaToken }" }),
  })
  .strict()
  .refine((b) => (b.code === undefined) !== (b.response === undefined), { message: "Send either a code or a passkey's answer", path: ["code"] })
  .openapi("LoginSecondStepRequest");
export const TotpEnrolment = z
  .object({
    secret: z.string().openapi({ description: "The seed in base32, for typing into an authenticator app", example: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" }),
    otpauthUrl: z.string().openapi({ description: "The otpauth:// URL, for a QR code", example: "otpauth://totp/imghost:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=imghost&algorithm=SHA1&digits=6&period=30" }),
  })
  .openapi("TotpEnrolment");
export const TotpConfirmRequest = z.object({ code: TotpCode }).strict().openapi("TotpConfirmRequest");
export const RecoveryCodes = z
  .object({ recoveryCodes: z.array(z.string()).openapi({ description: "10 single-use codes, shown this once", example: ["7kq2-9xwm-3hd0-pz4r"] }) })
  .openapi("RecoveryCodes");
export const TotpTurnOffRequest = z
  .object({ code: TotpCode.optional(), password: z.string().min(1).max(PASSWORD_LENGTH.max).optional() })
  .strict()
  .refine((b) => (b.code === undefined) !== (b.password === undefined), { message: "Send either a current code or the password", path: ["code"] })
  .openapi("TotpTurnOffRequest", { description: "Either a current authenticator code or the account's password" });
export const SecondFactorStatus = z
  .object({
    methods: z.array(Method),
    totp: z.object({ state: z.enum(["off", "pending", "on"]), confirmedAt: z.string().nullable().openapi({ format: "date-time" }) }),
    recoveryCodesRemaining: z.number().int(),
  })
  .openapi("SecondFactorStatus");
export const RefreshResponse = z.object({ session: Session }).openapi("RefreshResponse");
export const PasswordChanged = z.object({ session: Session }).openapi("PasswordChanged");

export const OthersSignedOut = z
  .object({ message: z.string(), revoked: z.number().int().openapi({ description: "How many other sessions were ended", example: 2 }) })
  .openapi("OthersSignedOut");

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
