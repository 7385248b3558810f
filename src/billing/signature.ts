// Webhook signatures: `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` under the
// shared secret BILLING_WEBHOOK_SECRET. Several v1 entries are allowed (secret rotation: the sender signs
// with old and new). The timestamp bounds replays to a window; event ids (webhook_events) stop replays
// inside it.
import { bytesToHex, timingSafeEqual, utf8 } from "../platform/crypto/crypto";

export const SIGNATURE_HEADER = "X-Signature";
export const REPLAY_WINDOW_SECONDS = 300;

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: "missing" | "malformed" | "stale" | "mismatch" };

export function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === "t" && /^\d{1,12}$/.test(v)) timestamp = Number(v);
    else if (k === "v1" && /^[0-9a-f]{64}$/i.test(v)) signatures.push(v.toLowerCase());
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return bytesToHex(await crypto.subtle.sign("HMAC", key, utf8(message)));
}

/** The header value a sender puts on `body` (tests and tooling use it). */
export async function signPayload(secret: string, body: string, timestamp: number): Promise<string> {
  return `t=${timestamp},v1=${await hmacHex(secret, `${timestamp}.${body}`)}`;
}

export async function verifySignature(
  secret: string,
  header: string | null | undefined,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<SignatureCheck> {
  if (!header) return { ok: false, reason: "missing" };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: "malformed" };
  if (Math.abs(nowSeconds - parsed.timestamp) > REPLAY_WINDOW_SECONDS) return { ok: false, reason: "stale" };
  const expected = utf8(await hmacHex(secret, `${parsed.timestamp}.${body}`));
  // Every candidate is compared in constant time, and all of them are compared.
  let match = false;
  for (const sig of parsed.signatures) match = timingSafeEqual(expected, utf8(sig)) || match;
  return match ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: "mismatch" };
}
