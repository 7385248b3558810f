// A byte request, top to bottom: {image_url}/<id>[/thumb] and {cdn_url}/uploads/<date>/<id>/<name>, plain, signed
// or as a variant (?w=). 1. Parse the link. 2. Who asks: anonymous, or a Bearer token. 3. Decide from one record
// (lookups.ts: the entry's, the file's, or D1's primary). 4. The rules: readable (access.ts) or signed, hotlink.
// 5. Answer (answers.ts), count a view after the response. Bounds and round trips: docs/files-and-serving.md.
import type { Context } from "hono";
import type { AppEnv } from "../platform/http/env";
import type { FileRow } from "../db/schema";
import { ApiError } from "../platform/errors/errors";
import { SERVING } from "../config";
import { config } from "../config/env";
import { resolvePrincipal } from "../auth/principal";
import { missingPermission } from "../middleware/guards";
import { requestDbs } from "../middleware/db";
import { ANONYMOUS_VIEWER, assertReadable, viewerOf, type Viewer } from "./access";
import { answerObject, originalMeta } from "./answers";
import { decide, refreshByteEntry, type Decision } from "./lookups";
import { readByteEntry, type ByteEntry, type EntryRecord, type ServedFile, type Variant } from "./records";
import { countHit } from "./view-counter";
import { placeholderKind, placeholderResponse } from "./placeholder";
import { parseVariantQuery, type VariantQuery } from "./variants";
import { FALLBACK_HEADER, tryVariant } from "./variant-serve";
import { assertNotExpired, signedFile, signedQuery, type SignedQuery } from "./signed-links";

/** A byte link as the route names it; a CDN link's path must be the file's storeKey. */
export type ByteLink = { fileId: string; variant: Variant; link: "short" | "cdn"; storeKeyPath?: string };

type Parsed = ByteLink & { variantQuery?: VariantQuery; signed?: SignedQuery; url: string };

export async function serveBytes(c: Context<AppEnv>, link: ByteLink): Promise<Response> {
  const now = Date.now();
  let decision: Decision | undefined;
  try {
    const req = parse(c, link, now);
    const viewer = c.req.header("authorization") ? await bearerViewer(c) : ANONYMOUS_VIEWER;
    decision = await decide(c, req.fileId, viewer.userId !== null, wantsWholeObject(c, req) ? req.variant : undefined, now);
    return await respond(c, req, viewer, decision, now);
  } catch (err) {
    if (err instanceof ApiError) return c.json(err.body(), err.status, { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" });
    throw err;
  } finally {
    const entry = decision?.entry;
    if (entry && !entry.taken) await entry.response.body?.cancel(); // looked up, then not needed
  }
}

/** A bad ?w= is a 400, and a signed link past its exp a 403, whether or not the file exists: they tell nothing. */
function parse(c: Context<AppEnv>, link: ByteLink, now: number): Parsed {
  const url = c.req.url;
  if (!url.includes("?")) return { ...link, url };
  const parsed = new URL(url);
  const signed = link.link === "short" ? signedQuery(parsed) : undefined;
  if (signed) assertNotExpired(signed, now);
  return { ...link, url, variantQuery: parseVariantQuery(parsed), signed };
}

/**
 * Private files are the owner's alone; an <img> carries no credentials, so only a Bearer header proves it. A key
 * without `read` reads nothing (403), decided before the lookup so the answer never tells whether a file exists.
 */
async function bearerViewer(c: Context<AppEnv>): Promise<Viewer> {
  let principal;
  try {
    principal = await resolvePrincipal(c.env, () => requestDbs(c).directory(), c.req.raw, c.executionCtx);
  } catch {
    return ANONYMOUS_VIEWER; // a bad token proves nothing: a private file stays 404
  }
  if (principal.kind === "key" && !principal.permissions.includes("read")) throw missingPermission("read");
  return viewerOf(principal);
}

/** A plain GET is most likely answered with the whole object: its entry is looked up while deciding. */
function wantsWholeObject(c: Context<AppEnv>, req: Parsed): boolean {
  return !req.variantQuery && c.req.method === "GET" && !c.req.header("if-none-match") && !c.req.header("range");
}

async function respond(c: Context<AppEnv>, req: Parsed, viewer: Viewer, decision: Decision, now: number): Promise<Response> {
  const { loaded } = decision;
  const target = req.link === "cdn" && loaded && loaded.file.storeKey !== req.storeKeyPath ? undefined : loaded; // another date or name: none
  // Safe mode is a signed-in viewer's preference; byte links carry no identity, so the API and pages apply it.
  const { signed } = req;
  let file: ServedFile;
  if (signed) file = await signedFile(config(c.env).signedUrlSecret, target, req.variant, new URL(req.url), signed, now);
  else {
    assertReadable(target, viewer, now, { safeMode: false });
    file = target.file;
  }
  if (!hotlinkAllowed(file, c.req.header("referer"), ownHosts(c.env))) {
    throw new ApiError("hotlink_refused", "This file may not be embedded on that site");
  }

  if (req.variant === "thumb" && !file.thumbKey) return placeholderResponse(placeholderKind(file), c.req.raw, signed ? "private" : cacheScope(file));
  const objectKey = req.variant === "thumb" && file.thumbKey ? file.thumbKey : file.storeKey;
  const variant: Variant = objectKey === file.storeKey ? "original" : "thumb";
  const cache = cacheControl(file, req, signed !== undefined);
  const counted = countsAsView(c, req);

  const answer = async () => {
    const entry = decision.read ? decision.entry : () => readByteEntry(c.env, file.id, variant);
    const answered = await answerObject(c, { file, objectKey, variant, cache, record: decision.record, entry });
    if (answered.entry && decision.read && c.req.method === "GET") refreshLater(c, file.id, variant, objectKey, answered.entry, decision, now);
    if (answered.sent && counted) countHit(c.env, c.executionCtx, "file_view", file.id, c.req.header("referer"));
    return answered.response;
  };
  if (!req.variantQuery) return answer();

  // A variant: decided above exactly as the original; what cannot be made is answered by the original.
  const onView = () => counted && countHit(c.env, c.executionCtx, "file_view", file.id, c.req.header("referer"));
  const sourceTag = originalMeta(file, variant)?.etag;
  const outcome = await tryVariant(c, { file, query: req.variantQuery, source: variant, objectKey, sourceTag, cache, onView });
  if ("response" in outcome) return outcome.response;
  const res = await answer();
  if ("fallback" in outcome) res.headers.set(FALLBACK_HEADER, outcome.fallback);
  if (outcome.vary) res.headers.set("Vary", "Accept");
  return res;
}

// Entries this isolate is storing again right now (and since when): one write per entry at a time, not one per
// concurrent view. A claim older than a minute is void: its waitUntil may have been cut off.
const refreshing = new Map<string, number>();
const CLAIM_MS = 60_000;

/**
 * Whether a view served from `entry` should store it again, and with what: the record it was decided from when that
 * is fresher than the one the entry carries; none (refreshByteEntry reads one) when the entry's record has lived two
 * thirds of `seconds`. Claims the entry for this isolate; refreshClaimed releases it.
 */
export function claimRefresh(fileId: string, variant: Variant, entry: ByteEntry, decidedFrom: EntryRecord | undefined, seconds: number, now: number): { record?: EntryRecord } | undefined {
  const carried = entry.record?.at;
  const fresher = decidedFrom !== undefined && (carried === undefined || decidedFrom.at > carried);
  const ageing = carried !== undefined && now - carried >= (seconds * 1000 * 2) / 3;
  if (entry.tooLong || !(fresher || ageing) || seconds === 0) return undefined;
  const key = `${fileId}/${variant}`;
  const claimedAt = refreshing.get(key);
  if (claimedAt !== undefined && now - claimedAt < CLAIM_MS) return undefined;
  refreshing.set(key, now);
  // The record the view was decided from, unless it too has lived two thirds of its time: then a new one.
  return fresher && now - decidedFrom.at < (seconds * 1000 * 2) / 3 ? { record: decidedFrom } : {};
}

/** Stores a claimed entry again (lookups.ts), then releases the claim. */
export async function refreshClaimed(env: Env, fileId: string, variant: Variant, objectKey: string, record?: EntryRecord): Promise<void> {
  const key = `${fileId}/${variant}`;
  const claimedAt = refreshing.get(key);
  try {
    await refreshByteEntry(env, fileId, variant, objectKey, record);
  } finally {
    if (refreshing.get(key) === claimedAt) refreshing.delete(key);
  }
}

/** A fresher record than the entry carries, or its own is getting old: the entry is stored again after the response. */
function refreshLater(c: Context<AppEnv>, fileId: string, variant: Variant, objectKey: string, entry: ByteEntry, d: Decision, now: number) {
  const refresh = claimRefresh(fileId, variant, entry, d.record, d.recordSeconds, now);
  if (refresh) c.executionCtx.waitUntil(refreshClaimed(c.env, fileId, variant, objectKey, refresh.record));
}

/** Hotlink rules depend on the Referer: shared caches must not hand one referer's answer to another. */
function cacheScope(file: ServedFile): "public" | "private" {
  return file.visibility === "private" || file.hotlinkPolicy !== "allow" ? "private" : "public";
}

/** A signed link's answer is its holder's alone (and may be revoked): never a shared cache's. */
function cacheControl(file: ServedFile, req: Parsed, signed: boolean): string {
  if (file.visibility === "private" || signed) return "private, no-cache";
  const scope = cacheScope(file);
  if (req.link === "cdn") return `${scope}, max-age=${SERVING.cdnMaxAgeSeconds}, immutable`;
  return `${scope}, max-age=${SERVING.shortLinkMaxAgeSeconds}`;
}

// Link-preview and crawler user agents fetch an image to unfurl or index it: served, not counted as views.
const PREVIEW_BOTS =
  /discordbot|twitterbot|slackbot|slack-imgproxy|facebookexternalhit|facebot|telegrambot|whatsapp|linkedinbot|skypeuripreview|pinterest(bot)?|redditbot|embedly|iframely|vkshare|mastodon|bluesky|cardyb|applebot|googlebot|google-inspectiontool|bingbot|bingpreview|yandex(bot|images)|baiduspider|duckduckbot|slurp|petalbot|ahrefsbot|semrushbot|mj12bot|bytespider|gptbot|claudebot/i;

export function isPreviewBot(userAgent: string | null | undefined): boolean {
  return !!userAgent && PREVIEW_BOTS.test(userAgent);
}

/** A view is a person's GET of the image itself: not HEAD, not thumbnails, not link-preview bots. */
function countsAsView(c: Context<AppEnv>, req: Parsed): boolean {
  return req.variant === "original" && c.req.method === "GET" && !isPreviewBot(c.req.header("user-agent"));
}

// Hotlink policy (decisions.md § Files and albums), judged by the Referer: `allow` anyone; `whitelist` no Referer,
// our own site, or a host in the file's hotlinkDomains; `block` no Referer or our own site only.
/** Hosts that count as "our own site": the site and the image/CDN hosts themselves (a page on any of them). */
export const ownHosts = (env: Env): ReadonlySet<string> => config(env).ownHosts;

export function hotlinkAllowed(file: Pick<FileRow, "hotlinkPolicy" | "hotlinkDomains">, referer: string | null | undefined, own: ReadonlySet<string>): boolean {
  if (file.hotlinkPolicy === "allow") return true;
  const value = referer?.trim();
  if (!value) return true; // no Referer (typed address, privacy settings, apps): allowed, as with every image host
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false; // an unparseable Referer cannot prove it is ours
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (own.has(url.host.toLowerCase())) return true;
  if (file.hotlinkPolicy === "block") return false;
  return file.hotlinkDomains.some((d) => d.toLowerCase() === url.hostname.toLowerCase());
}
