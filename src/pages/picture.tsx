// How the pages ask for image bytes: every <img> names the width ladder's variants in `srcset` (the browser
// picks by the `sizes` it is given and the screen's density) and keeps width/height so nothing shifts when it
// arrives. Grids use the thumbnail's family (never the original: a file still being analysed shows the
// placeholder SVG, a refused one never reaches a browser). While an image loads, the client script (client/placeholders.ts) paints the file's
// dominant colour and its ThumbHash from the data attributes (the CSP allows no inline style).
import { ANALYSIS, VARIANTS } from "../config";
import { fileUrl, thumbnailUrl } from "../platform/http/urls";
import type { FileRow } from "../db/schema";
import { isUnsafeToRender } from "../serving/access";
import { servedType } from "../serving/answers";
import { PLACEHOLDER_SIZE } from "../serving/placeholder";
import { crawlerType, formatParam, snapToLadder, transformableType } from "../serving/variants";
import type { Variant } from "../serving/edge-cache";

/** Link previews (OpenGraph, Twitter, oEmbed) get a variant this wide at most: large cards are ~1200 px wide. */
export const OG_IMAGE_WIDTH = 1600;

type Painted = { placeholder?: string | null; dominantColor?: string | null };
type Sized = { id: string; width: number | null; height: number | null };

/** The data attributes the client script paints from (none when the analysis made no placeholder). */
export function placeholderData(f: Painted) {
  return {
    "data-placeholder": f.placeholder ?? undefined,
    "data-color": f.dominantColor ?? undefined,
  };
}

/**
 * Names a byte link of a file (`w`: a ladder step, null: the object itself): the plain link, or the owner's
 * signed one minted beforehand (owner-images.ts), so one set of functions draws both.
 */
export type LinkOf = (fileId: string, variant: Variant, w: number | null) => string;

export const plainLinks =
  (env: Env): LinkOf =>
  (fileId, variant, w) => {
    const base = variant === "thumb" ? thumbnailUrl(env, fileId) : fileUrl(env, fileId);
    return w === null ? base : `${base}?w=${w}`;
  };

/** The widths the original's `srcset` names (null: the original itself), which owner-images.ts signs. */
export const originalWidths = (width: number | null): (number | null)[] => [...VARIANTS.ladder.filter((w) => width === null || w < width), null];
/** The widths the thumbnail's `srcset` names. */
export const thumbWidths = (): (number | null)[] => [...VARIANTS.ladder.filter((w) => w < ANALYSIS.thumbnailMaxSide), null];

/** `srcset` over the ladder for the original: each step below its width, then the original itself. */
export function originalSrcset(env: Env, f: { id: string; width: number | null }, link: LinkOf = plainLinks(env)): string {
  return originalWidths(f.width)
    .flatMap((w) => (w !== null ? [`${link(f.id, "original", w)} ${w}w`] : f.width ? [`${link(f.id, "original", null)} ${f.width}w`] : []))
    .join(", ");
}

/** `srcset` over the thumbnail's family: the ladder steps below its size, then the thumbnail. */
export function thumbSrcset(env: Env, id: string, link: LinkOf = plainLinks(env)): string {
  return thumbWidths()
    .map((w) => `${link(id, "thumb", w)} ${w ?? ANALYSIS.thumbnailMaxSide}w`)
    .join(", ");
}

/** A ladder variant of the original no wider than needed for `width` (the original when it is not wider). */
export function sizedOriginal(env: Env, f: Sized, width: number, link: LinkOf = plainLinks(env)): { url: string; width: number | null; height: number | null } {
  const step = snapToLadder(width, f.width);
  if (step === null || f.width === null || f.height === null) return { url: link(f.id, "original", null), width: f.width, height: f.height };
  return { url: link(f.id, "original", step), width: step, height: Math.max(1, Math.round((f.height * step) / f.width)) };
}

/** Scales (w, h) down to fit maxwidth x maxheight, keeping the aspect ratio. */
export function fitWithin(w: number, h: number, maxW?: number, maxH?: number): { width: number; height: number } {
  let scale = 1;
  if (maxW && maxW > 0 && w > maxW) scale = Math.min(scale, maxW / w);
  if (maxH && maxH > 0 && h > maxH) scale = Math.min(scale, maxH / h);
  return { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) };
}

export type PreviewImage = { url: string; width: number | null; height: number | null; type: string };
type Previewed = Sized & { mime: string };

/** The image a link preview fetches (og:image, twitter:image, oEmbed `url`): within the box (at most OG_IMAGE_WIDTH
 * wide), snapped DOWN to a ladder step so the stated size is the variant's own, its format pinned (crawlerType: crawlers
 * send `*\/*`, which would negotiate AVIF). An original that fits is linked as stored when crawlers read its type; GIF
 * (kept animated) and BMP (the engine does not read it) are the plain link (docs/web-app.md § Image sizes). */
export function previewImage(env: Env, f: Previewed, box: { maxWidth?: number; maxHeight?: number } = {}): PreviewImage {
  const type = servedType(f.mime);
  const direct = fileUrl(env, f.id);
  const source = transformableType(type);
  if (!source) return { url: direct, width: f.width, height: f.height, type };
  const out = crawlerType(source);
  const format = `format=${formatParam(out)}`;
  const maxWidth = Math.min(box.maxWidth ?? OG_IMAGE_WIDTH, OG_IMAGE_WIDTH);
  if (f.width === null || f.height === null) {
    // Size unknown (not analysed yet): the engine scales down to the step, never up; the stored bytes if readable.
    const step = VARIANTS.ladder.find((w) => w >= maxWidth) ?? maxWidth;
    return { url: out === source ? direct : `${direct}?w=${step}&${format}`, width: null, height: null, type: out };
  }
  const fitted = fitWithin(f.width, f.height, maxWidth, box.maxHeight);
  if (fitted.width >= f.width) return { url: out === source ? direct : `${direct}?${format}`, width: f.width, height: f.height, type: out };
  const step = [...VARIANTS.ladder].reverse().find((w) => w <= fitted.width);
  // Below the ladder's first step (a tiny maxwidth) the first step is linked and the box's size stated: the
  // consumer scales it down, and maxwidth is kept.
  if (step === undefined) return { url: `${direct}?w=${VARIANTS.ladder[0]}&${format}`, ...fitted, type: out };
  return { url: `${direct}?w=${step}&${format}`, width: step, height: Math.max(1, Math.round((f.height * step) / f.width)), type: out };
}

/**
 * oEmbed's thumbnail: url, width and height together (the spec wants all three or none). The stored thumbnail when
 * there is one; else, for an original the engine reads (AVIF, which our analysis never thumbnails), a preview at that
 * size; else what /thumb answers meanwhile (its placeholder). Never the original of a file refused as a bomb.
 */
export function previewThumbnail(env: Env, f: Previewed & Pick<FileRow, "thumbKey" | "analysis" | "analysisError" | "analysisFailure">) {
  const max = ANALYSIS.thumbnailMaxSide;
  const thumb = (size: { width: number; height: number }) => ({ thumbnail_url: thumbnailUrl(env, f.id), thumbnail_width: size.width, thumbnail_height: size.height });
  if (f.thumbKey) return f.width && f.height ? thumb(fitWithin(f.width, f.height, max, max)) : {};
  if (f.width && f.height && transformableType(servedType(f.mime)) && !isUnsafeToRender(f)) {
    const p = previewImage(env, f, { maxWidth: max, maxHeight: max });
    return { thumbnail_url: p.url, thumbnail_width: p.width!, thumbnail_height: p.height! };
  }
  return thumb(PLACEHOLDER_SIZE);
}

/** A square grid card's image (180 px on desktop, about half the screen on a phone); `link`: signed for the owner. */
export function GridImage(props: { env: Env; file: { id: string } & Painted; alt: string; size?: number; link?: LinkOf }) {
  const size = props.size ?? 180;
  const link = props.link ?? plainLinks(props.env);
  return (
    <img
      src={link(props.file.id, "thumb", null)}
      srcset={thumbSrcset(props.env, props.file.id, link)}
      sizes={`(max-width: 480px) 45vw, ${size}px`}
      alt={props.alt}
      loading="lazy"
      decoding="async"
      width={size}
      height={size}
      {...placeholderData(props.file)}
    />
  );
}
