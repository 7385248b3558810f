// Two-factor sign-in routes (extensions.md §5), beside ./routes.ts under /auth: TOTP enrolment, confirmation and
// removal (session-only, the session checked at D1's primary: a stale principal record must not change how the
// account signs in), the factors' state for the account page (session-only), and the second step of a sign-in
// (anonymous, API keys refused like login).
import { defineRoute } from "../platform/http/route-errors";
import { noApiKey, sessionOnly, sessionPrincipal } from "../middleware/guards";
import { MessageBody, bearer, errors, json, jsonBody, noCredentials } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { AuthResponse, LoginSecondStepRequest, RecoveryCodes, SecondFactorStatus, TotpConfirmRequest, TotpEnrolment, TotpTurnOffRequest } from "./schemas";
import { confirmTotp, enrolTotp, turnOffTotp } from "./totp-factor";
import { completeSecondStep, secondFactorStatus } from "./second-factor";
import { userResource } from "./queries";
import { sessionLiveAtPrimary } from "./middleware";

export const mfaRoutes = apiRouter();
export const mfaMount = mountAt("/auth", mfaRoutes);

const tags = ["Auth"];

mfaRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/2fa",
    operationId: "auth.secondFactors",
    tags,
    summary: "The account's second factors",
    description: "What can finish a sign-in (`methods`), the TOTP factor's state and how many recovery codes are unused. Session-only.",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: { 200: json(SecondFactorStatus, "The factors"), ...errors(401, 403) },
  }),
  async (c) => c.json(await secondFactorStatus(c.env, sessionPrincipal(c.get("principal")).user.id), 200),
);

mfaRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/2fa/totp",
    operationId: "auth.totp.enrol",
    tags,
    summary: "Start TOTP enrolment",
    description:
      "A new secret for an authenticator app, in base32 and as an otpauth URL (for a QR code). It is pending until POST /auth/2fa/totp/confirm; asking again replaces a pending secret. The secret is stored encrypted. Session-only.",
    security: bearer,
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    errors: ["totp_already_enabled"],
    responses: { 200: json(TotpEnrolment, "Pending until confirmed"), ...errors(401, 403, 409) },
  }),
  async (c) => {
    const { user } = sessionPrincipal(c.get("principal"));
    return c.json(await enrolTotp(c.get("dbs").directory(), c.env, user), 200);
  },
);

mfaRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/2fa/totp/confirm",
    operationId: "auth.totp.confirm",
    tags,
    summary: "Confirm TOTP with a first code",
    description:
      "Turns the pending TOTP factor on with a current code (RFC 6238: SHA-1, 6 digits, 30 s, ±1 step; each code accepted once) and answers 10 single-use recovery codes, shown this once and stored hashed. From then on, sign-in asks for a code. Session-only.",
    security: bearer,
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    request: { body: jsonBody(TotpConfirmRequest) },
    errors: ["invalid_totp_code", "totp_not_pending"],
    responses: { 200: json(RecoveryCodes, "TOTP is on"), ...errors(400, 401, 403, 409) },
  }),
  async (c) => {
    const { user } = sessionPrincipal(c.get("principal"));
    const recoveryCodes = await confirmTotp(c.get("dbs").directory(), c.env, user.id, c.req.valid("json").code);
    return c.json({ recoveryCodes }, 200);
  },
);

mfaRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/2fa/totp",
    operationId: "auth.totp.disable",
    tags,
    summary: "Turn TOTP off",
    description:
      "Takes a current code or the password (either counted like a login attempt), removes the factor (or a pending enrolment) and its recovery codes (unless a passkey remains), and mails the account. Turning a confirmed factor off ends every other session of the account (the caller's stays). Session-only.",
    security: bearer,
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    request: { body: jsonBody(TotpTurnOffRequest) },
    errors: ["invalid_password", "invalid_totp_code", "totp_not_enabled"],
    responses: { 200: json(MessageBody, "TOTP is off"), ...errors(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const p = sessionPrincipal(c.get("principal"));
    const { code, password } = c.req.valid("json");
    await turnOffTotp(c.get("dbs").directory(), c.env, p.user.id, p.sessionId, password !== undefined ? { password } : { code: code! }, p.ip);
    return c.json({ message: "Two-factor sign-in is off" }, 200);
  },
);

mfaRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/login/2fa",
    operationId: "auth.loginSecondStep",
    security: noCredentials,
    tags,
    summary: "Finish a sign-in with a second factor",
    description:
      "Takes the mfaToken of POST /auth/login and a TOTP or recovery code (`code`), or a passkey's answer (`response`) to the options of POST /auth/passkeys/login/options { mfaToken }, and answers as login does. The token is single use and lives 5 minutes; a wrong code or a refused answer leaves it usable and counts as a failed login for the account and the IP (429 past the login limits).",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(LoginSecondStepRequest) },
    errors: ["unauthorized", "invalid_mfa_token", "invalid_mfa_code", "invalid_passkey"],
    responses: { 200: json(AuthResponse, "Signed in"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const { mfaToken, code, response } = c.req.valid("json");
    const proof = response !== undefined ? { response } : { code: code! };
    const { user, session } = await completeSecondStep(c.get("dbs").directory(), c.env, mfaToken, proof, c.get("principal").ip);
    return c.json({ user: userResource(user), session }, 200);
  },
);
