// The upload's content type: given, else from the file name's extension, else from the first bytes (the server
// checks those bytes against the type at the end either way). Only the server's allow-list is named here.

const BY_EXTENSION: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  jpe: "image/jpeg",
  jfif: "image/jpeg",
  png: "image/png",
  apng: "image/png",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  bmp: "image/bmp",
  dib: "image/bmp",
};

const EXTENSION_OF: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
  "image/bmp": "bmp",
};

export function mimeFromName(filename: string): string | null {
  const dot = filename.lastIndexOf(".");
  return dot < 0 ? null : (BY_EXTENSION[filename.slice(dot + 1).toLowerCase()] ?? null);
}

export function extensionOf(mime: string): string {
  return EXTENSION_OF[mime] ?? "bin";
}

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));

/** The image type the first bytes (12 or more) announce, or null. */
export function sniffMime(head: Uint8Array): string | null {
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (head[0] === 0x89 && ascii(head, 1, 4) === "PNG") return "image/png";
  if (ascii(head, 0, 4) === "GIF8") return "image/gif";
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return "image/webp";
  if (ascii(head, 4, 8) === "ftyp" && /^avi[fs]$/.test(ascii(head, 8, 12))) return "image/avif";
  if (ascii(head, 0, 2) === "BM") return "image/bmp";
  return null;
}
