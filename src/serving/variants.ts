// Variants by URL (`?w=`, h, fit, q, format): a query becomes a plan for the image engine, with its edge-cache key;
// serving it is variant-serve.ts. Only the plain ladder is cached, a finite set accessChanged can name key by key
// (docs/files-and-serving.md § Variants).
import { ANALYSIS, VARIANTS } from "../config";
import { ApiError } from "../platform/errors/errors";
import { fileUrl } from "../platform/http/urls";
import { snapBox, type BoxFill } from "./variant-box";

export type OutputType = "image/avif" | "image/webp" | "image/jpeg" | "image/png";
export const OUTPUT_TYPES: readonly OutputType[] = ["image/avif", "image/webp", "image/jpeg", "image/png"];
const FORMAT_NAMES: Record<string, OutputType> = { avif: "image/avif", webp: "image/webp", jpeg: "image/jpeg", jpg: "image/jpeg", png: "image/png" };
const EXTENSION: Record<OutputType, string> = { "image/avif": "avif", "image/webp": "webp", "image/jpeg": "jpeg", "image/png": "png" };

export type Fit = "scale-down" | "contain" | "cover" | "crop" | "pad";
const FITS: readonly Fit[] = ["scale-down", "contain", "cover", "crop", "pad"];
const BOX_FILL: Record<Fit, BoxFill> = { "scale-down": "inside", contain: "inside", cover: "fill", crop: "fill", pad: "pad" };

/** What the URL asked for, validated (400 on nonsense) but not yet fitted to a source. */
export type VariantQuery = { width: number | null; height: number | null; fit: Fit; quality: number; format: OutputType | null };

export const VARIANT_PARAMS = ["w", "h", "fit", "q", "format"] as const;

function dimension(name: string, raw: string | null): number | null {
  if (raw === null || raw === "" || raw === "original") return null;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) === 0) throw new ApiError("invalid_variant", `${name} must be a whole number of pixels from 1 to 99999, or "original"`);
  return Number(raw);
}

/**
 * The variant a request's query asks for; undefined when it asks for none (the plain link: the original bytes,
 * exactly as stored). Unknown parameters (cache busters) are ignored.
 */
export function parseVariantQuery(url: URL): VariantQuery | undefined {
  const q = url.searchParams;
  if (!VARIANT_PARAMS.some((p) => q.has(p))) return undefined;
  const fitRaw = q.get("fit") || "scale-down";
  if (!FITS.includes(fitRaw as Fit)) throw new ApiError("invalid_variant", `fit must be one of ${FITS.join(", ")}`);
  const qRaw = q.get("q");
  if (qRaw !== null && qRaw !== "" && (!/^\d{1,3}$/.test(qRaw) || Number(qRaw) < 1 || Number(qRaw) > 100)) {
    throw new ApiError("invalid_variant", "q must be a whole number from 1 to 100");
  }
  const formatRaw = (q.get("format") || "auto").toLowerCase();
  if (formatRaw !== "auto" && !(formatRaw in FORMAT_NAMES)) throw new ApiError("invalid_variant", "format must be one of auto, avif, webp, jpeg, png");
  return {
    width: dimension("w", q.get("w")),
    height: dimension("h", q.get("h")),
    fit: fitRaw as Fit,
    quality: qRaw ? nearestQuality(Number(qRaw)) : VARIANTS.defaultQuality,
    format: formatRaw === "auto" ? null : FORMAT_NAMES[formatRaw],
  };
}

function nearestQuality(q: number): number {
  return VARIANTS.qualities.reduce((best, step) => (Math.abs(step - q) < Math.abs(best - q) ? step : best));
}

/** The next ladder step at or above `n`; null (the source's size) above the ladder or at / above `sourceSize`. */
export function snapToLadder(n: number | null, sourceSize: number | null): number | null {
  if (n === null) return null;
  const step = VARIANTS.ladder.find((s) => s >= n) ?? null;
  if (step === null || (sourceSize !== null && step >= sourceSize)) return null;
  return step;
}

/** Tokens of an Accept header that are not refused (q=0). */
function accepted(accept: string | null | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (accept ?? "").toLowerCase().split(",")) {
    const [type, ...params] = part.split(";").map((s) => s.trim());
    const q = params.find((p) => p.startsWith("q="));
    if (type && !(q && Number(q.slice(2)) === 0)) out.add(type);
  }
  return out;
}

/** AVIF, else WebP, else the source's type (only named types count: `*\/*` promises nothing about AVIF). */
export function negotiateType(accept: string | null | undefined, sourceType: OutputType): OutputType {
  const types = accepted(accept);
  if (types.has("image/avif")) return "image/avif";
  if (types.has("image/webp")) return "image/webp";
  return sourceType;
}

/** The source types the engine reads and can write back as themselves (GIF and BMP are decided apart). */
export function transformableType(mime: string): OutputType | undefined {
  return (OUTPUT_TYPES as readonly string[]).includes(mime) ? (mime as OutputType) : undefined;
}

export type VariantPlan = {
  width: number | null;
  height: number | null;
  fit: Fit;
  quality: number;
  type: OutputType;
  /** The format came from Accept: the answer must say `Vary: Accept`. */
  negotiated: boolean;
  /** Nothing to do: the source's own size, type and default quality (its bytes are the answer). */
  identity: boolean;
  /** Names the variant in its ETag, cache key and X-Variant header, e.g. `w640.webp` or `w640h320-cover.q50.avif`. */
  descriptor: string;
  /** A plain ladder variant in AVIF, WebP, the source's type or its crawlerType: kept in the edge cache under a key accessChanged names. */
  cacheable: boolean;
};

export type VariantSource = { type: OutputType; width: number | null; height: number | null };

/** Fits a query to its source: snaps, drops what cannot matter, and picks the output type. */
export function planVariant(query: VariantQuery, source: VariantSource, accept: string | null | undefined): VariantPlan {
  // Both sides: one box that keeps the asked ratio (null: the source's size). One side: it snaps up the ladder.
  const box = query.width !== null && query.height !== null ? snapBox({ width: query.width, height: query.height }, BOX_FILL[query.fit], source) : undefined;
  const width = box === undefined ? snapToLadder(query.width, source.width) : (box?.width ?? null);
  const height = box === undefined ? snapToLadder(query.height, source.height) : (box?.height ?? null);
  // With one side (or none) every fit keeps the aspect ratio within it: all are scale-down (we never upscale).
  const fit: Fit = width !== null && height !== null ? query.fit : "scale-down";
  const type = query.format ?? negotiateType(accept, source.type);
  const defaults = fit === "scale-down" && query.quality === VARIANTS.defaultQuality;
  const shape = `w${width ?? 0}` + (height !== null ? `h${height}` : "") + (fit !== "scale-down" ? `-${fit}` : "");
  const descriptor = `${shape}${query.quality === VARIANTS.defaultQuality ? "" : `.q${query.quality}`}.${EXTENSION[type]}`;
  return {
    width,
    height,
    fit,
    quality: query.quality,
    type,
    negotiated: query.format === null,
    identity: width === null && height === null && type === source.type && defaults,
    descriptor,
    cacheable: height === null && defaults && cachedTypes(source.type).includes(type),
  };
}

/**
 * The type link previews (og:image, oEmbed) pin with `&format=`: crawlers send `Accept: *\/*` or nothing and not
 * all of them (Facebook, X, Slack, Discord, iMessage) render AVIF, so AVIF becomes JPEG; the others keep their
 * own type (PNG its transparency).
 */
export const crawlerType = (sourceType: OutputType): OutputType => (sourceType === "image/avif" ? "image/jpeg" : sourceType);

/** The `format=` value that names `type`. */
export const formatParam = (type: OutputType): string => EXTENSION[type];

/**
 * What Accept can negotiate (AVIF, WebP, the source's own type) and what link previews pin (crawlerType): any
 * other explicit format is not cached. At most three types, so a file's purge list stays one call.
 */
const cachedTypes = (sourceType: OutputType): OutputType[] => [...new Set<OutputType>(["image/avif", "image/webp", sourceType, crawlerType(sourceType)])];

/** A thumbnail's type, from its key (analysis writes `thumbs/<id>.jpg` or `.png`). */
export const thumbType = (thumbKey: string): OutputType => (thumbKey.endsWith(".png") ? "image/png" : "image/jpeg");

/**
 * Every descriptor a cacheable plan can have for a source of `sourceType`: what a purge must name. For a JPEG
 * (or an AVIF: AVIF, WebP and JPEG) with a thumbnail that is 7 x 3 + 2 x 3 = 27 keys, with the access record, original and thumbnail 30: one
 * purge-by-URL call (Cloudflare takes 30 URLs a call).
 */
export function cacheableDescriptors(source: "original" | "thumb", sourceType: OutputType): string[] {
  const widths = source === "thumb" ? [...VARIANTS.ladder.filter((w) => w < ANALYSIS.thumbnailMaxSide), 0] : [...VARIANTS.ladder, 0];
  return widths.flatMap((w) => cachedTypes(sourceType).map((t) => `w${w}.${EXTENSION[t]}`));
}

/** A thumbnail's own size is at most ANALYSIS.thumbnailMaxSide on its long side. */
export const THUMB_SOURCE_SIZE = ANALYSIS.thumbnailMaxSide;

/** The ladder's URLs for a file (GET /files/:id `variants`): the steps below its width, then the original. */
export function ladderUrls(env: Env, file: { id: string; width: number | null }): { width: number | null; url: string }[] {
  const base = fileUrl(env, file.id);
  const steps = VARIANTS.ladder.filter((w) => file.width === null || w < file.width);
  return [...steps.map((w) => ({ width: w as number | null, url: `${base}?w=${w}` })), { width: file.width, url: base }];
}
