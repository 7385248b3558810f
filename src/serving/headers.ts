// What every byte response (original, thumbnail, variant) says about its type and its safety; shared by the
// serving feature, the files API's download and moderation's content view.

/** Bytes never render as anything but an inert image: no scripts, no plugins, no same-origin powers. */
export const BYTES_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

const SERVABLE_TYPE = /^image\/(jpeg|png|gif|webp|avif|bmp)$/;

/** Only the image types we accept are served as themselves; anything else is an opaque download. */
export function servedType(mime: string | undefined | null): string {
  const m = (mime ?? "").toLowerCase().split(";")[0].trim();
  return SERVABLE_TYPE.test(m) ? m : "application/octet-stream";
}
