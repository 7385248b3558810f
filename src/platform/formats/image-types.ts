// The image types we accept, and the file extensions that say so. A name's extension is the client's claim;
// the type is what the magic bytes proved at upload. Where the two disagree, the type wins on the way out
// (a PNG named "index.html" downloads as "index.html.png").
import type { UploadMime } from "../../config/uploads";

const EXTENSIONS: Record<UploadMime, readonly string[]> = {
  "image/jpeg": ["jpg", "jpeg", "jpe", "jfif"],
  "image/png": ["png"],
  "image/gif": ["gif"],
  "image/webp": ["webp"],
  "image/avif": ["avif"],
  "image/bmp": ["bmp", "dib"],
};

/** The extension we write for `mime` (its first); "bin" for anything that is not one of our image types. */
export function canonicalExtension(mime: string): string {
  return (EXTENSIONS as Record<string, readonly string[]>)[mime]?.[0] ?? "bin";
}

/** `name` when its extension already names `mime`, else `name` with the type's extension added. */
export function nameMatchingType(name: string, mime: string): string {
  const ext = /[^.]\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1]?.toLowerCase(); // ".png" alone is a dotfile: no extension
  const allowed = (EXTENSIONS as Record<string, readonly string[]>)[mime] ?? ["bin"];
  return ext !== undefined && allowed.includes(ext) ? name : `${name}.${canonicalExtension(mime)}`;
}

/** The image type a name's extension claims, or null (upload clients that send a name and no type: tus). */
export function typeOfName(name: string): UploadMime | null {
  const ext = /[^.]\.([A-Za-z0-9]{1,10})$/.exec(name)?.[1]?.toLowerCase();
  if (ext === undefined) return null;
  for (const [mime, exts] of Object.entries(EXTENSIONS)) if (exts.includes(ext)) return mime as UploadMime;
  return null;
}
