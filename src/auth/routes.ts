import { createRoute } from "@hono/zod-openapi";
import type { AppEnv } from "../platform/env";
import { noApiKey, sessionOnly, sessionPrincipal } from "../middleware/guards";
import { MessageBody, bearer, errors, json, jsonBody } from "../platform/openapi";
import { AccountSchema, AuthResponse, LoginRequest, RefreshRequest, RefreshResponse, SignupRequest, VerifyEmailRequest } from "./schemas";
import { login, sendVerification, signup, verifyEmail } from "./service";
import { refreshSession, revokeSession } from "./sessions";
import { accountResource, findUserById, userResource } from "./queries";
import { apiRouter } from "../platform/router";
import { ApiError } from "../platform/errors";
import { resendAllowed } from "./verification-limit";

export const authRoutes = apiRouter();

const tags = ["Auth"];

authRoutes.openapi(
  createRoute({
    method: "post",
    path: "/signup",
    tags,
    summary: "Create an account",
    description: "Creates the account, sends a verification e-mail and signs the new user in.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(SignupRequest) },
    responses: { 201: json(AuthResponse, "Account created"), ...errors(400, 403, 409) },
  }),
  async (c) => {
    const { user, session } = await signup(c.get("db"), c.env, c.req.valid("json"));
    return c.json({ user: userResource(user), session }, 201);
  },
);

authRoutes.openapi(
  createRoute({
    method: "post",
    path: "/login",
    tags,
    summary: "Sign in",
    description: "Answers exactly as signup. Unknown e-mail and wrong password give the same 401.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(LoginRequest) },
    responses: { 200: json(AuthResponse, "Signed in"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const { email, password } = c.req.valid("json");
    const { user, session } = await login(c.get("db"), c.env, email, password, c.get("principal").ip);
    return c.json({ user: userResource(user), session }, 200);
  },
);

authRoutes.openapi(
  createRoute({
    method: "post",
    path: "/refresh",
    tags,
    summary: "Rotate a refresh token",
    description: "Returns a new session and retires the presented refresh token. Presenting a retired token revokes the whole session.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(RefreshRequest) },
    responses: { 200: json(RefreshResponse, "New session"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const session = await refreshSession(c.get("db"), c.env, c.req.valid("json").refresh_token);
    return c.json({ session }, 200);
  },
);

authRoutes.openapi(
  createRoute({
    method: "post",
    path: "/logout",
    tags,
    summary: "Sign out",
    description: "Revokes the caller's session: its refresh tokens and access tokens stop working at once.",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: { 200: json(MessageBody, "Signed out"), ...errors(401, 403) },
  }),
  async (c) => {
    await revokeSession(c.get("db"), c.env, sessionPrincipal(c.get("principal")).sessionId, "logout");
    return c.json({ message: "Signed out" }, 200);
  },
);

authRoutes.openapi(
  createRoute({
    method: "post",
    path: "/verify-email",
    tags,
    summary: "Verify an e-mail address",
    description: "Takes the token from the verification message. Addresses listed in ADMIN_EMAILS become admins here.",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(VerifyEmailRequest) },
    responses: { 200: json(MessageBody.extend({ user: AccountSchema }), "Verified"), ...errors(400, 403) },
  }),
  async (c) => {
    const user = await verifyEmail(c.get("db"), c.env, c.req.valid("json").token);
    return c.json({ message: "E-mail address verified", user: accountResource(user) }, 200);
  },
);

authRoutes.openapi(
  createRoute({
    method: "post",
    path: "/resend-verification",
    tags,
    summary: "Send the verification e-mail again",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: { 200: json(MessageBody, "Sent"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const p = sessionPrincipal(c.get("principal"));
    if (p.user.emailVerified) throw new ApiError("already_verified", "This e-mail address is already verified");
    await resendAllowed(c.env, p.user.id);
    const user = await findUserById(c.get("db"), p.user.id);
    if (user) await sendVerification(c.get("db"), c.env, user);
    return c.json({ message: "Verification e-mail sent" }, 200);
  },
);
