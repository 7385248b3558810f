// A password album's zip download is a second POST after the page. Rather than echo the password into the page
// (where it would sit in the HTML, the browser's history of form data, and any screenshot), the page carries a
// short-lived grant: an HMAC over the album id and its current password hash. Changing or removing the password
// voids every grant at once; the secret is JWT_SECRET under a purpose label of its own, so a grant is never
// mistaken for any other signed value.
import type { AlbumRow } from "../db/schema";
import { base64url, timingSafeEqualString, utf8 } from "../platform/crypto/crypto";
import { config } from "../config/env";

export const ALBUM_GRANT_SECONDS = 30 * 60;

async function mac(secret: string, album: Pick<AlbumRow, "id" | "passwordHash">, expires: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const message = `album-download-grant\0${album.id}\0${album.passwordHash ?? ""}\0${expires}`;
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8(message)));
}

/** `<expires unix seconds>.<base64url mac>` */
export async function signAlbumGrant(env: Env, album: Pick<AlbumRow, "id" | "passwordHash">, nowSeconds = Math.floor(Date.now() / 1000)) {
  const expires = nowSeconds + ALBUM_GRANT_SECONDS;
  return `${expires}.${base64url(await mac(config(env).jwt.secret, album, expires))}`;
}

export async function verifyAlbumGrant(
  env: Env,
  album: Pick<AlbumRow, "id" | "passwordHash">,
  grant: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(grant ?? "");
  if (!m || album.passwordHash === null) return false;
  const expires = Number(m[1]);
  if (expires <= nowSeconds || expires > nowSeconds + ALBUM_GRANT_SECONDS) return false;
  // Compared as text: decoding would accept any of the four spellings of the last character's spare bits.
  return timingSafeEqualString(m[2], base64url(await mac(config(env).jwt.secret, album, expires)));
}
