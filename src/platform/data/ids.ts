// IDs are a prefix plus 21 characters from the URL-safe alphabet (decisions.md § Units and formats).
export const URL_SAFE = "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict";

export type IdPrefix = "usr" | "upl" | "file" | "alb" | "rep" | "key" | "ses" | "msg" | "tok" | "aud" | "pch" | "blk" | "psk" | "whk" | "whd" | "wha" | "evt";

/** 64 symbols, so masking a random byte with 63 is uniform. */
export function randomId(size = 21): string {
  const bytes = crypto.getRandomValues(new Uint8Array(size));
  let out = "";
  for (let i = 0; i < size; i++) out += URL_SAFE[bytes[i] & 63];
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomId()}`;
}

const ID_BODY = /^[A-Za-z0-9_-]{21}$/;

/** True when `value` has the shape `<prefix>_<21 url-safe chars>`; cheap guard before touching the database. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.startsWith(prefix + "_") && ID_BODY.test(value.slice(prefix.length + 1));
}
