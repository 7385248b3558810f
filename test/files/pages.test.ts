// {site_url}/f/<id> and {site_url}/oembed.
import type { FileRow } from "../../src/db/schema";
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { signup, type TestUser } from "../support/api";
import { SITE, fetchRaw, seedFile } from "../support/files";
import { cdnUrl } from "../../src/platform/http/urls";
import { fitWithin } from "../../src/pages/picture";
import { isUnsafeToRender } from "../../src/serving/access";
import { inspectImage } from "../../src/analysis/header";
import { ANALYSIS } from "../../src/config";
import { gifHeader, pngHeader } from "../analysis/images";

let owner: TestUser;
beforeAll(async () => {
  owner = await signup();
});

const meta = (html: string, key: string) =>
  new RegExp(`<meta (?:property|name)="${key.replace(/[:.]/g, "\\$&")}" content="([^"]*)"`).exec(html)?.[1];

describe("GET {site_url}/f/<id>", () => {
  it("shows the image, copyable links and card tags", async () => {
    const f = await seedFile(owner.id, { title: 'Cat <script>alert(1)</script> "quoted"', description: "A cat.", width: 1200, height: 800 });
    const res = await fetchRaw(`${SITE}/f/${f.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = res.text;
    const direct = `${env.IMAGE_URL}/${f.id}`;
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain(`<img src="${direct}?w=1024"`); // a ladder variant; srcset in test/pages/responsive.test.ts
    expect(meta(html, "og:image")).toBe(direct);
    expect(meta(html, "og:image:width")).toBe("1200");
    expect(meta(html, "og:url")).toBe(`${env.SITE_URL}/f/${f.id}`);
    expect(meta(html, "og:description")).toBe("A cat.");
    expect(meta(html, "twitter:card")).toBe("summary_large_image");
    expect(meta(html, "twitter:image")).toBe(direct);
    expect(html).toContain('type="application/json+oembed"');
    // The share formats, HTML-escaped inside value attributes.
    expect(html).toContain(`value="${direct}"`);
    expect(html).toContain(`[img]${direct}[/img]`);
    expect(html).toContain(`![Cat scriptalert(1)/script quoted](${direct})`);
    expect(html).toContain("&lt;img src=&quot;");
    expect(html).toMatch(/<script src="\/assets\/app\.[0-9a-f]{12}\.js" data-thumbhash="\/assets\/thumbhash\.[0-9a-f]{12}\.js" data-webauthn="\/assets\/webauthn\.[0-9a-f]{12}\.js" data-api="\/assets\/api\.[0-9a-f]{12}\.js" defer/); // copy buttons
  });

  it("404 for private, unknown or unfinished files; 410 for gone ones", async () => {
    const priv = await seedFile(owner.id, { visibility: "private" });
    expect((await fetchRaw(`${SITE}/f/${priv.id}`)).status).toBe(404);
    expect((await fetchRaw(`${SITE}/f/file_AAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
    const deleted = await seedFile(owner.id, { deletedAt: new Date() });
    const gone = await fetchRaw(`${SITE}/f/${deleted.id}`);
    expect(gone.status).toBe(410);
    expect(gone.text).toContain("<h1>Gone</h1>");
  });

  it("age-restricted: no image and no card image, a notice instead", async () => {
    const f = await seedFile(owner.id, { ageRestricted: true });
    const res = await fetchRaw(`${SITE}/f/${f.id}`);
    expect(res.status).toBe(200);
    expect(meta(res.text, "og:image")).toBeUndefined();
    expect(res.text).not.toContain(`<img src="${env.IMAGE_URL}/${f.id}`);
    expect(res.text).toContain("age-restricted");
  });

  it("an image the analysis refused as a pixel or frame bomb: a notice and a download link, nothing to decode", async () => {
    const limits = { maxPixels: ANALYSIS.maxPixels, maxFrames: ANALYSIS.maxFrames };
    for (const header of [pngHeader(20_000, 20_000), gifHeader(10, 10, 5000)]) {
      const refusal = inspectImage(header, limits);
      if (refusal.ok) throw new Error("expected a refusal");
      const f = await seedFile(owner.id, { analysis: "failed", analysisFailure: refusal.code, analysisError: refusal.reason, thumbKey: null, content: header });
      expect(isUnsafeToRender(f)).toBe(true);
      const res = await fetchRaw(`${SITE}/f/${f.id}`);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(`<img src="${env.IMAGE_URL}/${f.id}`);
      expect(meta(res.text, "og:image")).toBeUndefined();
      expect(res.text).toContain("could not be checked safely");
      expect(res.text).toContain(`href="${env.BASE_URL}/files/${f.id}/download"`);
      const oembed = await fetchRaw(`${SITE}/oembed?url=${encodeURIComponent(`${env.SITE_URL}/f/${f.id}`)}`);
      expect(oembed.status).toBe(404);
    }
    // Other failures (an AVIF our decoders do not read) are still shown: browsers decode those fine.
    const avif = await seedFile(owner.id, { analysis: "failed", analysisFailure: "unreadable", analysisError: "unsupported: AVIF is not decoded" });
    expect(isUnsafeToRender(avif)).toBe(false);
    // Decided from the code, never from the message's text.
    expect(isUnsafeToRender({ analysis: "failed", analysisFailure: "unreadable", analysisError: "image too large: 9x9" } as FileRow)).toBe(false);
    expect(isUnsafeToRender({ analysis: "failed", analysisFailure: "frame_limit", analysisError: null } as FileRow)).toBe(true);
    // A failure the previous deploy recorded without a code (after the migration ran) is not known to be safe.
    expect(isUnsafeToRender({ analysis: "failed", analysisFailure: null, analysisError: "undecodable image: x" } as FileRow)).toBe(true);
    expect((await fetchRaw(`${SITE}/f/${avif.id}`)).text).toContain(`<img src="${env.IMAGE_URL}/${avif.id}"`);
  });

  it("names the site's one stylesheet by its hashed static-asset address", async () => {
    const f = await seedFile(owner.id, {});
    expect((await fetchRaw(`${SITE}/f/${f.id}`)).text).toMatch(/<link rel="stylesheet" href="\/assets\/site\.[0-9a-f]{12}\.css"/);
  });
});

describe("GET {site_url}/oembed", () => {
  it("answers a photo for a file page, short link or CDN link", async () => {
    const f = await seedFile(owner.id, { title: "Bridge", width: 2000, height: 1000 });
    for (const url of [`${env.SITE_URL}/f/${f.id}`, `${env.IMAGE_URL}/${f.id}`, cdnUrl(env, f.storeKey)]) {
      const res = await fetchRaw(`${SITE}/oembed?url=${encodeURIComponent(url)}`);
      expect(res.status, url).toBe(200);
      expect(res.json).toMatchObject({
        version: "1.0",
        type: "photo",
        title: "Bridge",
        url: `${env.IMAGE_URL}/${f.id}?w=1600&format=png`, // the large-card variant, not the original, in a crawler's format
        width: 1600,
        height: 800,
        provider_name: "imghost",
        provider_url: env.SITE_URL,
      });
    }
    const fitted = await fetchRaw(`${SITE}/oembed?maxwidth=500&url=${encodeURIComponent(`${env.SITE_URL}/f/${f.id}`)}`);
    expect(fitted.json).toMatchObject({ url: `${env.IMAGE_URL}/${f.id}?w=320&format=png`, width: 320, height: 160 }); // within maxwidth
  });

  it("answers a link for a public album", async () => {
    const album = await (await import("../support/api")).call("/albums", { token: owner.access, body: { title: "Trip" } });
    const res = await fetchRaw(`${SITE}/oembed?url=${encodeURIComponent(album.body.url)}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ type: "link", title: "Trip" });
  });

  it("an album's preview is never a private file: the chosen cover if visible, else the first visible file", async () => {
    const { call } = await import("../support/api");
    const priv = await seedFile(owner.id, { visibility: "private" });
    const pub = await seedFile(owner.id);
    const album = await call("/albums", { token: owner.access, body: { title: "Mixed", fileIds: [priv.id, pub.id] } });
    await call(`/albums/${album.body.id}`, { method: "PATCH", token: owner.access, body: { coverImageId: priv.id } });
    const res = await fetchRaw(`${SITE}/oembed?url=${encodeURIComponent(album.body.url)}`);
    // No stored thumbnail: a 320 px preview of the original (test/pages/link-previews.test.ts), with its size.
    expect(res.json).toMatchObject({ thumbnail_url: `${env.IMAGE_URL}/${pub.id}?w=320&format=png`, thumbnail_width: 320, thumbnail_height: 240 });
    expect(res.text).not.toContain(priv.id);
    const page = await fetchRaw(album.body.url);
    expect(page.text).not.toContain(priv.id);
    expect(page.text).toContain(`${env.IMAGE_URL}/${pub.id}`);
  });

  it("404 for private, gone, age-restricted or foreign URLs; 400 / 501 for bad requests", async () => {
    const priv = await seedFile(owner.id, { visibility: "private" });
    const nsfw = await seedFile(owner.id, { ageRestricted: true });
    const gone = await seedFile(owner.id, { deletedAt: new Date() });
    for (const f of [priv, nsfw, gone]) {
      expect((await fetchRaw(`${SITE}/oembed?url=${encodeURIComponent(`${env.SITE_URL}/f/${f.id}`)}`)).status).toBe(404);
    }
    expect((await fetchRaw(`${SITE}/oembed?url=${encodeURIComponent("https://elsewhere.example/x")}`)).status).toBe(404);
    expect((await fetchRaw(`${SITE}/oembed?url=not-a-url`)).status).toBe(400);
    expect((await fetchRaw(`${SITE}/oembed`)).status).toBe(400);
    expect((await fetchRaw(`${SITE}/oembed?format=xml&url=${encodeURIComponent(`${env.SITE_URL}/f/x`)}`)).status).toBe(501);
  });

  it("fitWithin keeps the aspect ratio", () => {
    expect(fitWithin(1000, 500, 100)).toEqual({ width: 100, height: 50 });
    expect(fitWithin(1000, 500, undefined, 100)).toEqual({ width: 200, height: 100 });
    expect(fitWithin(100, 50, 1000, 1000)).toEqual({ width: 100, height: 50 });
  });
});
