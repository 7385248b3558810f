// Standard Webhooks signing (https://www.standardwebhooks.com): the reference library `standardwebhooks` signs
// (pure JavaScript HMAC-SHA256, so it runs on Workers as on Node); the secret is `whsec_` + base64 of 32
// random bytes, and those bytes are the HMAC key.
import { Webhook } from "standardwebhooks";

export const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

export function newSigningKey(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
}

/** What the owner is shown once: `whsec_` + the key in standard base64. */
export function secretText(key: Uint8Array): string {
  let binary = "";
  for (const byte of key) binary += String.fromCharCode(byte);
  return SECRET_PREFIX + btoa(binary);
}

/** The three headers of one try: the id is the event's (the same on every retry), the timestamp this try's. */
export function signedHeaders(key: Uint8Array, eventId: string, at: Date, body: string): Record<string, string> {
  const signature = new Webhook(key, { format: "raw" }).sign(eventId, at, body);
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signature,
  };
}
