// Content-Disposition for downloads (RFC 6266 + RFC 8187): a plain ASCII `filename` for old clients and
// `filename*=UTF-8''...` with the exact name percent-encoded. Nothing from the stored name can reach the
// header unescaped: no CR/LF (header splitting), no quotes or backslashes (parameter breakout), no `;`.
// The name's extension always names the served type, whatever the client called the file.
import { nameMatchingType } from "../platform/formats/image-types";

/** RFC 8187 attr-char: ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

const MAX_NAME_CHARS = 150;

function encodeRfc8187(value: string): string {
  let out = "";
  for (const ch of value) {
    if (ATTR_CHAR.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of new TextEncoder().encode(ch)) out += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** Printable ASCII without the characters that end or escape a quoted-string, or that look like paths. */
function asciiFallback(value: string): string {
  const replaced = value
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // drop the accents NFKD split off: "é" -> "e"
    .replace(/[^\x20-\x7e]/g, "_")
    .replace(/["\\/%;]/g, "_")
    .trim();
  // No dotfile names; a name whose stem vanished (" .jpg" from "˘.jpg") keeps its extension: "_.jpg".
  return replaced.startsWith(".") ? `_${replaced}` : replaced;
}

/** Removes control characters and path parts; keeps the rest of the name, capped in length. */
export function cleanFilename(name: string, fallback = "download"): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  const cleaned = base.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, "").trim();
  const chars = [...cleaned];
  const capped = chars.length > MAX_NAME_CHARS ? chars.slice(chars.length - MAX_NAME_CHARS).join("") : cleaned;
  return /^\.*$/.test(capped) ? fallback : capped; // "", ".", "..", "....": nothing to name the file by
}

/** `servedType` is the Content-Type the bytes go out with: the name's extension is made to match it. */
export function contentDisposition(filename: string, servedType: string, type: "attachment" | "inline" = "attachment"): string {
  const name = nameMatchingType(cleanFilename(filename), servedType);
  const ascii = asciiFallback(name) || "download";
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}
