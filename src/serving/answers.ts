// A byte response, each kind written once: 304, HEAD, a range, the whole object (from the edge cache, then R2).
// Also what every byte response says about its type and safety, shared with the files API's download and
// moderation's content view. Who may see the bytes is decided before (byte-path.ts).
import type { Context } from "hono";
import type { AppEnv } from "../platform/http/env";
import { ApiError } from "../platform/errors/errors";
import { contentDisposition } from "./content-disposition";
import { fillByteEntry, type ByteEntry, type EntryRecord, type ServedFile, type Variant } from "./records";

/** Bytes never render as anything but an inert image: no scripts, no plugins, no same-origin powers. */
export const BYTES_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";

const SERVABLE_TYPE = /^image\/(jpeg|png|gif|webp|avif|bmp)$/;

/** Only the image types we accept are served as themselves; anything else is an opaque download. */
export function servedType(mime: string | undefined | null): string {
  const m = (mime ?? "").toLowerCase().split(";")[0].trim();
  return SERVABLE_TYPE.test(m) ? m : "application/octet-stream";
}

// Content-Disposition per name and type, per isolate: it is the same on every view of a file.
const dispositions = new Map<string, string>();

function inlineDisposition(filename: string, nameType: string): string {
  const key = `${nameType}\u0000${filename}`;
  let value = dispositions.get(key);
  if (value === undefined) {
    if (dispositions.size >= 1024) dispositions.clear();
    dispositions.set(key, (value = contentDisposition(filename, nameType, "inline")));
  }
  return value;
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
    "Content-Disposition": inlineDisposition(r.filename, r.nameType),
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

export type RangeDecision = { kind: "full" } | { kind: "partial"; start: number; end: number } | { kind: "unsatisfiable" };

/**
 * Range requests (RFC 9110 § 14): one `bytes=` range is served as 206 (inclusive end); a valid range that starts past
 * the end is 416; anything else (several ranges, other units, garbage) is ignored and the whole object sent.
 */
export function parseRange(header: string | null | undefined, size: number): RangeDecision {
  if (!header) return { kind: "full" };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return { kind: "full" };
  const [, first, last] = m;
  if (first === "" && last === "") return { kind: "full" };
  if (first === "") {
    const n = Number(last); // a suffix range: the last n bytes
    if (!Number.isSafeInteger(n)) return { kind: "full" };
    if (n === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start)) return { kind: "full" };
  let end = last === "" ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(end)) end = Number.MAX_SAFE_INTEGER;
  if (end < start) return { kind: "full" }; // an invalid byte-range-spec: the header is ignored
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", start, end: Math.min(end, size - 1) };
}

/** If-None-Match against our strong ETag (weak comparison, as RFC 9110 § 13.1.2 asks for GET/HEAD). */
export function etagMatches(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === bare);
}

/** `"abc"` from `abc`, `"abc"` or `W/"abc"`: the form our ETag header takes. */
export function quoteEtag(value: string): string {
  return `"${value.replace(/^W\//, "").replace(/^"|"$/g, "")}"`;
}

export type Meta = { type: string; size: number; etag: string };

/** What the request wants of one stored object (original or thumbnail), and what is known of it already. */
export type ObjectAnswer = {
  file: ServedFile;
  objectKey: string;
  variant: Variant;
  cache: string;
  /** The entry looked up while deciding (then no second lookup), or a function that looks it up. */
  entry: ByteEntry | undefined | (() => Promise<ByteEntry | undefined>);
  /** The record that decided, stored with the bytes when R2 serves them (a fresher entry for the next view). */
  record: EntryRecord | undefined;
};

/** `sent`: the object's bytes went out from their start (a view, if the caller counts it); `entry`: from this entry. */
export type Answer = { response: Response; sent: boolean; entry?: ByteEntry };

const contentMissing = () => new ApiError("content_missing", "File content not found");

/** What the row itself tells about the original object: enough for a 304 or a HEAD without R2. */
export function originalMeta(file: ServedFile, variant: Variant): Meta | undefined {
  const tag = variant === "original" ? (file.storeEtag ?? file.sha256) : null;
  return tag ? { type: servedType(file.mime), size: file.bytes, etag: quoteEtag(tag) } : undefined;
}

export async function answerObject(c: Context<AppEnv>, a: ObjectAnswer): Promise<Answer> {
  const method = c.req.method;
  const ifNoneMatch = c.req.header("if-none-match");
  const headers = (meta: Pick<Meta, "type" | "etag">) => withRanges(byteHeaders({ type: meta.type, etag: meta.etag, cache: a.cache, filename: a.file.filename, nameType: servedType(a.file.mime) }));
  const unchanged = (meta: Meta) => ({ response: notModified(headers(meta)), sent: false });
  const whole = (meta: Meta, body: ReadableStream | null) => {
    const h = headers(meta);
    h.set("Content-Length", String(meta.size));
    return { response: new Response(method === "HEAD" ? null : body, { status: 200, headers: h }), sent: method === "GET" };
  };

  const known = originalMeta(a.file, a.variant);
  if (known && etagMatches(ifNoneMatch, known.etag)) return unchanged(known);
  if (known && method === "HEAD") return whole(known, null);

  // Ranges: honoured on GET unless If-Range names another version; read from R2, never the edge cache.
  const range = method === "GET" && ifRangeHolds(c.req.header("if-range"), known?.etag) ? c.req.header("range") : undefined;
  if (range) {
    const partial = await answerRange(c, a, range, headers);
    if (partial) return partial;
  }

  const entry = typeof a.entry === "function" ? await a.entry() : a.entry;
  if (entry && entry.objectKey === a.objectKey) {
    entry.taken = true;
    const cached = entry.response;
    const meta: Meta = {
      type: known?.type ?? servedType(cached.headers.get("content-type")),
      size: Number(cached.headers.get("content-length") ?? known?.size ?? 0),
      etag: known?.etag ?? cached.headers.get("etag") ?? '"0"',
    };
    if (method === "HEAD" || etagMatches(ifNoneMatch, meta.etag)) await cached.body?.cancel();
    if (etagMatches(ifNoneMatch, meta.etag)) return unchanged(meta);
    return { ...whole(meta, cached.body), entry };
  }
  if (entry && typeof a.entry === "function") await entry.response.body?.cancel(); // another object's (a regenerated thumbnail)

  if (method === "HEAD") {
    const head = await c.env.BUCKET.head(a.objectKey);
    if (!head) throw contentMissing();
    return whole({ type: servedType(head.httpMetadata?.contentType), size: head.size, etag: head.httpEtag }, null);
  }
  const obj = await c.env.BUCKET.get(a.objectKey);
  if (!obj) throw contentMissing();
  const meta: Meta = known ?? { type: servedType(obj.httpMetadata?.contentType), size: obj.size, etag: obj.httpEtag };
  if (etagMatches(ifNoneMatch, meta.etag)) {
    await obj.body.cancel();
    return unchanged(meta);
  }
  const [forClient, forCache] = obj.body.tee();
  const write = { body: forCache, meta: { type: meta.type, size: obj.size, etag: meta.etag }, objectKey: a.objectKey, record: a.record, decidedBy: a.file };
  c.executionCtx.waitUntil(fillByteEntry(c.env, a.file.id, a.variant, write));
  return whole({ ...meta, size: obj.size }, forClient);
}

/** A 206 or a 416, or undefined when the Range header asks for the whole object (then served as such). */
async function answerRange(c: Context<AppEnv>, a: ObjectAnswer, header: string, headers: (meta: Pick<Meta, "type" | "etag">) => Headers) {
  const known = originalMeta(a.file, a.variant);
  const size = known?.size ?? (await c.env.BUCKET.head(a.objectKey))?.size;
  if (size === undefined) throw contentMissing();
  const range = parseRange(header, size);
  if (range.kind === "unsatisfiable") {
    const h = { "Content-Range": `bytes */${size}`, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };
    return { response: new Response(null, { status: 416, headers: h }), sent: false };
  }
  if (range.kind !== "partial") return undefined;
  const obj = await c.env.BUCKET.get(a.objectKey, { range: { offset: range.start, length: range.end - range.start + 1 } });
  if (!obj) throw contentMissing();
  const h = headers(known ?? { type: servedType(obj.httpMetadata?.contentType), etag: obj.httpEtag });
  h.set("Content-Range", `bytes ${range.start}-${range.end}/${size}`);
  h.set("Content-Length", String(range.end - range.start + 1));
  return { response: new Response(obj.body, { status: 206, headers: h }), sent: range.start === 0 };
}

function withRanges(headers: Headers): Headers {
  headers.set("Accept-Ranges", "bytes");
  return headers;
}

function ifRangeHolds(ifRange: string | undefined, etag: string | undefined): boolean {
  if (!ifRange) return true;
  // Only strong ETag validators are honoured; a date or an unknown tag means "send it all".
  return etag !== undefined && ifRange.trim() === etag;
}
