// Link previews (og:image, twitter:image, oEmbed url and thumbnail_url) name a format every crawler reads:
// crawlers send `Accept: */*` or nothing, and an AVIF original must not reach Facebook, X, Slack or iMessage as
// AVIF. The stated sizes are those of the variant actually linked (checked against the engine's own answer),
// the pinned variants are cached and purged with the file, and nothing of a private or gone file leaks.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import type { FileRow } from "../../src/db/schema";
import { fileCacheKeys, variantCacheKey } from "../../src/serving/edge-cache";
import { accessChanged } from "../../src/serving/access-changed";
import { previewImage } from "../../src/pages/picture";
import { signup, type TestUser } from "../support/api";
import { SITE, fetchRaw, seedFile } from "../support/files";
import { fixture, largeFixture } from "../analysis/fixtures";

const CRAWLER = { accept: "*/*", "user-agent": "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)" };
const cache = () => (caches as unknown as { default: Cache }).default;

/** A meta tag's content, attribute-unescaped (`&` is written `&amp;`). */
const meta = (html: string, key: string) =>
  new RegExp(`<meta (?:property|name)="${key.replace(/[:.]/g, "\\$&")}" content="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, "&");
const oembedOf = async (f: FileRow, query = "") =>
  (await fetchRaw(`${SITE}/oembed?${query}url=${encodeURIComponent(`${env.SITE_URL}/f/${f.id}`)}`)).json;

/** What the engine says about bytes we got back. */
async function info(bytes: Uint8Array) {
  return env.IMAGES.info(new Blob([bytes]).stream()) as Promise<{ format: string; width: number; height: number }>;
}

/** The 4000 x 1800 JPEG fixture re-encoded by the engine at `width` (AVIF and wide PNG have no fixture). */
async function encode(width: number, format: "image/avif" | "image/png"): Promise<Uint8Array> {
  const source = await largeFixture("adwaita-7mp-progressive.jpg");
  const out = await env.IMAGES.input(new Blob([source]).stream()).transform({ width }).output({ format });
  return new Uint8Array(await out.response().arrayBuffer());
}

/** A crawler's fetch, with the execution context awaited so the edge-cache put has landed. */
async function crawl(url: string) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, { headers: CRAWLER }) as Request<unknown, IncomingRequestCfProperties>, { ...env }, ctx);
  const bytes = new Uint8Array(await res.arrayBuffer());
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, bytes };
}

let owner: TestUser;
let avif: FileRow; // 2000 x 900, no thumbnail (our analysis decodes no AVIF)
beforeAll(async () => {
  owner = await signup();
  avif = await seedFile(owner.id, { title: "Avif", content: await encode(2000, "image/avif"), mime: "image/avif", filename: "a.avif", width: 2000, height: 900 });
});

describe("an AVIF original", () => {
  it("og:image, twitter:image and oEmbed url name the 1600 px JPEG, which a crawler gets as JPEG at the stated size", async () => {
    const url = `${env.IMAGE_URL}/${avif.id}?w=1600&format=jpeg`;
    const html = (await fetchRaw(`${SITE}/f/${avif.id}`)).text;
    expect(meta(html, "og:image")).toBe(url);
    expect(meta(html, "twitter:image")).toBe(url);
    expect(meta(html, "og:image:type")).toBe("image/jpeg");
    expect([meta(html, "og:image:width"), meta(html, "og:image:height")]).toEqual(["1600", "720"]);
    expect(await oembedOf(avif)).toMatchObject({ type: "photo", url, width: 1600, height: 720 });

    const res = await crawl(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(res.headers.get("vary")).toBeNull(); // pinned: the same bytes whatever Accept says
    expect(await info(res.bytes)).toMatchObject({ format: "image/jpeg", width: 1600, height: 720 });
  });

  it("the oEmbed thumbnail is a 320 px JPEG of the original (no stored thumbnail), its size stated and true", async () => {
    const o = await oembedOf(avif);
    expect(o).toMatchObject({ thumbnail_url: `${env.IMAGE_URL}/${avif.id}?w=320&format=jpeg`, thumbnail_width: 320, thumbnail_height: 144 });
    const res = await crawl(o.thumbnail_url);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(await info(res.bytes)).toMatchObject({ width: o.thumbnail_width, height: o.thumbnail_height });
  });

  it("maxwidth snaps DOWN to a step, so width and height stay within it and are the variant's own", async () => {
    const o = await oembedOf(avif, "maxwidth=500&");
    expect(o).toMatchObject({ url: `${env.IMAGE_URL}/${avif.id}?w=320&format=jpeg`, width: 320, height: 144 });
    const boxed = await oembedOf(avif, "maxwidth=1200&maxheight=300&");
    expect(boxed).toMatchObject({ url: `${env.IMAGE_URL}/${avif.id}?w=640&format=jpeg`, width: 640, height: 288 });
    expect(await info((await crawl(boxed.url)).bytes)).toMatchObject({ format: "image/jpeg", width: 640, height: 288 });
  });

  it("one no wider than the preview is converted at its own size", async () => {
    const small = await seedFile(owner.id, { content: await encode(1000, "image/avif"), mime: "image/avif", filename: "s.avif", width: 1000, height: 450 });
    const url = `${env.IMAGE_URL}/${small.id}?format=jpeg`;
    expect(meta((await fetchRaw(`${SITE}/f/${small.id}`)).text, "og:image")).toBe(url);
    expect(await oembedOf(small)).toMatchObject({ url, width: 1000, height: 450 });
    const res = await crawl(url);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(await info(res.bytes)).toMatchObject({ width: 1000, height: 450 });
  });

  it("the pinned JPEG variants are kept in the edge cache under keys the file's purge names", async () => {
    const f = await seedFile(owner.id, { content: await encode(2000, "image/avif"), mime: "image/avif", filename: "c.avif", width: 2000, height: 900, thumbKey: `thumbs/x.jpg` });
    const keys = fileCacheKeys(env, f);
    expect(keys.length).toBeLessThanOrEqual(30); // one purge-by-URL call
    const named = ["w1600.jpeg", "w320.jpeg", "w0.jpeg"].map((d) => variantCacheKey(env, f.id, "original", f.storeKey, d));
    for (const key of named) expect(keys).toContain(key);
    await crawl(`${env.IMAGE_URL}/${f.id}?w=1600&format=jpeg`);
    expect(await cache().match(named[0])).toBeDefined();
    await accessChanged(env, { files: [f] });
    expect(await cache().match(named[0])).toBeUndefined();
  });

  it("private or deleted: no page, no card, no oEmbed, and nothing names the file", async () => {
    const content = await encode(2000, "image/avif");
    const base = { content, mime: "image/avif", filename: "p.avif", width: 2000, height: 900 };
    const priv = await seedFile(owner.id, { ...base, visibility: "private" });
    const gone = await seedFile(owner.id, { ...base, deletedAt: new Date() });
    for (const [f, status] of [[priv, 404], [gone, 410]] as const) {
      const page = await fetchRaw(`${SITE}/f/${f.id}`);
      expect(page.status).toBe(status);
      expect(meta(page.text, "og:image")).toBeUndefined();
      expect(page.text).not.toContain(`${env.IMAGE_URL}/${f.id}`);
      const o = await fetchRaw(`${SITE}/oembed?url=${encodeURIComponent(`${env.SITE_URL}/f/${f.id}`)}`);
      expect(o.status).toBe(404);
      expect(o.text).not.toContain(`${env.IMAGE_URL}/${f.id}`);
      expect((await crawl(`${env.IMAGE_URL}/${f.id}?w=1600&format=jpeg`)).status).toBe(status);
    }
  });
});

describe("other originals keep a type crawlers read", () => {
  it("JPEG: the 1600 px JPEG; the stored thumbnail with its size", async () => {
    const f = await seedFile(owner.id, { content: await largeFixture("adwaita-7mp-progressive.jpg"), mime: "image/jpeg", filename: "w.jpg", width: 4000, height: 1800, thumb: fixture("cubes.jpg") });
    const url = `${env.IMAGE_URL}/${f.id}?w=1600&format=jpeg`;
    const html = (await fetchRaw(`${SITE}/f/${f.id}`)).text;
    expect([meta(html, "og:image"), meta(html, "og:image:type")]).toEqual([url, "image/jpeg"]);
    expect(await oembedOf(f)).toMatchObject({ url, width: 1600, height: 720, thumbnail_url: `${env.IMAGE_URL}/${f.id}/thumb`, thumbnail_width: 320, thumbnail_height: 144 });
    const res = await crawl(url);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(await info(res.bytes)).toMatchObject({ width: 1600, height: 720 });
  });

  it("PNG stays PNG (transparency)", async () => {
    const f = await seedFile(owner.id, { content: await encode(2000, "image/png"), mime: "image/png", filename: "w.png", width: 2000, height: 900 });
    const url = `${env.IMAGE_URL}/${f.id}?w=1600&format=png`;
    const html = (await fetchRaw(`${SITE}/f/${f.id}`)).text;
    expect([meta(html, "og:image"), meta(html, "og:image:type")]).toEqual([url, "image/png"]);
    expect((await oembedOf(f)).url).toBe(url);
    const res = await crawl(url);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(await info(res.bytes)).toMatchObject({ format: "image/png", width: 1600, height: 720 });
  });

  it("GIF is linked as stored (its animation kept), at its own size", async () => {
    const bytes = fixture("anim.gif");
    const size = await info(bytes);
    const f = await seedFile(owner.id, { content: bytes, mime: "image/gif", filename: "a.gif", width: size.width, height: size.height });
    const url = `${env.IMAGE_URL}/${f.id}`;
    const html = (await fetchRaw(`${SITE}/f/${f.id}`)).text;
    expect([meta(html, "og:image"), meta(html, "og:image:type")]).toEqual([url, "image/gif"]);
    expect(await oembedOf(f)).toMatchObject({ url, width: size.width, height: size.height });
    const res = await crawl(url);
    expect(res.headers.get("content-type")).toBe("image/gif");
    expect(res.bytes).toEqual(bytes);
  });

  it("WebP keeps WebP; BMP (the engine does not read it) is the plain link; unknown sizes still pin the format", () => {
    const f = (mime: string, width: number | null, height: number | null) => ({ id: "file_x", mime, width, height });
    const base = `${env.IMAGE_URL}/file_x`;
    expect(previewImage(env, f("image/webp", 4000, 3000))).toEqual({ url: `${base}?w=1600&format=webp`, width: 1600, height: 1200, type: "image/webp" });
    expect(previewImage(env, f("image/webp", 800, 600))).toEqual({ url: base, width: 800, height: 600, type: "image/webp" });
    expect(previewImage(env, f("image/bmp", 4000, 3000))).toEqual({ url: base, width: 4000, height: 3000, type: "image/bmp" });
    expect(previewImage(env, f("image/avif", null, null))).toEqual({ url: `${base}?w=1600&format=jpeg`, width: null, height: null, type: "image/jpeg" });
    expect(previewImage(env, f("image/jpeg", null, null))).toEqual({ url: base, width: null, height: null, type: "image/jpeg" });
    // Below the ladder's first step: the first step, and the box's size stated (maxwidth is kept).
    expect(previewImage(env, f("image/jpeg", 4000, 3000), { maxWidth: 100 })).toEqual({ url: `${base}?w=160&format=jpeg`, width: 100, height: 75, type: "image/jpeg" });
  });
});
