// What every byte response (original, thumbnail, variant) says about its type and its safety, and its 304;
// shared by the serving feature, the files API's download and moderation's content view.
import { contentDisposition } from "./content-disposition";

/** Bytes never render as anything but an inert image: no scripts, no plugins, no same-origin powers. */
export const BYTES_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

const SERVABLE_TYPE = /^image\/(jpeg|png|gif|webp|avif|bmp)$/;

/** Only the image types we accept are served as themselves; anything else is an opaque download. */
export function servedType(mime: string | undefined | null): string {
  const m = (mime ?? "").toLowerCase().split(";")[0].trim();
  return SERVABLE_TYPE.test(m) ? m : "application/octet-stream";
}

/**
 * The headers of an inline byte response: its type, validator and caching, and what keeps it an inert image.
 * `nameType`: the type the download name's extension is matched against (contentDisposition).
 */
export function byteHeaders(r: { type: string; etag: string; cache: string; filename: string; nameType: string }): Headers {
  return new Headers({
    "Content-Type": r.type,
    ETag: r.etag,
    "Cache-Control": r.cache,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": BYTES_CSP,
    "Cross-Origin-Resource-Policy": "cross-origin",
    "Content-Disposition": contentDisposition(r.filename, r.nameType, "inline"),
  });
}

/**
 * The headers of bytes served to one caller past the public rules (the files API's download, a moderator's view):
 * never kept by a browser or proxy, and as inert as any byte response.
 */
export function privateByteHeaders(file: { mime: string; filename: string }, size: number, disposition: "inline" | "attachment"): Record<string, string> {
  const type = servedType(file.mime);
  return {
    "Content-Type": type,
    "Content-Length": String(size),
    "Content-Disposition": contentDisposition(file.filename, type, disposition),
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": BYTES_CSP,
  };
}

/** A 304: the response's own headers, less the type of a body it does not have. */
export function notModified(headers: Headers): Response {
  headers.delete("Content-Type");
  return new Response(null, { status: 304, headers });
}
