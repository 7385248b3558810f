// Streams a file's bytes (or its thumbnail) from R2: the hot path behind {image_url} and {cdn_url}.
//
// Per request: the access decision (404/410/403) from the file's row and its owner's state, read from the
// edge-cached access records for anonymous viewers (access-records.ts; D1 only on a miss), then the cheapest
// way to the bytes: a 304 or a HEAD needs no R2 at all when the row knows the ETag and size; a whole GET
// comes from the edge cache when it can; only misses and ranges read R2. Counting a view is an RPC sent
// after the response (serving/view-counter.ts), never a D1 write. An anonymous view that hits both caches
// waits for no D1 query and no Durable Object. A variant (`?w=640`, variants.ts) is decided by the very same
// steps, then served by variant-serve.ts, or by the original with X-Variant-Fallback when it cannot be made.
import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { FileRow } from "../db/schema";
import { ApiError } from "../platform/errors";
import { resolvePrincipal } from "../auth/principal";
import { missingPermission } from "../middleware/guards";
import { SERVING } from "../config";
import { ANONYMOUS_VIEWER, assertReadable, loadFile, viewerOf, type Viewer } from "../files/access";
import { contentDisposition } from "../files/content-disposition";
import { hotlinkAllowed, ownHosts } from "./hotlink";
import { etagMatches, parseRange, quoteEtag } from "./range";
import { EDGE_CACHE_SECONDS, edgeCacheKey, edgeCacheMatch, edgeCachePut, type Variant } from "./edge-cache";
import { isPreviewBot } from "./bots";
import { countHit } from "./view-counter";
import { placeholderKind, placeholderResponse } from "./placeholder";
import { cachedAccess } from "./access-records";
import { BYTES_CSP, servedType } from "./headers";
import { parseVariantQuery } from "./variants";
import { FALLBACK_HEADER, tryVariant } from "./variant-serve";

export { BYTES_CSP, servedType } from "./headers";

export type ServeRequest = {
  fileId: string;
  variant: Variant;
  link: "short" | "cdn";
  /** For CDN links: the decoded `uploads/<date>/<file_id>/<filename>`, which must be the file's storeKey. */
  storeKeyPath?: string;
};

type Meta = { type: string; size: number; etag: string };

let hostsCache: { key: string; hosts: Set<string> } | undefined;
function cachedOwnHosts(env: Env) {
  const key = `${env.SITE_URL}|${env.IMAGE_URL}|${env.CDN_URL}|${env.BASE_URL}`;
  if (hostsCache?.key !== key) hostsCache = { key, hosts: ownHosts(env) };
  return hostsCache.hosts;
}

/**
 * Private files are the owner's alone; an <img> carries no credentials, so only a Bearer header can prove it.
 * The API's permission rule holds here too: an API key without `read` reads nothing (403), decided before
 * the file is looked up so the answer never depends on whether a file exists.
 */
async function bearerViewer(c: Context<AppEnv>): Promise<Viewer> {
  if (!c.req.header("authorization")) return ANONYMOUS_VIEWER;
  let principal;
  try {
    principal = await resolvePrincipal(c.env, c.get("db"), c.req.raw, c.executionCtx);
  } catch {
    return ANONYMOUS_VIEWER; // a bad token proves nothing: a private file stays 404
  }
  if (principal.kind === "key" && !principal.permissions.includes("read")) throw missingPermission("read");
  return viewerOf(principal);
}

/** Hotlink rules depend on the Referer: shared caches must not hand one referer's answer to another. */
function cacheScope(file: FileRow): "public" | "private" {
  return file.visibility === "private" || file.hotlinkPolicy !== "allow" ? "private" : "public";
}

function cacheControl(file: FileRow, req: ServeRequest): string {
  if (file.visibility === "private") return "private, no-cache";
  const scope = cacheScope(file);
  if (req.link === "cdn") return `${scope}, max-age=${SERVING.cdnMaxAgeSeconds}, immutable`;
  return `${scope}, max-age=${SERVING.shortLinkMaxAgeSeconds}`;
}

function baseHeaders(file: FileRow, meta: Pick<Meta, "type" | "etag">, cache: string): Headers {
  return new Headers({
    "Content-Type": meta.type,
    ETag: meta.etag,
    "Cache-Control": cache,
    "Accept-Ranges": "bytes",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": BYTES_CSP,
    "Cross-Origin-Resource-Policy": "cross-origin",
    "Content-Disposition": contentDisposition(file.filename, servedType(file.mime), "inline"),
  });
}

/** What the row itself tells about the original object: enough for HEAD and 304 without touching R2. */
function originalMeta(file: FileRow): Meta | undefined {
  const tag = file.storeEtag ?? file.sha256;
  return tag ? { type: servedType(file.mime), size: file.bytes, etag: quoteEtag(tag) } : undefined;
}

function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  return c.json(err.body(), err.status, { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" });
}

const contentMissing = () => new ApiError("content_missing", "File content not found");

export async function serveFile(c: Context<AppEnv>, req: ServeRequest): Promise<Response> {
  try {
    return await serve(c, req);
  } catch (err) {
    if (err instanceof ApiError) return errorResponse(c, err);
    throw err;
  }
}

async function serve(c: Context<AppEnv>, req: ServeRequest): Promise<Response> {
  const now = Date.now();
  // A bad ?w= is a 400 whether or not the file exists (decided before the lookup, so it tells nothing).
  const variantQuery = parseVariantQuery(new URL(c.req.url));
  const viewer = await bearerViewer(c);
  // Anonymous viewers (every <img>) are decided from the edge-cached access record when there is one;
  // a Bearer caller may be the owner who just changed the file: always from D1.
  const fromDb = () => loadFile(c.get("db"), req.fileId);
  const loaded = viewer.userId === null ? await cachedAccess(c.env, c.executionCtx, req.fileId, fromDb) : await fromDb();
  // A CDN path must name this file's object exactly; any other date/filename does not exist.
  const wrongPath = req.link === "cdn" && loaded !== undefined && loaded.file.storeKey !== req.storeKeyPath;
  // Safe mode is a signed-in viewer's preference and byte links carry no identity, so it is applied by
  // the API and the pages, not here (see docs/files-and-serving.md).
  const target = wrongPath ? undefined : loaded;
  assertReadable(target, viewer, now, { safeMode: false });
  const file = target.file;

  if (!hotlinkAllowed(file, c.req.header("referer"), cachedOwnHosts(c.env))) {
    throw new ApiError("hotlink_refused", "This file may not be embedded on that site");
  }

  if (req.variant === "thumb" && !file.thumbKey) return placeholderResponse(placeholderKind(file), c.req.raw, cacheScope(file));
  const objectKey = req.variant === "thumb" && file.thumbKey ? file.thumbKey : file.storeKey;
  const objectVariant: Variant = objectKey === file.storeKey ? "original" : "thumb";
  const cache = cacheControl(file, req);
  const known = objectVariant === "original" ? originalMeta(file) : undefined;
  if (!variantQuery) return serveObject(c, file, req, objectKey, cache, known);

  // A variant: decided above exactly as the original; what cannot be made is answered by the original.
  const onView = () => countView(c, file, req);
  const outcome = await tryVariant(c, { file, query: variantQuery, source: objectVariant, objectKey, sourceTag: known?.etag, cache, onView });
  if ("response" in outcome) return outcome.response;
  const res = await serveObject(c, file, req, objectKey, cache, known);
  if ("fallback" in outcome) res.headers.set(FALLBACK_HEADER, outcome.fallback);
  if (outcome.vary) res.headers.set("Vary", "Accept");
  return res;
}

/** The stored object itself (original or thumbnail): 304, HEAD, ranges, the edge cache, then R2. */
async function serveObject(c: Context<AppEnv>, file: FileRow, req: ServeRequest, objectKey: string, cache: string, known: Meta | undefined): Promise<Response> {
  const objectVariant: Variant = objectKey === file.storeKey ? "original" : "thumb";
  const isHead = c.req.method === "HEAD";

  if (known && etagMatches(c.req.header("if-none-match"), known.etag)) return notModified(file, known, cache);
  if (known && isHead) return headersOnly(file, known, cache);

  // Ranges: honoured on GET unless If-Range names another version.
  const rangeHeader = !isHead && ifRangeHolds(c.req.header("if-range"), known?.etag) ? c.req.header("range") : undefined;
  if (rangeHeader) {
    const size = known?.size ?? (await c.env.BUCKET.head(objectKey))?.size;
    if (size === undefined) throw contentMissing();
    const range = parseRange(rangeHeader, size);
    if (range.kind === "unsatisfiable") {
      return new Response(null, { status: 416, headers: { "Content-Range": `bytes */${size}`, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" } });
    }
    if (range.kind === "partial") {
      const obj = await c.env.BUCKET.get(objectKey, { range: { offset: range.start, length: range.end - range.start + 1 } });
      if (!obj) throw contentMissing();
      const headers = baseHeaders(file, known ?? { type: servedType(obj.httpMetadata?.contentType), etag: obj.httpEtag }, cache);
      headers.set("Content-Range", `bytes ${range.start}-${range.end}/${size}`);
      headers.set("Content-Length", String(range.end - range.start + 1));
      if (range.start === 0) countView(c, file, req);
      return new Response(obj.body, { status: 206, headers });
    }
  }

  const cacheKey = edgeCacheKey(c.env, file.id, objectVariant, objectKey);
  const cached = await edgeCacheMatch(cacheKey);
  if (cached) {
    const meta: Meta = {
      type: known?.type ?? servedType(cached.headers.get("content-type")),
      size: Number(cached.headers.get("content-length") ?? known?.size ?? 0),
      etag: known?.etag ?? cached.headers.get("etag") ?? '"0"',
    };
    if (etagMatches(c.req.header("if-none-match"), meta.etag)) {
      await cached.body?.cancel();
      return notModified(file, meta, cache);
    }
    if (isHead) {
      await cached.body?.cancel();
      return headersOnly(file, meta, cache);
    }
    countView(c, file, req);
    const headers = baseHeaders(file, meta, cache);
    headers.set("Content-Length", String(meta.size));
    return new Response(cached.body, { status: 200, headers });
  }

  if (isHead) {
    const head = await c.env.BUCKET.head(objectKey);
    if (!head) throw contentMissing();
    return headersOnly(file, { type: servedType(head.httpMetadata?.contentType), size: head.size, etag: head.httpEtag }, cache);
  }

  const obj = await c.env.BUCKET.get(objectKey);
  if (!obj) throw contentMissing();
  const meta: Meta = known ?? { type: servedType(obj.httpMetadata?.contentType), size: obj.size, etag: obj.httpEtag };
  if (etagMatches(c.req.header("if-none-match"), meta.etag)) {
    await obj.body.cancel();
    return notModified(file, meta, cache);
  }
  const [forClient, forCache] = obj.body.tee();
  c.executionCtx.waitUntil(
    edgeCachePut(
      cacheKey,
      new Response(forCache, {
        headers: {
          "Content-Type": meta.type,
          "Content-Length": String(obj.size),
          ETag: meta.etag,
          "Cache-Control": `public, max-age=${EDGE_CACHE_SECONDS}`,
        },
      }),
    ),
  );
  countView(c, file, req);
  const headers = baseHeaders(file, meta, cache);
  headers.set("Content-Length", String(obj.size));
  return new Response(forClient, { status: 200, headers });
}

function ifRangeHolds(ifRange: string | undefined, etag: string | undefined): boolean {
  if (!ifRange) return true;
  // Only strong ETag validators are honoured; a date or an unknown tag means "send it all".
  return etag !== undefined && ifRange.trim() === etag;
}

function notModified(file: FileRow, meta: Pick<Meta, "type" | "etag">, cache: string): Response {
  const headers = baseHeaders(file, meta, cache);
  headers.delete("Content-Type");
  return new Response(null, { status: 304, headers });
}

function headersOnly(file: FileRow, meta: Meta, cache: string): Response {
  const headers = baseHeaders(file, meta, cache);
  headers.set("Content-Length", String(meta.size));
  return new Response(null, { status: 200, headers });
}

/** A view is a person's GET of the image itself: not HEAD, not thumbnails, not link-preview bots. */
function countView(c: Context<AppEnv>, file: FileRow, req: ServeRequest) {
  if (req.variant !== "original" || c.req.method !== "GET") return;
  if (isPreviewBot(c.req.header("user-agent"))) return;
  countHit(c.env, c.executionCtx, "file_view", file.id);
}
