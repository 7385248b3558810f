// Streams a file's bytes (or its thumbnail) from R2: the hot path behind {image_url} and {cdn_url}.
//
// Per request: the access decision (404/410/403) from the file's row and its owner's state (decide.ts: for
// anonymous viewers from edge-cached records, the file's own travelling with its bytes; D1 only on a miss),
// then the cheapest way to the bytes: a 304 or a HEAD needs no R2 at all when the row knows the ETag and
// size; a whole GET comes from the edge cache when it can; only misses and ranges read R2. Counting a view is
// an RPC sent after the response (serving/view-counter.ts), never a D1 write. An anonymous view that hits
// the cache waits for no D1 query and no Durable Object. A variant (`?w=640`, variants.ts) is decided by the
// very same steps, then served by variant-serve.ts, or by the original with X-Variant-Fallback when it
// cannot be made.
import type { Context } from "hono";
import type { AppEnv } from "../platform/env";
import { ApiError } from "../platform/errors";
import { SERVING } from "../config";
import { assertReadable, type ServedFile, type Viewer } from "./access";
import { hotlinkAllowed, ownHosts } from "./hotlink";
import { etagMatches, parseRange, quoteEtag } from "./range";
import type { Variant } from "./edge-cache";
import { isPreviewBot } from "./bots";
import { countHit } from "./view-counter";
import { placeholderKind, placeholderResponse } from "./placeholder";
import { claimRefresh, fillByteEntry, readByteEntry, refreshByteEntry, type ByteEntry } from "./byte-entries";
import { bearerViewer, decide, type Decision, type EntrySource } from "./decide";
import { byteHeaders, notModified, servedType } from "./headers";
import { parseVariantQuery, type VariantQuery } from "./variants";
import { FALLBACK_HEADER, tryVariant } from "./variant-serve";
import { assertNotExpired, signedFile, signedQuery, type SignedQuery } from "./signed-links";

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

/** Hotlink rules depend on the Referer: shared caches must not hand one referer's answer to another. */
function cacheScope(file: ServedFile): "public" | "private" {
  return file.visibility === "private" || file.hotlinkPolicy !== "allow" ? "private" : "public";
}

/** `signed`: answered to a signed link, which is its holder's alone (and may be revoked): never a shared cache's. */
function cacheControl(file: ServedFile, req: ServeRequest, signed: boolean): string {
  if (file.visibility === "private" || signed) return "private, no-cache";
  const scope = cacheScope(file);
  if (req.link === "cdn") return `${scope}, max-age=${SERVING.cdnMaxAgeSeconds}, immutable`;
  return `${scope}, max-age=${SERVING.shortLinkMaxAgeSeconds}`;
}

function baseHeaders(file: ServedFile, meta: Pick<Meta, "type" | "etag">, cache: string): Headers {
  const headers = byteHeaders({ type: meta.type, etag: meta.etag, cache, filename: file.filename, nameType: servedType(file.mime) });
  headers.set("Accept-Ranges", "bytes");
  return headers;
}

/** What the row itself tells about the original object: enough for HEAD and 304 without touching R2. */
function originalMeta(file: ServedFile): Meta | undefined {
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
  const url = new URL(c.req.url);
  const variantQuery = parseVariantQuery(url);
  // A signed link (short links): past its exp is 403 before the lookup too; its signature is checked after.
  const signed = req.link === "short" ? signedQuery(url) : undefined;
  if (signed) assertNotExpired(signed, now);
  const viewer = await bearerViewer(c);
  const decision = await decide(c, req.fileId, viewer, wantsWholeObject(c, variantQuery) ? req.variant : undefined, now);
  try {
    return await respond(c, req, { viewer, signed }, decision, variantQuery, now);
  } finally {
    const entry = decision.entry;
    if (entry && !entry.taken) await entry.response.body?.cancel(); // looked up, then not needed
  }
}

/**
 * A plain GET: most likely answered with the object's whole bytes, so its entry is looked up while deciding.
 * A HEAD, a conditional GET (mostly 304s), a range (read from R2) or a variant are decided from the small
 * records instead, and read an entry only if they turn out to need one.
 */
function wantsWholeObject(c: Context<AppEnv>, variantQuery: VariantQuery | undefined): boolean {
  return !variantQuery && c.req.method === "GET" && !c.req.header("if-none-match") && !c.req.header("range");
}

type Caller = { viewer: Viewer; signed: SignedQuery | undefined };

async function respond(c: Context<AppEnv>, req: ServeRequest, caller: Caller, decision: Decision, variantQuery: VariantQuery | undefined, now: number): Promise<Response> {
  const { loaded } = decision;
  // A CDN path must name this file's object exactly; any other date/filename does not exist.
  const wrongPath = req.link === "cdn" && loaded !== undefined && loaded.file.storeKey !== req.storeKeyPath;
  // Safe mode is a signed-in viewer's preference and byte links carry no identity, so it is applied by
  // the API and the pages, not here (see docs/files-and-serving.md).
  const target = wrongPath ? undefined : loaded;
  const { signed } = caller;
  // A signed link stands in for the visibility rule only: deleted, hidden and the rest stay refused.
  const file = signed ? await signedFile(c.env.SIGNED_URL_SECRET, target, req.variant, new URL(c.req.url), signed, now) : readable(target, caller.viewer, now);

  if (!hotlinkAllowed(file, c.req.header("referer"), cachedOwnHosts(c.env))) {
    throw new ApiError("hotlink_refused", "This file may not be embedded on that site");
  }

  if (req.variant === "thumb" && !file.thumbKey) return placeholderResponse(placeholderKind(file), c.req.raw, signed ? "private" : cacheScope(file));
  const objectKey = req.variant === "thumb" && file.thumbKey ? file.thumbKey : file.storeKey;
  const objectVariant: Variant = objectKey === file.storeKey ? "original" : "thumb";
  const cache = cacheControl(file, req, signed !== undefined);
  const known = objectVariant === "original" ? originalMeta(file) : undefined;
  if (!variantQuery) return serveObject(c, file, req, { objectKey, cache, known, source: decision });

  // A variant: decided above exactly as the original; what cannot be made is answered by the original.
  const onView = () => countView(c, file, req);
  const outcome = await tryVariant(c, { file, query: variantQuery, source: objectVariant, objectKey, sourceTag: known?.etag, cache, onView });
  if ("response" in outcome) return outcome.response;
  const res = await serveObject(c, file, req, { objectKey, cache, known, source: decision });
  if ("fallback" in outcome) res.headers.set(FALLBACK_HEADER, outcome.fallback);
  if (outcome.vary) res.headers.set("Vary", "Accept");
  return res;
}

function readable(target: Decision["loaded"], viewer: Viewer, now: number): ServedFile {
  assertReadable(target, viewer, now, { safeMode: false });
  return target.file;
}

type ObjectRequest = { objectKey: string; cache: string; known: Meta | undefined; source: EntrySource };

/** The stored object itself (original or thumbnail): 304, HEAD, ranges, the edge cache, then R2. */
async function serveObject(c: Context<AppEnv>, file: ServedFile, req: ServeRequest, object: ObjectRequest): Promise<Response> {
  const { objectKey, cache, known, source } = object;
  const objectVariant: Variant = objectKey === file.storeKey ? "original" : "thumb";
  const isHead = c.req.method === "HEAD";

  if (known && etagMatches(c.req.header("if-none-match"), known.etag)) return notModified(baseHeaders(file, known, cache));
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

  // The entry (byte-entries.ts), unless it holds another object (a regenerated thumbnail): then a miss.
  const entry = source.read ? source.entry : await readByteEntry(c.env, file.id, objectVariant);
  const cached = entry?.objectKey === objectKey ? take(entry) : undefined;
  if (entry && !cached && !source.read) await entry.response.body?.cancel(); // (one looked up while deciding: serve() does it)
  if (cached) {
    const meta: Meta = {
      type: known?.type ?? servedType(cached.headers.get("content-type")),
      size: Number(cached.headers.get("content-length") ?? known?.size ?? 0),
      etag: known?.etag ?? cached.headers.get("etag") ?? '"0"',
    };
    if (etagMatches(c.req.header("if-none-match"), meta.etag)) {
      await cached.body?.cancel();
      return notModified(baseHeaders(file, meta, cache));
    }
    if (isHead) {
      await cached.body?.cancel();
      return headersOnly(file, meta, cache);
    }
    // A fresher record than the entry carries, or its own is getting old: store it again after the response.
    const refresh = source.read ? claimRefresh(file.id, objectVariant, entry!, source.record, source.recordSeconds, Date.now()) : undefined;
    if (refresh) c.executionCtx.waitUntil(refreshByteEntry(c.env, file.id, objectVariant, objectKey, refresh.record));
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
    return notModified(baseHeaders(file, meta, cache));
  }
  const [forClient, forCache] = obj.body.tee();
  const stored = { type: meta.type, size: obj.size, etag: meta.etag };
  c.executionCtx.waitUntil(fillByteEntry(c.env, file.id, objectVariant, { body: forCache, meta: stored, objectKey, record: source.record, decidedBy: file }));
  countView(c, file, req);
  const headers = baseHeaders(file, meta, cache);
  headers.set("Content-Length", String(obj.size));
  return new Response(forClient, { status: 200, headers });
}

/** Marks a looked-up entry as used (serve() cancels the body of one that was not) and hands out its response. */
function take(entry: ByteEntry): Response {
  entry.taken = true;
  return entry.response;
}

function ifRangeHolds(ifRange: string | undefined, etag: string | undefined): boolean {
  if (!ifRange) return true;
  // Only strong ETag validators are honoured; a date or an unknown tag means "send it all".
  return etag !== undefined && ifRange.trim() === etag;
}

function headersOnly(file: ServedFile, meta: Meta, cache: string): Response {
  const headers = baseHeaders(file, meta, cache);
  headers.set("Content-Length", String(meta.size));
  return new Response(null, { status: 200, headers });
}

/** A view is a person's GET of the image itself: not HEAD, not thumbnails, not link-preview bots. */
function countView(c: Context<AppEnv>, file: ServedFile, req: ServeRequest) {
  if (req.variant !== "original" || c.req.method !== "GET") return;
  if (isPreviewBot(c.req.header("user-agent"))) return;
  countHit(c.env, c.executionCtx, "file_view", file.id, c.req.header("referer"));
}
