// How the pages ask for image bytes: every <img> names the width ladder's variants in `srcset` (the browser
// picks by the `sizes` it is given and the screen's density) and keeps width/height so nothing shifts when it
// arrives. Grids use the thumbnail's family (never the original: a file still being analysed shows the
// placeholder SVG, a refused one never reaches a browser). While an image loads, app.js paints the file's
// dominant colour and its ThumbHash from the data attributes (the CSP allows no inline style).
import { ANALYSIS, VARIANTS } from "../config";
import { fileUrl, thumbnailUrl } from "../platform/urls";
import { snapToLadder } from "../serving/variants";

/** Link previews (OpenGraph, Twitter, oEmbed) get a variant this wide at most: large cards are ~1200 px wide. */
export const OG_IMAGE_WIDTH = 1600;

type Painted = { placeholder?: string | null; dominantColor?: string | null };
type Sized = { id: string; width: number | null; height: number | null };

/** The data attributes app.js paints from (none when the analysis made no placeholder). */
export function placeholderData(f: Painted) {
  return {
    "data-placeholder": f.placeholder ?? undefined,
    "data-color": f.dominantColor ?? undefined,
  };
}

/** `srcset` over the ladder for the original: each step below its width, then the original itself. */
export function originalSrcset(env: Env, f: { id: string; width: number | null }): string {
  const base = fileUrl(env, f.id);
  const steps = VARIANTS.ladder.filter((w) => f.width === null || w < f.width);
  return [...steps.map((w) => `${base}?w=${w} ${w}w`), ...(f.width ? [`${base} ${f.width}w`] : [])].join(", ");
}

/** `srcset` over the thumbnail's family: the ladder steps below its size, then the thumbnail. */
export function thumbSrcset(env: Env, id: string): string {
  const thumb = thumbnailUrl(env, id);
  const steps = VARIANTS.ladder.filter((w) => w < ANALYSIS.thumbnailMaxSide);
  return [...steps.map((w) => `${thumb}?w=${w} ${w}w`), `${thumb} ${ANALYSIS.thumbnailMaxSide}w`].join(", ");
}

/** A ladder variant of the original no wider than needed for `width` (the original when it is not wider). */
export function sizedOriginal(env: Env, f: Sized, width: number): { url: string; width: number | null; height: number | null } {
  const step = snapToLadder(width, f.width);
  if (step === null || f.width === null || f.height === null) return { url: fileUrl(env, f.id), width: f.width, height: f.height };
  return { url: `${fileUrl(env, f.id)}?w=${step}`, width: step, height: Math.max(1, Math.round((f.height * step) / f.width)) };
}

/** A square grid card's image (180 px on desktop, about half the screen on a phone). */
export function GridImage(props: { env: Env; file: { id: string } & Painted; alt: string; size?: number }) {
  const size = props.size ?? 180;
  return (
    <img
      src={thumbnailUrl(props.env, props.file.id)}
      srcset={thumbSrcset(props.env, props.file.id)}
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
