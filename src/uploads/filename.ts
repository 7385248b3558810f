// Client filenames -> the last segment of storeKey. No client-controlled path ever reaches R2: the key is
// `uploads/<YYYY-MM-DD>/<file_id>/<sanitised name>` and the sanitised name cannot contain a separator.
import { UPLOADS, type UploadMime } from "../config/uploads";
import { canonicalExtension } from "../platform/formats/image-types";

// C0/C1 controls, bidi overrides/isolates and other invisible format characters (they make names lie about
// themselves, e.g. "gpj.exe" shown as "exe.jpg"), lone surrogates (in /u mode the class only matches unpaired
// ones; they would break encodeURIComponent), and characters that are special in paths or URLs.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]/gu;
const UNSAFE = /[\\/:*?"<>|%#]/gu;
const EXTENSION_RE = /\.([A-Za-z0-9]{1,10})$/;
const encoder = new TextEncoder();

const byteLength = (s: string) => encoder.encode(s).byteLength;

/** Cuts `s` to at most `maxBytes` of UTF-8 without splitting a code point. */
function truncateUtf8(s: string, maxBytes: number): string {
  if (byteLength(s) <= maxBytes) return s;
  let out = "";
  let used = 0;
  for (const ch of s) {
    const n = byteLength(ch);
    if (used + n > maxBytes) break;
    out += ch;
    used += n;
  }
  return out;
}

/**
 * A safe filename: the last path segment of `name`, NFC, without control/format characters or path/URL
 * specials, no leading dots, at most UPLOADS.filenameMaxBytes of UTF-8, the extension kept (or the mime's
 * added when there is none). Idempotent: sanitising a sanitised name changes nothing.
 */
export function sanitizeFilename(name: string, mime: UploadMime, maxBytes = UPLOADS.filenameMaxBytes): string {
  const segments = name.normalize("NFC").split(/[\\/]+/);
  let base = (segments.filter((s) => s.trim() !== "").pop() ?? "")
    .replace(INVISIBLE, "")
    .replace(UNSAFE, "_")
    .replace(/\s+/gu, "_")
    .replace(/^[._]+/u, "")
    .replace(/[._]+$/u, "");

  let ext = EXTENSION_RE.exec(base)?.[1];
  let stem = ext ? base.slice(0, -(ext.length + 1)) : base;
  if (!ext) ext = canonicalExtension(mime);
  stem = stem.replace(/[._]+$/u, "");
  if (stem === "") stem = "file";
  stem = truncateUtf8(stem, maxBytes - byteLength(ext) - 1).replace(/[._]+$/u, "");
  if (stem === "") stem = "file";
  base = `${stem}.${ext}`;
  return base;
}

/**
 * The title a file gets when the uploader gives none: the client's filename without its folder and extension,
 * as the person named it (spaces kept, invisible characters dropped), so lists and pages never show a bare id.
 */
export function titleFromFilename(name: string, maxChars: number = UPLOADS.titleMaxChars): string {
  const last = name.normalize("NFC").split(/[\\/]+/).filter((s) => s.trim() !== "").pop() ?? "";
  const clean = last.replace(INVISIBLE, "").replace(/\s+/gu, " ").trim();
  const stem = clean.replace(EXTENSION_RE, "").trim() || clean;
  return [...stem].slice(0, maxChars).join("").trim();
}

/** `uploads/<YYYY-MM-DD>/<file_id>/<sanitised filename>` (decisions.md § Units and formats). */
export function buildStoreKey(fileId: string, filename: string, now: Date): string {
  return `uploads/${now.toISOString().slice(0, 10)}/${fileId}/${filename}`;
}
