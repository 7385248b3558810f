// The passkey routes (extensions.md §5) as the tests call them, with the software authenticator of ./webauthn.ts
// standing in for the browser and the device.
import { call, type Reply, type TestUser } from "./api";
import { freshIp } from "./password";
import { assertWith, attest, newAuthenticator, type Bend, type SoftAuthenticator } from "./webauthn";

export const creationOptions = (token: string): Promise<Reply> => call("/auth/passkeys/options", { method: "POST", token });
export const addPasskey = (token: string, body: unknown): Promise<Reply> => call("/auth/passkeys", { token, body });
export const listPasskeys = (token: string): Promise<Reply> => call("/auth/passkeys", { token });
export const removePasskey = (token: string, id: string, body: unknown, ip = freshIp()): Promise<Reply> =>
  call(`/auth/passkeys/${encodeURIComponent(id)}`, { method: "DELETE", token, body, ip });
/** The options of a sign-in: without a token, for discoverable credentials; with one, for the second step. */
export const signInOptions = (mfaToken?: string, ip = freshIp()): Promise<Reply> =>
  call("/auth/passkeys/login/options", { method: "POST", ip, ...(mfaToken === undefined ? {} : { body: { mfaToken } }) });
export const passkeySignIn = (body: unknown, ip = freshIp()): Promise<Reply> => call("/auth/passkeys/login", { body, ip });

/** Options, then the authenticator's answer, then POST /auth/passkeys: the reply, and the authenticator. */
export async function registerPasskey(user: TestUser, name = "My laptop", opts: { authenticator?: SoftAuthenticator; bend?: Bend } = {}) {
  const authenticator = opts.authenticator ?? (await newAuthenticator());
  const o = await creationOptions(user.access);
  if (o.status !== 200) throw new Error(`options failed: ${o.status} ${o.text}`);
  const reply = await addPasskey(user.access, { name, response: await attest(authenticator, o.body, opts.bend) });
  return { reply, authenticator, options: o.body };
}

/** A passkey registered for `user` (fails the test when the registration does not succeed). */
export async function withPasskey(user: TestUser, name = "My laptop", opts: { counts?: boolean } = {}) {
  const { reply, authenticator } = await registerPasskey(user, name, { authenticator: await newAuthenticator(opts) });
  if (reply.status !== 201) throw new Error(`registration failed: ${reply.status} ${reply.text}`);
  return { passkey: reply.body, authenticator };
}

/** A sign-in without a password: fresh options, an assertion bent as asked, POST /auth/passkeys/login. */
export async function signInWith(authenticator: SoftAuthenticator, bend: Bend = {}, ip = freshIp()): Promise<Reply> {
  const o = await signInOptions(undefined, ip);
  if (o.status !== 200) throw new Error(`options failed: ${o.status} ${o.text}`);
  return passkeySignIn({ response: await assertWith(authenticator, o.body, bend) }, ip);
}

/** The second step with a passkey: options for the mfaToken, then the assertion to POST /auth/login/2fa. */
export async function secondStepWith(mfaToken: string, authenticator: SoftAuthenticator, bend: Bend = {}, ip = freshIp()): Promise<Reply> {
  const o = await signInOptions(mfaToken, ip);
  if (o.status !== 200) throw new Error(`options failed: ${o.status} ${o.text}`);
  return call("/auth/login/2fa", { body: { mfaToken, response: await assertWith(authenticator, o.body, bend) }, ip });
}
