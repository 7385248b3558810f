// Variants by URL (src/serving/variants.ts, variant-serve.ts): the ladder, format negotiation, fallbacks and
// privacy, made by the real Images binding (miniflare runs it on sharp, in the test pool's Node process).
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { verifiedUser, type TestUser } from "../support/api";
import { IMAGE, fetchRaw, pngLikeBytes, seedFile } from "../support/files";
import { fixture, largeFixture } from "../analysis/fixtures";
import { cdnUrl } from "../../src/platform/http/urls";
import { scrubMetadata } from "../../src/analysis/metadata";
import type { FileRow } from "../../src/db/schema";

let owner: TestUser;
let photo: FileRow; // 4000 x 1800 JPEG
let small: FileRow; // 120 x 160 as displayed (160 x 120, EXIF orientation 6) JPEG with GPS and serials, not yet scrubbed
const BROWSER_ACCEPT = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8";

/** What the engine says about bytes we got back. */
async function info(bytes: Uint8Array) {
  return env.IMAGES.info(new Blob([bytes]).stream()) as Promise<{ format: string; width: number; height: number }>;
}

beforeAll(async () => {
  owner = await verifiedUser();
  photo = await seedFile(owner.id, { content: await largeFixture("adwaita-7mp-progressive.jpg"), mime: "image/jpeg", filename: "wide.jpg", width: 4000, height: 1800 });
  small = await seedFile(owner.id, { content: fixture("gps.jpg"), mime: "image/jpeg", filename: "gps.jpg", width: 120, height: 160, analysis: "pending" });
});

describe("the width ladder", () => {
  it("snaps every width up to a step; above the ladder or the original is the original size", async () => {
    const cases: [string, number][] = [
      ["1", 160], ["160", 160], ["161", 320], ["320", 320], ["500", 640], ["640", 640], ["1000", 1024], ["1024", 1024],
      ["1600", 1600], ["2000", 2048], ["2048", 2048], ["2049", 4000], ["99999", 4000], ["original", 4000],
    ];
    for (const [w, expected] of cases) {
      const res = await fetchRaw(`${IMAGE}/${photo.id}?w=${w}&format=webp`);
      expect(res.status, w).toBe(200);
      const got = await info(res.bytes);
      expect(got.width, `w=${w}`).toBe(expected);
      expect(got.height, `w=${w}`).toBe(Math.round((1800 * expected) / 4000));
      expect(res.headers.get("x-variant"), w).toBe(`w${expected === 4000 ? 0 : expected}.webp`);
      expect(res.headers.get("content-length")).toBe(String(res.bytes.byteLength));
    }
  });

  it("a width above a small original returns the original size", async () => {
    const res = await fetchRaw(`${IMAGE}/${small.id}?w=640`, { headers: { accept: "image/webp" } });
    // The engine turns it upright (EXIF orientation 6), as the row's width and height are.
    expect(await info(res.bytes)).toMatchObject({ format: "image/webp", width: 120, height: 160 });
  });

  it("h snaps too, and fit applies to the box; the same descriptor names the same variant", async () => {
    const res = await fetchRaw(`${IMAGE}/${photo.id}?w=300&h=300&fit=cover&format=jpeg`);
    expect(await info(res.bytes)).toMatchObject({ width: 320, height: 320 });
    expect(res.headers.get("x-variant")).toBe("w320h320-cover.jpeg");
    const q = await fetchRaw(`${IMAGE}/${photo.id}?w=160&q=48&format=jpeg`);
    expect(q.headers.get("x-variant")).toBe("w160.q50.jpeg");
  });

  it("bad parameters are 400, whether or not the file exists; unknown parameters are ignored", async () => {
    for (const query of ["w=abc", "w=0", "w=-5", "h=1.5", "fit=squeeze", "q=0", "q=101", "format=tiff"]) {
      for (const id of [photo.id, "file_doesnotexist000000"]) {
        const res = await fetchRaw(`${IMAGE}/${id}?${query}`);
        expect(res.status, `${id}?${query}`).toBe(400);
        expect(res.json.details.code).toBe("invalid_variant");
      }
    }
    const plain = await fetchRaw(`${IMAGE}/${small.id}?v=3`);
    expect(plain.bytes).toEqual(fixture("gps.jpg")); // not a variant: the stored bytes
    expect(plain.headers.get("vary")).toBeNull();
  });
});

describe("format negotiation", () => {
  it("AVIF, else WebP, else the original type, by Accept, with Vary: Accept", async () => {
    const cases: [string | undefined, string][] = [
      [BROWSER_ACCEPT, "image/avif"],
      ["image/webp,*/*", "image/webp"],
      ["image/avif;q=0, image/webp;q=0.9", "image/webp"],
      ["*/*", "image/jpeg"],
      [undefined, "image/jpeg"],
    ];
    for (const [accept, type] of cases) {
      const res = await fetchRaw(`${IMAGE}/${photo.id}?w=640`, { headers: accept ? { accept } : {} });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type"), accept).toBe(type);
      expect((await info(res.bytes)).format, accept).toBe(type);
      expect(res.headers.get("vary")).toBe("Accept");
      expect(res.headers.get("content-disposition")).toContain(`filename="wide.${type === "image/jpeg" ? "jpg" : type.slice(6)}"`);
      expect(res.headers.get("cache-control")).toBe("public, max-age=300");
      expect(res.headers.get("content-security-policy")).toContain("sandbox");
    }
  });

  it("an explicit ?format= wins over Accept and does not vary", async () => {
    const res = await fetchRaw(`${IMAGE}/${photo.id}?w=320&format=png`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.headers.get("content-type")).toBe("image/png");
    expect((await info(res.bytes)).format).toBe("image/png");
    expect(res.headers.get("vary")).toBeNull();
  });

  it("the original's own size and type with no work to do is the stored object, once analysis has scrubbed it", async () => {
    const scrubbed = await seedFile(owner.id, { content: fixture("cubes.jpg"), mime: "image/jpeg", width: 256, height: 256 });
    const res = await fetchRaw(`${IMAGE}/${scrubbed.id}?w=2048`, { headers: { accept: "image/jpeg" } });
    expect(res.bytes).toEqual(fixture("cubes.jpg"));
    expect(res.headers.get("x-variant")).toBeNull();
    expect(res.headers.get("vary")).toBe("Accept");
    // Before analysis the stored bytes may still hold GPS: the engine re-encodes them instead.
    const pending = await fetchRaw(`${IMAGE}/${small.id}?w=2048`, { headers: { accept: "image/jpeg" } });
    expect(pending.headers.get("x-variant")).toBe("w0.jpeg");
  });

  it("HEAD gives the variant's headers without a body; a Range header gets the whole variant", async () => {
    const head = await fetchRaw(`${IMAGE}/${photo.id}?w=320`, { method: "HEAD", headers: { accept: "image/webp" } });
    expect(head.status).toBe(200);
    expect(head.bytes.byteLength).toBe(0);
    expect(head.headers.get("content-type")).toBe("image/webp");
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(0);
    const ranged = await fetchRaw(`${IMAGE}/${photo.id}?w=320`, { headers: { accept: "image/webp", range: "bytes=0-9" } });
    expect(ranged.status).toBe(200);
    expect(ranged.bytes.byteLength).toBe(Number(head.headers.get("content-length")));
    expect(ranged.headers.get("accept-ranges")).toBeNull();
  });

  it("a variant obeys the original's hotlink rule", async () => {
    const guarded = await seedFile(owner.id, { content: fixture("cubes.jpg"), mime: "image/jpeg", hotlinkPolicy: "block" });
    const res = await fetchRaw(`${IMAGE}/${guarded.id}?w=160`, { headers: { referer: "https://elsewhere.example/page" } });
    expect(res.status).toBe(403);
    expect(res.json.details.code).toBe("hotlink_refused");
  });

  it("a variant has its own ETag and answers 304 to it", async () => {
    const first = await fetchRaw(`${IMAGE}/${photo.id}?w=160`, { headers: { accept: "image/webp" } });
    const etag = first.headers.get("etag")!;
    expect(etag).toBe(`"${photo.storeEtag}.w160.webp"`);
    const again = await fetchRaw(`${IMAGE}/${photo.id}?w=160`, { headers: { accept: "image/webp", "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.bytes.byteLength).toBe(0);
  });
});

describe("on every kind of link", () => {
  it("CDN links and thumbnails take the same parameters", async () => {
    const cdn = await fetchRaw(`${cdnUrl(env, photo.storeKey)}?w=1024`, { headers: { accept: "image/webp" } });
    expect(await info(cdn.bytes)).toMatchObject({ format: "image/webp", width: 1024 });
    expect(cdn.headers.get("cache-control")).toContain("immutable");

    const withThumb = await seedFile(owner.id, { content: fixture("cubes.jpg"), mime: "image/jpeg", thumb: fixture("cubes.jpg") });
    const thumb = await fetchRaw(`${IMAGE}/${withThumb.id}/thumb?w=100`, { headers: { accept: "image/avif" } });
    expect(thumb.status).toBe(200);
    expect(await info(thumb.bytes)).toMatchObject({ format: "image/avif", width: 160 });
    expect(thumb.headers.get("x-variant")).toBe("w160.avif");
  });

  it("a pending thumbnail stays the placeholder", async () => {
    const pending = await seedFile(owner.id, { analysis: "pending" });
    const res = await fetchRaw(`${IMAGE}/${pending.id}/thumb?w=160`);
    expect(res.headers.get("x-thumbnail")).toBe("pending");
  });
});

describe("what cannot be made falls back to the original, never a 500", () => {
  it("an undecodable original: its bytes, with X-Variant-Fallback", async () => {
    const content = pngLikeBytes(4096, 5);
    const broken = await seedFile(owner.id, { content, mime: "image/png" });
    const res = await fetchRaw(`${IMAGE}/${broken.id}?w=320`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(content);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-variant-fallback")).toBe("engine-error");
    expect(res.headers.get("vary")).toBe("Accept");
  });

  it("GIFs are served as they are (animation kept); BMP is not read by the engine", async () => {
    const gif = await seedFile(owner.id, { content: fixture("anim.gif"), mime: "image/gif", filename: "anim.gif" });
    const g = await fetchRaw(`${IMAGE}/${gif.id}?w=160`, { headers: { accept: BROWSER_ACCEPT } });
    expect(g.bytes).toEqual(fixture("anim.gif"));
    expect(g.headers.get("x-variant-fallback")).toBe("gif");
    const bmp = await seedFile(owner.id, { content: fixture("gradient.bmp"), mime: "image/bmp", filename: "g.bmp" });
    const b = await fetchRaw(`${IMAGE}/${bmp.id}?w=160`);
    expect(b.bytes).toEqual(fixture("gradient.bmp"));
    expect(b.headers.get("x-variant-fallback")).toBe("unsupported-type");
  });

  it("without an engine bound, the original", async () => {
    const { default: worker } = await import("../../src/index");
    const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
    const ctx = createExecutionContext();
    const fresh = await seedFile(owner.id, { content: fixture("cubes.jpg"), mime: "image/jpeg" }); // nothing cached
    const req = new Request(`${IMAGE}/${fresh.id}?w=160&format=webp`) as Request<unknown, IncomingRequestCfProperties>;
    const res = await worker.fetch(req, { ...env, IMAGES: undefined as unknown as ImagesBinding }, ctx);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-variant-fallback")).toBe("engine-error");
    await res.arrayBuffer();
    await waitOnExecutionContext(ctx);
  });
});

describe("privacy: no GPS or serial number in any variant", () => {
  it("a JPEG with GPS, not yet scrubbed, gives variants without it in every format", async () => {
    expect(scrubMetadata(fixture("gps.jpg")).findings.length).toBeGreaterThan(0); // the fixture has them
    for (const format of ["jpeg", "webp", "avif", "png"]) {
      for (const w of ["160", "64"]) {
        const res = await fetchRaw(`${IMAGE}/${small.id}?w=${w}&format=${format}`);
        expect(res.headers.get("x-variant"), format).toBeTruthy();
        const report = scrubMetadata(new Uint8Array(res.bytes)); // the scrubber's own rules find nothing
        expect(report.findings, `${format} w=${w}`).toEqual([]);
        const text = new TextDecoder("latin1").decode(res.bytes);
        expect(text, format).not.toMatch(/Exif\0\0|GPS|ns\.adobe\.com\/exif|SerialNumber/);
      }
    }
  });
});
