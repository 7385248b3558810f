import { defineRoute } from "../platform/http/route-errors";
import type { AppEnv } from "../platform/http/env";
import { noApiKey, sessionOnly, sessionPrincipal } from "../middleware/guards";
import { MessageBody, bearer, errors, json, jsonBody, noCredentials } from "../platform/http/openapi";
import {
  AccountSchema,
  AuthResponse,
  ChangePasswordRequest,
  ForgotPasswordRequest,
  LoginRequest,
  LoginResponse,
  OthersSignedOut,
  PasswordChanged,
  RefreshRequest,
  RefreshResponse,
  ResetPasswordRequest,
  SignupRequest,
  VerifyEmailRequest,
} from "./schemas";
import { login, sendVerification, signup, verifyEmail } from "./service";
import { refreshSession, revokeSession, signOutOtherSessions } from "./sessions";
import { accountResource, findUserById, userResource } from "./queries";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { ApiError } from "../platform/errors/errors";
import { resendAllowed } from "./verification-limit";
import { changePassword } from "./password";
import { forgotPassword, resetPassword } from "./password-reset";
import { sessionLiveAtPrimary } from "./middleware";

export const authRoutes = apiRouter();
export const authMount = mountAt("/auth", authRoutes);

const tags = ["Auth"];

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/signup",
    operationId: "auth.signup",
    security: noCredentials,
    tags,
    summary: "Create an account",
    description: "Creates the account, sends a verification e-mail and signs the new user in.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(SignupRequest) },
    errors: ["email_taken", "username_taken"],
    responses: { 201: json(AuthResponse, "Account created"), ...errors(400, 403, 409) },
  }),
  async (c) => {
    // request.cf's continent places the new owner on a shard of their region (platform/data/placement.ts).
    const continent = (c.req.raw.cf as { continent?: string } | undefined)?.continent;
    const { user, session } = await signup(c.get("dbs").directory(), c.env, c.req.valid("json"), continent);
    return c.json({ user: userResource(user), session }, 201);
  },
);

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/login",
    operationId: "auth.login",
    security: noCredentials,
    tags,
    summary: "Sign in",
    description:
      "Answers exactly as signup. Unknown e-mail and wrong password give the same 401. An account with a second factor answers `{ mfaRequired: true, mfaToken, methods }` and no session: finish with POST /auth/login/2fa.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(LoginRequest) },
    errors: ["unauthorized", "invalid_credentials"],
    responses: { 200: json(LoginResponse, "Signed in, or the second step is needed"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const { email, password } = c.req.valid("json");
    const result = await login(c.get("dbs").directory(), c.env, email, password, c.get("principal").ip);
    if (result.kind === "mfa") return c.json({ mfaRequired: result.mfaRequired, mfaToken: result.mfaToken, methods: result.methods }, 200);
    return c.json({ user: userResource(result.user), session: result.session }, 200);
  },
);

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/refresh",
    operationId: "auth.refresh",
    security: noCredentials,
    tags,
    summary: "Rotate a refresh token",
    description: "Returns a new session and retires the presented refresh token. Presenting a retired token revokes the whole session.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(RefreshRequest) },
    errors: ["unauthorized", "invalid_refresh_token", "session_revoked", "refresh_token_reused", "refresh_token_expired"],
    responses: { 200: json(RefreshResponse, "New session"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const session = await refreshSession(c.get("dbs").directory(), c.env, c.req.valid("json").refresh_token);
    return c.json({ session }, 200);
  },
);

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/logout",
    operationId: "auth.logout",
    tags,
    summary: "Sign out",
    description: "Revokes the caller's session: its refresh tokens and access tokens stop working at once.",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: { 200: json(MessageBody, "Signed out"), ...errors(401, 403) },
  }),
  async (c) => {
    await revokeSession(c.get("dbs").directory(), c.env, sessionPrincipal(c.get("principal")).sessionId, "logout");
    return c.json({ message: "Signed out" }, 200);
  },
);

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/logout/others",
    operationId: "auth.logoutOthers",
    tags,
    summary: "Sign out everywhere else",
    description:
      "Revokes every other session of the account (their refresh and access tokens stop at once); the caller's stays. Offered after a second factor is turned on, so sessions opened before it end. Session-only.",
    security: bearer,
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    responses: { 200: json(OthersSignedOut, "The others signed out"), ...errors(401, 403) },
  }),
  async (c) => {
    const p = sessionPrincipal(c.get("principal"));
    const revoked = await signOutOtherSessions(c.get("dbs").directory(), c.env, p.user.id, p.sessionId);
    return c.json({ message: revoked === 1 ? "Signed out 1 other session" : `Signed out ${revoked} other sessions`, revoked }, 200);
  },
);

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/verify-email",
    operationId: "auth.verifyEmail",
    security: noCredentials,
    tags,
    summary: "Verify an e-mail address",
    description: "Takes the token from the verification message. Addresses listed in ADMIN_EMAILS become admins here.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(VerifyEmailRequest) },
    errors: ["invalid_verification_token"],
    responses: { 200: json(MessageBody.extend({ user: AccountSchema }), "Verified"), ...errors(400, 403) },
  }),
  async (c) => {
    const user = await verifyEmail(c.get("dbs").directory(), c.env, c.req.valid("json").token);
    return c.json({ message: "E-mail address verified", user: accountResource(user) }, 200);
  },
);

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/resend-verification",
    operationId: "auth.resendVerification",
    tags,
    summary: "Send the verification e-mail again",
    description:
      "Mails a new verification link (the earlier ones keep working until one is used). Limited per address and per IP together with POST /auth/password/forgot: 5 mails an hour to one address, 20 requests an hour from one IP.",
    security: bearer,
    middleware: [sessionOnly()] as const,
    errors: ["already_verified"],
    responses: { 200: json(MessageBody, "Sent"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const p = sessionPrincipal(c.get("principal"));
    if (p.user.emailVerified) throw new ApiError("already_verified", "This e-mail address is already verified");
    await resendAllowed(c.env, p.user.email, p.ip);
    const user = await findUserById(c.get("dbs").directory(), p.user.id);
    if (user) await sendVerification(c.get("dbs").directory(), c.env, user);
    return c.json({ message: "Verification e-mail sent" }, 200);
  },
);

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/password",
    operationId: "auth.changePassword",
    tags,
    summary: "Change the password",
    description:
      "Checks the current password (wrong ones count like failed logins), sets the new one, revokes every session of the account, the caller's included, and answers a fresh one. Mails the account.",
    security: bearer,
    // A fresh session without the second factor: the caller's session is checked at D1's primary, not a record.
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    request: { body: jsonBody(ChangePasswordRequest) },
    errors: ["invalid_password"],
    responses: { 200: json(PasswordChanged, "Changed; the new session"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const { currentPassword, newPassword } = c.req.valid("json");
    const p = sessionPrincipal(c.get("principal"));
    const session = await changePassword(c.get("dbs").directory(), c.env, p.user.id, currentPassword, newPassword, p.ip);
    return c.json({ session }, 200);
  },
);

const FORGOT_ANSWER = "If an account uses this address, a link to reset its password is on its way. It works for 1 hour.";

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/password/forgot",
    operationId: "auth.forgotPassword",
    security: noCredentials,
    tags,
    summary: "Ask for a password reset link",
    description:
      "Always 202 with the same body, in the same time, whether or not the address has an account; an account gets a single-use reset code by mail, valid 1 hour. Limited per address and per IP.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(ForgotPasswordRequest) },
    responses: { 202: json(MessageBody, "Accepted"), ...errors(400, 403, 429) },
  }),
  async (c) => {
    await forgotPassword(c.env, c.req.valid("json").email, c.get("principal").ip);
    return c.json({ message: FORGOT_ANSWER }, 202);
  },
);

authRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/password/reset",
    operationId: "auth.resetPassword",
    security: noCredentials,
    tags,
    summary: "Set a new password with a reset code",
    description:
      "Uses up the code from the reset mail, sets the password, revokes every session of the account and mails it. Answers no session: sign in with the new password. Limited per account and per IP.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(ResetPasswordRequest) },
    errors: ["invalid_reset_token"],
    responses: { 200: json(MessageBody, "Changed"), ...errors(400, 403, 429) },
  }),
  async (c) => {
    const { token, newPassword } = c.req.valid("json");
    await resetPassword(c.get("dbs").directory(), c.env, token, newPassword, c.get("principal").ip);
    return c.json({ message: "Your password was changed. Sign in with the new one." }, 200);
  },
);
