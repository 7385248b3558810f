// Passkey routes (extensions.md §5), beside ./routes.ts and ./mfa-routes.ts under /auth: registration and
// management (session-only; the changes check the session at D1's primary, like TOTP's: a stale principal record
// must not change how the account signs in), and sign-in with a passkey (anonymous, API keys refused like login),
// without a password or, with an mfaToken, as the second step.
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import { noApiKey, sessionOnly, sessionPrincipal } from "../middleware/guards";
import { MessageBody, bearer, errors, json, jsonBody, noCredentials } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { AuthResponse } from "./schemas";
import {
  CreationOptions,
  PasskeyAdded,
  PasskeyList,
  PasskeyRegistrationRequest,
  PasskeyRemovalRequest,
  PasskeySignInOptionsRequest,
  PasskeySignInRequest,
  RequestOptions,
} from "./passkey-schemas";
import { listPasskeys, registerPasskey, registrationOptions, removePasskey } from "./passkeys";
import { passwordlessOptions, signInWithPasskey } from "./passkey-sign-in";
import { completeSecondStep, secondStepPasskeyOptions } from "./second-factor";
import { userResource } from "./queries";
import { sessionLiveAtPrimary } from "./middleware";

export const passkeyRoutes = apiRouter();
export const passkeyMount = mountAt("/auth", passkeyRoutes);

const tags = ["Auth"];

passkeyRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/passkeys/options",
    operationId: "auth.passkeys.registrationOptions",
    tags,
    summary: "Options to register a passkey",
    description:
      "The PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create() (or @simplewebauthn/browser's startRegistration): this site as the relying party, a single-use challenge valid 5 minutes, discoverable credentials, the account's passkeys excluded. Session-only.",
    security: bearer,
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    responses: { 200: json(CreationOptions, "The creation options"), ...errors(401, 403) },
  }),
  async (c) => c.json(await registrationOptions(c.get("dbs").directory(), c.env, sessionPrincipal(c.get("principal")).user.id), 200),
);

passkeyRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/passkeys",
    operationId: "auth.passkeys.register",
    tags,
    summary: "Register a passkey",
    description:
      "Takes a name and the authenticator's answer to the options, verifies it (challenge, origin, relying party, user presence) and stores the credential's public key. The account's first second factor also answers 10 recovery codes, shown this once. Mailed to the account. Session-only.",
    security: bearer,
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    request: { body: jsonBody(PasskeyRegistrationRequest) },
    errors: ["invalid_passkey_challenge", "invalid_passkey_registration", "too_many_passkeys", "passkey_already_registered"],
    responses: { 201: json(PasskeyAdded, "Registered"), ...errors(400, 401, 403, 409) },
  }),
  async (c) => {
    const { name, response } = c.req.valid("json");
    return c.json(await registerPasskey(c.get("dbs").directory(), c.env, sessionPrincipal(c.get("principal")).user.id, name, response), 201);
  },
);

passkeyRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/passkeys",
    operationId: "auth.passkeys.list",
    tags,
    summary: "The account's passkeys",
    description: "Oldest first. Session-only.",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: { 200: json(PasskeyList, "The passkeys"), ...errors(401, 403) },
  }),
  async (c) => c.json(await listPasskeys(c.get("dbs").directory(), sessionPrincipal(c.get("principal")).user.id), 200),
);

passkeyRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/passkeys/{id}",
    operationId: "auth.passkeys.delete",
    tags,
    summary: "Remove a passkey",
    description:
      "Takes the password or a current TOTP code (either counted like a login attempt), removes the passkey and mails the account. Every other session of the account ends (the caller's stays). The recovery codes go too when no second factor is left. Session-only.",
    security: bearer,
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    request: { params: z.object({ id: z.string().max(64) }), body: jsonBody(PasskeyRemovalRequest) },
    errors: ["invalid_password", "invalid_totp_code", "passkey_not_found"],
    responses: { 200: json(MessageBody, "Removed"), ...errors(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const p = sessionPrincipal(c.get("principal"));
    const { code, password } = c.req.valid("json");
    await removePasskey(c.get("dbs").directory(), c.env, p.user.id, p.sessionId, c.req.valid("param").id, password !== undefined ? { password } : { code: code! }, p.ip);
    return c.json({ message: "The passkey was removed" }, 200);
  },
);

passkeyRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/passkeys/login/options",
    operationId: "auth.passkeys.loginOptions",
    security: noCredentials,
    tags,
    summary: "Options to sign in with a passkey",
    description:
      "Without a body (or `{}`): PublicKeyCredentialRequestOptionsJSON for any discoverable credential of this site, user verification required. With `{ mfaToken }` (the password step's): options naming the account's passkeys for the second step. The challenge is single use and valid 5 minutes.",
    middleware: [noApiKey()] as const,
    request: { body: { required: false, content: { "application/json": { schema: PasskeySignInOptionsRequest } } } },
    errors: ["unauthorized", "invalid_mfa_token", "passkey_not_found"],
    responses: { 200: json(RequestOptions, "The request options"), ...errors(400, 401, 403, 404) },
  }),
  async (c) => {
    const { mfaToken } = c.req.valid("json");
    const db = c.get("dbs").directory();
    return c.json(mfaToken === undefined ? await passwordlessOptions(db, c.env) : await secondStepPasskeyOptions(db, c.env, mfaToken), 200);
  },
);

passkeyRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/passkeys/login",
    operationId: "auth.passkeys.login",
    security: noCredentials,
    tags,
    summary: "Sign in with a passkey",
    description:
      "Takes the authenticator's answer to the options and answers as login does. Without an mfaToken the passkey alone signs in (it was verified by a PIN or biometric); with the password step's mfaToken it finishes that sign-in, as POST /auth/login/2fa does. A refused answer counts as a failed login for the account and the IP (429 past the login limits).",
    middleware: [noApiKey()] as const,
    request: { body: jsonBody(PasskeySignInRequest) },
    errors: ["unauthorized", "invalid_mfa_token", "invalid_passkey"],
    responses: { 200: json(AuthResponse, "Signed in"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const { response, mfaToken } = c.req.valid("json");
    const { ip } = c.get("principal");
    const db = c.get("dbs").directory();
    const { user, session } = mfaToken === undefined ? await signInWithPasskey(db, c.env, response, ip) : await completeSecondStep(db, c.env, mfaToken, { response }, ip);
    return c.json({ user: userResource(user), session }, 200);
  },
);
