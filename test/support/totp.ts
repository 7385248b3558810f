// Helpers for the two-factor tests (extensions.md §5): TOTP codes computed here with @noble/hashes (not with the
// code under test) for chosen instants, the clock moved to those instants (Date only, shared by the worker and
// its Durable Objects in the test isolate; never a sleep), and the routes.
import { vi } from "vitest";
import { hmac } from "@noble/hashes/hmac.js";
import { sha1 } from "@noble/hashes/legacy.js";
import { call, type Reply, type TestUser } from "./api";
import { freshIp } from "./password";

const STEP_MS = 30_000;

/** RFC 4648 base32 to bytes (the secret as the API answers it). */
export function base32Bytes(secret: string): Uint8Array {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const ch of secret.replace(/=+$/, "")) bits += alphabet.indexOf(ch).toString(2).padStart(5, "0");
  const out = new Uint8Array(Math.floor(bits.length / 8));
  for (let i = 0; i < out.length; i++) out[i] = parseInt(bits.slice(i * 8, i * 8 + 8), 2);
  return out;
}

/** RFC 6238 (SHA-1, 6 digits, 30 s) code of `secret` (base32) at the instant `ms`. */
export function codeAt(secret: string, ms: number): string {
  const counter = Math.floor(ms / STEP_MS);
  const msg = new Uint8Array(8);
  new DataView(msg.buffer).setUint32(0, Math.floor(counter / 2 ** 32));
  new DataView(msg.buffer).setUint32(4, counter >>> 0);
  const mac = hmac(sha1, base32Bytes(secret), msg);
  const o = mac[19] & 0xf;
  const n = ((mac[o] & 0x7f) << 24) | (mac[o + 1] << 16) | (mac[o + 2] << 8) | mac[o + 3];
  return String(n % 1_000_000).padStart(6, "0");
}

/**
 * Moves the clock (Date only; it runs on from there) to 1 s into the next 30-second step, and returns that
 * instant: a test then has 29 s before the step changes under it. Undo with vi.useRealTimers() (afterEach).
 */
export function atNextStep(): number {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  const t = Math.ceil(Date.now() / STEP_MS) * STEP_MS + 1000;
  vi.setSystemTime(t);
  return t;
}

/** Moves the clock forward by `ms` (fake timers must be on). */
export function advanceClock(ms: number): number {
  const t = Date.now() + ms;
  vi.setSystemTime(t);
  return t;
}

export const STEP = STEP_MS;

export const enrol = (token: string): Promise<Reply> => call("/auth/2fa/totp", { method: "POST", token });
export const confirm = (token: string, code: unknown): Promise<Reply> => call("/auth/2fa/totp/confirm", { token, body: { code } });
export const turnOff = (token: string, body: unknown, ip = freshIp()): Promise<Reply> => call("/auth/2fa/totp", { method: "DELETE", token, body, ip });
export const factorStatus = (token: string): Promise<Reply> => call("/auth/2fa", { token });
export const login = (email: string, password: string, ip = freshIp()): Promise<Reply> => call("/auth/login", { body: { email, password }, ip });
export const secondStep = (mfaToken: string, code: string, ip = freshIp()): Promise<Reply> => call("/auth/login/2fa", { body: { mfaToken, code }, ip });

/**
 * Turns TOTP on for `user` at the current (faked) instant: enrol, then confirm with the code of the step before
 * now, so the codes of now and later steps are still unused. Returns the secret and the recovery codes.
 */
export async function enableTotp(user: TestUser): Promise<{ secret: string; recoveryCodes: string[] }> {
  const e = await enrol(user.access);
  if (e.status !== 200) throw new Error(`enrol failed: ${e.status} ${e.text}`);
  const c = await confirm(user.access, codeAt(e.body.secret, Date.now() - STEP_MS));
  if (c.status !== 200) throw new Error(`confirm failed: ${c.status} ${c.text}`);
  return { secret: e.body.secret, recoveryCodes: c.body.recoveryCodes };
}

/** The password step's mfaToken (fails the test when the login does not ask for the second step). */
export async function mfaTokenFor(email: string, password: string, ip = freshIp()): Promise<string> {
  const r = await login(email, password, ip);
  if (r.status !== 200 || r.body.mfaRequired !== true) throw new Error(`login did not ask for a second factor: ${r.status} ${r.text}`);
  return r.body.mfaToken;
}
