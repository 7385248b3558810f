// Passkey registration (extensions.md §5): POST /auth/passkeys/options gives the creation options, POST
// /auth/passkeys { name, response } verifies the authenticator's answer against them and stores the credential.
// The answers come from the software authenticator of test/support/webauthn.ts: real ES256 keys and CBOR, so the
// server checks what a browser would send. The relying party is SITE_URL's (http://localhost:8787 here).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { PASSWORD, call, signup } from "../support/api";
import { mailsTo } from "../support/password";
import { atNextStep, enableTotp, factorStatus, login } from "../support/totp";
import { addPasskey, creationOptions, listPasskeys, registerPasskey, withPasskey } from "../support/passkeys";
import { RP_ID, SITE_ORIGIN, attest, b64url, credentialIdOf, newAuthenticator } from "../support/webauthn";
import { createDb } from "../../src/platform/data/db";
import { passkeys } from "../../src/db/schema";
import { PASSKEYS } from "../../src/config/auth";

afterEach(() => vi.useRealTimers());

const db = () => createDb(env.DB);
const B64URL = /^[A-Za-z0-9_-]+$/;

describe("POST /auth/passkeys/options", () => {
  it("gives creation options for this site: RP id and name, the user, a fresh challenge, ES256 among the algorithms, discoverable keys", async () => {
    const user = await signup();
    const r = await creationOptions(user.access);
    expect(r.status).toBe(200);
    const o = r.body;
    expect(o.rp).toEqual({ name: "imghost", id: RP_ID });
    expect(o.user).toEqual({ id: b64url(new TextEncoder().encode(user.id)), name: user.email, displayName: expect.any(String) });
    expect(o.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 random bytes
    expect(o.pubKeyCredParams).toContainEqual({ alg: -7, type: "public-key" });
    expect(o.pubKeyCredParams).toContainEqual({ alg: -257, type: "public-key" });
    expect(o.attestation).toBe("none");
    expect(o.timeout).toBe(PASSKEYS.challengeSeconds * 1000);
    expect(o.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "preferred" });
    expect(o.excludeCredentials).toEqual([]);
    const again = await creationOptions(user.access);
    expect(again.body.challenge).not.toBe(o.challenge);
  });

  it("excludes the account's passkeys, so an authenticator is not registered twice", async () => {
    const user = await signup();
    const { authenticator } = await withPasskey(user);
    const o = (await creationOptions(user.access)).body;
    expect(o.excludeCredentials).toEqual([{ id: credentialIdOf(authenticator), type: "public-key", transports: ["internal"] }]);
  });
});

describe("POST /auth/passkeys", () => {
  it("stores the credential: 201 { id, name, createdAt, lastUsedAt } and, as the first factor, 10 recovery codes; sign-in now asks for the second step", async () => {
    const user = await signup();
    const { reply } = await registerPasskey(user, "  Work laptop  ");
    expect(reply.status).toBe(201);
    expect(Object.keys(reply.body).sort()).toEqual(["createdAt", "id", "lastUsedAt", "name", "recoveryCodes"]);
    expect(reply.body).toMatchObject({ name: "Work laptop", lastUsedAt: null });
    expect(reply.body.id).toMatch(/^psk_[A-Za-z0-9_-]{21}$/);
    expect(Date.parse(reply.body.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(reply.body.recoveryCodes).toHaveLength(10);

    const list = await listPasskeys(user.access);
    expect(list.body).toEqual({ passkeys: [{ id: reply.body.id, name: "Work laptop", createdAt: reply.body.createdAt, lastUsedAt: null }] });
    expect((await factorStatus(user.access)).body).toMatchObject({ methods: ["passkey", "recovery"], recoveryCodesRemaining: 10 });
    const signIn = await login(user.email, PASSWORD);
    expect(signIn.body).toMatchObject({ mfaRequired: true, methods: ["passkey", "recovery"] });
    expect(signIn.body.session).toBeUndefined();
  });

  it("stores the public key and the counter, never a private part; mails the account", async () => {
    const user = await signup();
    const { passkey, authenticator } = await withPasskey(user, "Phone");
    const row = await db().select().from(passkeys).where(eq(passkeys.id, passkey.id)).get();
    expect(row).toMatchObject({ userId: user.id, credentialId: credentialIdOf(authenticator), counter: 0, transports: ["internal"] });
    expect(row!.publicKey).toMatch(B64URL);
    const mails = (await mailsTo(user.email)).filter((m) => m.subject === "A passkey was added to your account");
    expect(mails).toHaveLength(1);
    expect(mails[0].text).toContain("Phone");
  });

  it("a second passkey, or one beside TOTP, brings no new recovery codes: the account has them", async () => {
    atNextStep();
    const user = await signup();
    await withPasskey(user, "one");
    const second = await registerPasskey(user, "two");
    expect(second.reply.status).toBe(201);
    expect(second.reply.body.recoveryCodes).toBeUndefined();

    const other = await signup();
    const { recoveryCodes } = await enableTotp(other);
    const beside = await registerPasskey(other, "key");
    expect(beside.reply.body.recoveryCodes).toBeUndefined();
    expect((await factorStatus(other.access)).body).toMatchObject({ methods: ["totp", "passkey", "recovery"], recoveryCodesRemaining: 10 });
    expect(recoveryCodes).toHaveLength(10);
  });

  describe("the challenge", () => {
    it("one the server never gave: 400 invalid_passkey_challenge", async () => {
      const user = await signup();
      const a = await newAuthenticator();
      const options = (await creationOptions(user.access)).body;
      const r = await addPasskey(user.access, { name: "x", response: await attest(a, { ...options, challenge: b64url(crypto.getRandomValues(new Uint8Array(32))) }) });
      expect([r.status, r.body.error, r.body.details.code]).toEqual([400, "Bad Request", "invalid_passkey_challenge"]);
      expect((await listPasskeys(user.access)).body.passkeys).toEqual([]);
    });

    it("is single use: the same answer again is refused, and so is a new answer to a used challenge", async () => {
      const user = await signup();
      const options = (await creationOptions(user.access)).body;
      const response = await attest(await newAuthenticator(), options);
      expect((await addPasskey(user.access, { name: "x", response })).status).toBe(201);
      const again = await addPasskey(user.access, { name: "x", response });
      expect([again.status, again.body.details.code]).toEqual([400, "invalid_passkey_challenge"]);
      const other = await addPasskey(user.access, { name: "y", response: await attest(await newAuthenticator(), options) });
      expect([other.status, other.body.details.code]).toEqual([400, "invalid_passkey_challenge"]);
    });

    it("two answers to one challenge at once: one passkey", async () => {
      const user = await signup();
      const options = (await creationOptions(user.access)).body;
      const answers = await Promise.all([1, 2, 3].map(async () => attest(await newAuthenticator(), options)));
      const replies = await Promise.all(answers.map((response) => addPasskey(user.access, { name: "x", response })));
      expect(replies.map((r) => r.status).sort()).toEqual([201, 400, 400]);
      expect((await listPasskeys(user.access)).body.passkeys).toHaveLength(1);
    });

    it(`lives ${PASSKEYS.challengeSeconds} s: at 4 min 50 s it works, at 5 min 1 s it is refused`, async () => {
      atNextStep();
      const user = await signup();
      const early = (await creationOptions(user.access)).body;
      const late = (await creationOptions(user.access)).body;
      vi.setSystemTime(Date.now() + 290_000);
      expect((await addPasskey(user.access, { name: "x", response: await attest(await newAuthenticator(), early) })).status).toBe(201);
      vi.setSystemTime(Date.now() + 11_000);
      const r = await addPasskey(user.access, { name: "y", response: await attest(await newAuthenticator(), late) });
      expect([r.status, r.body.details.code]).toEqual([400, "invalid_passkey_challenge"]);
    });

    it("another account's challenge does not register here, and stays usable by its account", async () => {
      const a = await signup();
      const b = await signup();
      const bOptions = (await creationOptions(b.access)).body;
      const r = await addPasskey(a.access, { name: "x", response: await attest(await newAuthenticator(), bOptions) });
      expect([r.status, r.body.details.code]).toEqual([400, "invalid_passkey_challenge"]);
      expect((await addPasskey(b.access, { name: "x", response: await attest(await newAuthenticator(), bOptions) })).status).toBe(201);
      expect((await listPasskeys(a.access)).body.passkeys).toEqual([]);
    });

    it("a sign-in's challenge does not register a passkey", async () => {
      const user = await signup();
      const signInChallenge = (await call("/auth/passkeys/login/options", { method: "POST" })).body.challenge;
      const options = (await creationOptions(user.access)).body;
      const r = await addPasskey(user.access, { name: "x", response: await attest(await newAuthenticator(), { ...options, challenge: signInChallenge }) });
      expect([r.status, r.body.details.code]).toEqual([400, "invalid_passkey_challenge"]);
    });
  });

  describe("the authenticator's answer", () => {
    const refused = [
      ["another origin", { origin: "https://evil.example" }],
      ["the site's host on another port", { origin: "http://localhost:9999" }],
      ["another relying party id", { rpId: "evil.example" }],
      ["a sign-in's type (webauthn.get)", { type: "webauthn.get" }],
      ["no user presence", { userPresent: false }],
    ] as const;
    for (const [label, bend] of refused) {
      it(`${label}: 400 invalid_passkey_registration, and the challenge is used up`, async () => {
        const user = await signup();
        const a = await newAuthenticator();
        const options = (await creationOptions(user.access)).body;
        const r = await addPasskey(user.access, { name: "x", response: await attest(a, options, bend) });
        expect([r.status, r.body.details.code]).toEqual([400, "invalid_passkey_registration"]);
        const retry = await addPasskey(user.access, { name: "x", response: await attest(a, options) });
        expect(retry.body.details.code).toBe("invalid_passkey_challenge");
        expect((await registerPasskey(user, "x", { authenticator: a })).reply.status).toBe(201); // the same, unbent: fine
      });
    }

    it("the origin and RP id the options stand for are accepted (SITE_URL's)", async () => {
      const user = await signup();
      const { reply } = await registerPasskey(user, "x", { bend: { origin: SITE_ORIGIN, rpId: RP_ID } });
      expect(reply.status).toBe(201);
    });

    it("a credential already registered, here or on another account: 409 passkey_already_registered", async () => {
      const a = await signup();
      const b = await signup();
      const { authenticator } = await withPasskey(a);
      for (const user of [a, b]) {
        const { reply } = await registerPasskey(user, "again", { authenticator });
        expect([reply.status, reply.body.details.code]).toEqual([409, "passkey_already_registered"]);
      }
      expect((await listPasskeys(b.access)).body.passkeys).toEqual([]);
    });

    it("bad bodies: 400 validation_error; an answer that does not decode: 400 invalid_passkey_registration", async () => {
      const user = await signup();
      const response = await attest(await newAuthenticator(), (await creationOptions(user.access)).body);
      for (const body of [{}, { name: "x" }, { response }, { name: "", response }, { name: "   ", response }, { name: "x".repeat(65), response }, { name: "x", response, extra: 1 }, { name: "x", response: "text" }]) {
        const r = await addPasskey(user.access, body);
        expect([r.status, r.body.details.code], JSON.stringify(body).slice(0, 80)).toEqual([400, "validation_error"]);
      }
      const garbled = { ...response, response: { ...response.response, clientDataJSON: "not-json" } };
      const r = await addPasskey(user.access, { name: "x", response: garbled });
      expect([r.status, r.body.details.code]).toEqual([400, "invalid_passkey_registration"]);
    });
  });

  it(`at most ${PASSKEYS.maxPerUser} passkeys per account: then 400 too_many_passkeys`, async () => {
    const user = await signup();
    for (let i = 0; i < PASSKEYS.maxPerUser; i++) await withPasskey(user, `key ${i}`);
    const { reply } = await registerPasskey(user, "one more");
    expect([reply.status, reply.body.details.code]).toEqual([400, "too_many_passkeys"]);
  });
});
