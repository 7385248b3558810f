// Placeholders (src/analysis/placeholder.ts): the ThumbHash and dominant colour the analysis stores, and the
// API fields that carry them (File, the list item, finalize once analysis is done, the OpenAPI document).
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { thumbHashToAverageRGBA, thumbHashToRGBA } from "thumbhash";
import { analyzeFile } from "../../src/analysis/job";
import { dominantColor, placeholderFromRgba } from "../../src/analysis/placeholder";
import { call, verifiedUser } from "../support/api";
import { IMAGE, fileRow, seedFile } from "../support/files";
import { directUpload, finalize, makePng } from "../uploads/helpers";
import { fixture } from "./fixtures";

const fromBase64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/** w x h RGBA, filled by `pixel(x, y)`. */
function image(w: number, h: number, pixel: (x: number, y: number) => [number, number, number, number]): Uint8Array {
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out.set(pixel(x, y), (y * w + x) * 4);
  return out;
}

describe("dominant colour", () => {
  it("is the most common colour, not the mean", () => {
    // 60 % green, 40 % red: the mean would be brown.
    const rgba = image(10, 10, (x) => (x < 6 ? [40, 160, 60, 255] : [220, 20, 30, 255]));
    expect(dominantColor(rgba)).toBe("#28a03c");
  });

  it("ignores transparent pixels; an image with none opaque has none", () => {
    const mostlyClear = image(10, 10, (x, y) => (x === 0 && y === 0 ? [0, 0, 255, 255] : [255, 0, 0, 0]));
    expect(dominantColor(mostlyClear)).toBe("#0000ff");
    expect(dominantColor(image(4, 4, () => [255, 255, 255, 0]))).toBeNull();
  });
});

describe("thumbhash", () => {
  it("encodes with the reference library, from images larger than its 100 px limit too", async () => {
    const rgba = image(300, 150, (x) => [x < 150 ? 200 : 20, 100, 50, 255]);
    const { thumbhash } = await placeholderFromRgba(rgba, 300, 150);
    const bytes = fromBase64(thumbhash);
    expect(bytes.byteLength).toBeLessThan(40);
    const decoded = thumbHashToRGBA(bytes);
    expect(decoded.w / decoded.h).toBeCloseTo(2, 0); // keeps the aspect ratio
    const avg = thumbHashToAverageRGBA(bytes);
    expect(avg.r * 255).toBeCloseTo(110, -1);
    expect(avg.g * 255).toBeCloseTo(100, -1);
  });
});

describe("the analysis stores them and the API returns them", () => {
  it("analyzeFile writes placeholder and dominantColor; GET /files/:id, the list and OpenAPI show them", async () => {
    const owner = await verifiedUser();
    const f = await seedFile(owner.id, { content: fixture("wood.jpg"), mime: "image/jpeg", analysis: "pending", width: null, height: null });
    const before = await call(`/files/${f.id}`, { token: owner.access });
    expect(before.body).toMatchObject({ placeholder: null, dominantColor: null });

    const outcome = await analyzeFile(env, f.id, { skipNsfw: true });
    expect(outcome.status).toBe("done");
    const row = (await fileRow(f.id))!;
    expect(row.placeholder).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(row.dominantColor).toMatch(/^#[0-9a-f]{6}$/);
    expect(thumbHashToRGBA(fromBase64(row.placeholder!)).w).toBeGreaterThan(0);

    const got = await call(`/files/${f.id}`, { token: owner.access });
    expect(got.body.placeholder).toBe(row.placeholder);
    expect(got.body.dominantColor).toBe(row.dominantColor);
    // wood.jpg is 400 px wide: the ladder below it, then the original.
    expect(got.body.variants).toEqual([
      { width: 160, url: `${IMAGE}/${f.id}?w=160` },
      { width: 320, url: `${IMAGE}/${f.id}?w=320` },
      { width: 400, url: `${IMAGE}/${f.id}` },
    ]);

    const list = await call("/files?excludeNsfw=false", { token: owner.access });
    const item = list.body.files.find((x: { id: string }) => x.id === f.id);
    expect(item).toMatchObject({ placeholder: row.placeholder, dominantColor: row.dominantColor });

    const spec = (await call("/openapi.json")).body;
    for (const schema of ["File", "FileListItem", "FinalizeResponse"]) {
      expect(Object.keys(spec.components.schemas[schema].properties), schema).toEqual(expect.arrayContaining(["placeholder", "dominantColor"]));
    }
    expect(spec.components.schemas.File.properties.variants).toBeDefined();
  });

  it("finalize answers them once the analysis is done", async () => {
    const owner = await verifiedUser();
    const { pre, put, fin } = await directUpload(owner.access, makePng(64, 48, 3));
    expect(fin.body).toMatchObject({ analysis: "pending", placeholder: null, dominantColor: null });
    expect((await analyzeFile(env, pre.body.fileId, { skipNsfw: true })).status).not.toBe("failed");
    const again = await finalize(pre.body, put.headers.get("etag")!, owner.access);
    expect(again.status).toBe(200);
    expect(again.body.analysis).toBe("done");
    expect(again.body.placeholder).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(again.body.dominantColor).toMatch(/^#[0-9a-f]{6}$/);
  });
});
