// Serves a variant once byte-path.ts has decided access exactly as for the original: a 304 from the variant's ETag,
// an edge-cache hit, or the image engine (env.IMAGES) on the R2 source. What cannot be made is answered by the
// caller with the original and `X-Variant-Fallback`, never a 500 (docs/files-and-serving.md § Variants).
import type { Context } from "hono";
import type { AppEnv } from "../platform/http/env";
import type { ServedFile } from "./records";
import { ApiError } from "../platform/errors/errors";
import { nameMatchingType } from "../platform/formats/image-types";
import { EDGE_CACHE_SECONDS, variantCacheKey, type Variant } from "./edge-cache";
import { matchEntry, putEntry } from "../platform/edge/edge-records";
import { planVariant, THUMB_SOURCE_SIZE, thumbType, transformableType, type VariantPlan, type VariantQuery, type VariantSource } from "./variants";
import { byteHeaders, etagMatches, notModified, servedType } from "./answers";

export type VariantOutcome = { response: Response } | { fallback: string; vary: boolean } | { identity: true; vary: boolean };

export type VariantArgs = {
  file: ServedFile;
  plan: VariantPlan;
  source: Variant;
  objectKey: string;
  /** The source object's strong validator when the row knows it (the original), else read from R2. */
  sourceTag: string | undefined;
  /** Cache-Control, as the original's. */
  cache: string;
  onView: () => void;
};

export const VARIANT_HEADER = "X-Variant";
export const FALLBACK_HEADER = "X-Variant-Fallback";

/** The variant's ETag: the source's validator and the descriptor, so it changes with either. */
const variantTag = (sourceTag: string, descriptor: string) => `"${sourceTag.replace(/^W\//, "").replace(/"/g, "")}.${descriptor}"`;

/** A variant is another file: "wide.jpg" as WebP is "wide.webp" (a name whose extension lies keeps it whole). */
function variantName(filename: string, originalMime: string): string {
  return nameMatchingType(filename, originalMime) === filename ? filename.replace(/\.[A-Za-z0-9]{1,10}$/, "") : filename;
}

function headers(args: VariantArgs, etag: string, length?: number): Headers {
  const name = variantName(args.file.filename, servedType(args.file.mime));
  const h = byteHeaders({ type: args.plan.type, etag, cache: args.cache, filename: name, nameType: args.plan.type });
  h.set(VARIANT_HEADER, args.plan.descriptor);
  if (length !== undefined) h.set("Content-Length", String(length));
  if (args.plan.negotiated) h.set("Vary", "Accept");
  return h;
}

const unchanged = (args: VariantArgs, etag: string) => ({ response: notModified(headers(args, etag)) });

export async function serveVariant(c: Context<AppEnv>, args: VariantArgs): Promise<VariantOutcome> {
  const { plan, file } = args;
  if (plan.identity) return { identity: true, vary: plan.negotiated };
  const inm = c.req.header("if-none-match");
  const isGet = c.req.method === "GET";
  const knownTag = args.sourceTag ? variantTag(args.sourceTag, plan.descriptor) : undefined;
  if (knownTag && etagMatches(inm, knownTag)) return unchanged(args, knownTag);

  const cacheKey = plan.cacheable ? variantCacheKey(c.env, file.id, args.source, args.objectKey, plan.descriptor) : undefined;
  const cached = cacheKey ? await matchEntry(cacheKey) : undefined;
  if (cached) {
    const etag = cached.headers.get("etag") ?? knownTag ?? `"${plan.descriptor}"`;
    if (etagMatches(inm, etag)) {
      await cached.body?.cancel();
      return unchanged(args, etag);
    }
    if (isGet) args.onView();
    const length = cached.headers.get("content-length");
    return { response: new Response(cached.body, { status: 200, headers: headers(args, etag, length ? Number(length) : undefined) }) };
  }

  const object = await c.env.BUCKET.get(args.objectKey);
  if (!object) throw new ApiError("content_missing", "File content not found");
  const etag = knownTag ?? variantTag(object.httpEtag, plan.descriptor);
  if (etagMatches(inm, etag)) {
    await object.body.cancel();
    return unchanged(args, etag);
  }
  let bytes: ArrayBuffer;
  try {
    if (!c.env.IMAGES) throw new Error("no IMAGES binding");
    const result = await c.env.IMAGES.input(object.body)
      .transform({
        ...(plan.width !== null ? { width: plan.width } : {}),
        ...(plan.height !== null ? { height: plan.height } : {}),
        fit: plan.fit,
      })
      .output({ format: plan.type, quality: plan.quality });
    bytes = await result.response().arrayBuffer();
    if (bytes.byteLength === 0) throw new Error("the engine returned no bytes");
  } catch (err) {
    // Logged for operators; the viewer gets the original (the caller adds the fallback header).
    console.warn(`variant ${plan.descriptor} of ${file.id} failed: ${err instanceof Error ? err.message : String(err)}`);
    await object.body.cancel().catch(() => undefined);
    return { fallback: "engine-error", vary: plan.negotiated };
  }
  if (cacheKey) {
    const entry = new Response(bytes.slice(0), {
      headers: { "Content-Type": plan.type, "Content-Length": String(bytes.byteLength), ETag: etag, "Cache-Control": `public, max-age=${EDGE_CACHE_SECONDS}` },
    });
    c.executionCtx.waitUntil(putEntry(cacheKey, entry));
  }
  if (isGet) args.onView();
  return { response: new Response(bytes, { status: 200, headers: headers(args, etag, bytes.byteLength) }) };
}

export type VariantRequest = Omit<VariantArgs, "plan"> & { query: VariantQuery };

/**
 * The variant a query asks of `source`, or why the original answers instead. GIFs are served as they are
 * (animation kept; the engine's local runner would flatten them to their first frame, and a GIF's size is
 * rarely the problem); BMP and anything else the engine does not read fall back.
 */
export async function tryVariant(c: Context<AppEnv>, req: VariantRequest): Promise<VariantOutcome> {
  const { query, ...rest } = req;
  let source: VariantSource;
  if (req.source === "thumb") {
    source = { type: thumbType(req.objectKey), width: THUMB_SOURCE_SIZE, height: THUMB_SOURCE_SIZE };
  } else {
    const mime = servedType(req.file.mime);
    if (mime === "image/gif") return { fallback: "gif", vary: false };
    const type = transformableType(mime);
    if (!type) return { fallback: "unsupported-type", vary: false };
    source = { type, width: req.file.width, height: req.file.height };
  }
  const plan = planVariant(query, source, c.req.header("accept"));
  // The stored bytes stand for a variant only once the analysis has scrubbed their GPS and serials.
  if (plan.identity && req.source === "original" && req.file.analysis !== "done") plan.identity = false;
  return serveVariant(c, { ...rest, plan });
}
