// Request and answer bodies of the passkey routes (extensions.md §5). The authenticator's answers are the JSON
// forms browsers give (PublicKeyCredential.toJSON(), @simplewebauthn/browser's startRegistration() and
// startAuthentication()): base64url fields, checked here for shape and size only; what they say is checked by
// @simplewebauthn/server. Browsers add fields over time (publicKey, publicKeyAlgorithm...), so the credential
// objects take unknown fields and the bodies around them do not.
import { z } from "@hono/zod-openapi";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { PASSKEYS, PASSWORD_LENGTH } from "../config/auth";

const b64url = (max: number) => z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+={0,2}$/, "Expected base64url");
const common = {
  id: b64url(1400).openapi({ description: "The credential ID, base64url" }),
  rawId: b64url(1400),
  type: z.literal("public-key"),
  clientExtensionResults: z.record(z.string(), z.unknown()).optional(),
  authenticatorAttachment: z.string().max(32).optional(),
};

export const RegistrationCredential = z
  .looseObject({
    ...common,
    response: z.looseObject({
      clientDataJSON: b64url(4096),
      attestationObject: b64url(32_768),
      transports: z.array(z.string().max(32)).max(16).optional(),
    }),
  })
  .openapi("RegistrationCredential", { description: "What navigator.credentials.create() answered, in its JSON form" });

export const AuthenticationCredential = z
  .looseObject({
    ...common,
    response: z.looseObject({
      clientDataJSON: b64url(4096),
      authenticatorData: b64url(4096),
      signature: b64url(2048),
      userHandle: z.string().max(256).nullish(),
    }),
  })
  .openapi("AuthenticationCredential", { description: "What navigator.credentials.get() answered, in its JSON form" });

/** The library's own types, built field by field (no cast): extensions are not used, so none are passed on. */
export function asRegistrationResponse(c: z.output<typeof RegistrationCredential>): RegistrationResponseJSON {
  const { clientDataJSON, attestationObject, transports } = c.response;
  return { id: c.id, rawId: c.rawId, type: c.type, clientExtensionResults: {}, response: { clientDataJSON, attestationObject, transports } };
}
export function asAuthenticationResponse(c: z.output<typeof AuthenticationCredential>): AuthenticationResponseJSON {
  const { clientDataJSON, authenticatorData, signature, userHandle } = c.response;
  return { id: c.id, rawId: c.rawId, type: c.type, clientExtensionResults: {}, response: { clientDataJSON, authenticatorData, signature, ...(userHandle ? { userHandle } : {}) } };
}

const MfaToken = z.string().min(1).max(512).openapi({ description: "The password step's mfaToken: the passkey then finishes that sign-in as its second factor" });

/**
 * The name goes into the security mails and the account page: no control characters (line breaks among them, so
 * a name cannot add lines to a mail), no Unicode line or paragraph separators, no bidirectional overrides.
 */
const PLAIN_TEXT = /^[^\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]*$/u;

export const PasskeyRegistrationRequest = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(PASSKEYS.nameMaxLength)
      .regex(PLAIN_TEXT, "No control characters or line breaks")
      // The pattern written out for the document: the regex's `u` flag (needed by \p{Cc}) has no place in JSON Schema.
      .openapi({ description: "A name to recognise it by (no control characters or line breaks)", example: "Work laptop", pattern: PLAIN_TEXT.source }),
    response: RegistrationCredential,
  })
  .strict()
  .openapi("PasskeyRegistrationRequest");

export const PasskeySignInOptionsRequest = z
  .object({ mfaToken: MfaToken.optional() })
  .strict()
  .openapi("PasskeySignInOptionsRequest", { description: "Empty for a sign-in without a password; with the mfaToken for the second step" });

export const PasskeySignInRequest = z.object({ response: AuthenticationCredential, mfaToken: MfaToken.optional() }).strict().openapi("PasskeySignInRequest");

export const PasskeyRemovalRequest = z
  .object({
    code: z
      .string()
      .transform((s) => s.replace(/\s/g, ""))
      .pipe(z.string().regex(/^[0-9]{6}$/, "Enter the 6-digit code from the authenticator app"))
      .optional()
      .openapi({ type: "string", example: "123456", description: "A current TOTP code (accounts with TOTP)" }),
    password: z.string().min(1).max(PASSWORD_LENGTH.max).optional(),
  })
  .strict()
  .refine((b) => (b.code === undefined) !== (b.password === undefined), { message: "Send either a current code or the password", path: ["code"] })
  .openapi("PasskeyRemovalRequest", { description: "Either a current authenticator code or the account's password" });

const passkeyFields = {
  id: z.string().openapi({ example: "psk_V1StGXR8_Z5jdHi6B-myT" }),
  name: z.string(),
  createdAt: z.string().openapi({ format: "date-time" }),
  lastUsedAt: z.string().nullable().openapi({ format: "date-time" }),
};
export const Passkey = z.object(passkeyFields).openapi("Passkey");
export const PasskeyList = z.object({ passkeys: z.array(Passkey) }).openapi("PasskeyList");
export const PasskeyAdded = z
  .object({
    ...passkeyFields,
    recoveryCodes: z.array(z.string()).optional().openapi({ description: "When this passkey is the account's first second factor: 10 single-use codes, shown this once" }),
  })
  .openapi("PasskeyAdded");

/** The options as @simplewebauthn/browser (or PublicKeyCredential.parse*OptionsFromJSON) takes them. */
export const CreationOptions = z.record(z.string(), z.unknown()).openapi("PasskeyCreationOptions", {
  description: "PublicKeyCredentialCreationOptionsJSON: rp, user, challenge, pubKeyCredParams, timeout, excludeCredentials, authenticatorSelection...",
});
export const RequestOptions = z.record(z.string(), z.unknown()).openapi("PasskeyRequestOptions", {
  description: "PublicKeyCredentialRequestOptionsJSON: challenge, rpId, timeout, userVerification, allowCredentials",
});
