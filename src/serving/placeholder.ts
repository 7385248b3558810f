// What {image_url}/<id>/thumb answers before (or instead of) a real thumbnail. Never the original: an
// original can be a 13 MB photo in a 180 px card, or a pixel bomb the analysis refused to decode.
// The placeholders are our own constant SVGs, so they are safe to render and cheap to send.
import type { FileRow } from "../db/schema";
import { SERVING } from "../config";

export type PlaceholderKind = "pending" | "unavailable";

/** The placeholders' size (oEmbed states it as thumbnail_width / thumbnail_height while /thumb answers one). */
export const PLACEHOLDER_SIZE = { width: 320, height: 240 } as const;

function svg(label: string, fill: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${PLACEHOLDER_SIZE.width}" height="${PLACEHOLDER_SIZE.height}" viewBox="0 0 320 240">` +
    `<rect width="320" height="240" fill="${fill}"/>` +
    `<text x="160" y="126" font-family="system-ui,sans-serif" font-size="18" fill="#6b7280" text-anchor="middle">${label}</text>` +
    `</svg>`
  );
}

const BODIES: Record<PlaceholderKind, string> = {
  pending: svg("Processing…", "#e5e7eb"),
  unavailable: svg("No preview", "#e5e7eb"),
};

/** Pending while analysis may still make a thumbnail; unavailable once it has ended without one. */
export function placeholderKind(file: Pick<FileRow, "analysis">): PlaceholderKind {
  return file.analysis === "done" || file.analysis === "failed" ? "unavailable" : "pending";
}

/** The placeholder for `req` (GET, HEAD, or 304 to its own ETag); `cacheScope` follows the file's privacy. */
export function placeholderResponse(kind: PlaceholderKind, req: Request, cacheScope: "public" | "private"): Response {
  const body = new TextEncoder().encode(BODIES[kind]);
  const etag = `"placeholder-${kind}"`;
  // Pending placeholders are replaced within seconds: cache them briefly; a final one can stay longer.
  const maxAge = kind === "pending" ? SERVING.thumbnailPendingMaxAgeSeconds : SERVING.shortLinkMaxAgeSeconds;
  const notModified = req.headers.get("if-none-match")?.includes(etag) ?? false;
  return new Response(req.method === "HEAD" || notModified ? null : body, {
    status: notModified ? 304 : 200,
    headers: {
      "Content-Type": "image/svg+xml",
      "Content-Length": String(body.byteLength),
      "Cache-Control": `${cacheScope}, max-age=${maxAge}`,
      ETag: etag,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      "Cross-Origin-Resource-Policy": "cross-origin",
      "X-Thumbnail": kind,
    },
  });
}
