// Two-sided variants (`?w=640&h=480&fit=cover`) keep the asked aspect ratio (src/serving/variant-box.ts): the
// box's ratio snaps to VARIANTS.boxRatios, its long side up the ladder. Checked on real images made by the
// Images binding (sharp under miniflare), then as properties of the plan over many asked boxes.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { verifiedUser } from "../support/api";
import { IMAGE, fetchRaw, seedFile } from "../support/files";
import { largeFixture } from "../analysis/fixtures";
import { VARIANTS } from "../../src/config";
import { planVariant, type Fit } from "../../src/serving/variants";
import type { FileRow } from "../../src/db/schema";

let landscape: FileRow; // 4000 x 1800 JPEG
let portrait: FileRow; // 900 x 1600 JPEG

async function info(bytes: Uint8Array) {
  return env.IMAGES.info(new Blob([bytes]).stream()) as Promise<{ format: string; width: number; height: number }>;
}

beforeAll(async () => {
  const owner = await verifiedUser();
  const photo = await largeFixture("adwaita-7mp-progressive.jpg");
  landscape = await seedFile(owner.id, { content: photo, mime: "image/jpeg", filename: "wide.jpg", width: 4000, height: 1800 });
  const made = await env.IMAGES.input(new Blob([photo]).stream()).transform({ width: 900, height: 1600, fit: "cover" }).output({ format: "image/jpeg" });
  const tall = new Uint8Array(await made.response().arrayBuffer());
  expect(await info(tall)).toMatchObject({ width: 900, height: 1600 });
  portrait = await seedFile(owner.id, { content: tall, mime: "image/jpeg", filename: "tall.jpg", width: 900, height: 1600 });
});

async function served(file: FileRow, query: string) {
  const res = await fetchRaw(`${IMAGE}/${file.id}?${query}&format=jpeg`);
  expect(res.status, query).toBe(200);
  expect(res.headers.get("x-variant-fallback"), query).toBeNull();
  const got = await info(res.bytes);
  return { width: got.width, height: got.height, descriptor: res.headers.get("x-variant") };
}

describe("cover, crop and pad keep the asked ratio", () => {
  // [asked w, asked h, served w, served h]
  const cases: [number, number, number, number][] = [
    [640, 480, 640, 480], // 4:3, the report's case (was 640 x 640)
    [1280, 720, 1600, 900], // 16:9, the long side snaps up the ladder
    [500, 500, 640, 640], // 1:1
    [480, 640, 480, 640], // 3:4, a portrait box
    [640, 427, 640, 427], // 3:2 as pixels round it
    [300, 169, 320, 180], // nearly 16:9
    [640, 490, 640, 512], // between 5:4 and 4:3: the listed ratio that keeps both sides at least as asked
    [2000, 100, 2048, 256], // extreme: 20:1 snaps to the widest listed ratio, 8:1
    [90, 728, 128, 1024], // extreme portrait, a tall skyscraper banner
  ];
  for (const fit of ["cover", "crop", "pad"] as const) {
    it(`${fit}: the served image is the snapped box`, async () => {
      for (const [w, h, ew, eh] of cases) {
        const got = await served(landscape, `w=${w}&h=${h}&fit=${fit}`);
        expect([got.width, got.height], `${fit} ${w}x${h}`).toEqual([ew, eh]);
        expect(got.descriptor).toBe(`w${ew}h${eh}-${fit}.jpeg`);
      }
    });
  }

  it("a portrait source: the same boxes, whichever way the image runs", async () => {
    for (const fit of ["cover", "crop", "pad"]) {
      expect(await served(portrait, `w=640&h=480&fit=${fit}`), fit).toMatchObject({ width: 640, height: 480 });
      expect(await served(portrait, `w=270&h=480&fit=${fit}`), fit).toMatchObject({ width: 360, height: 640 }); // 9:16
    }
  });

  it("never upscales: a box larger than the source shrinks, keeping its ratio", async () => {
    // Cover and crop: the largest box of the ratio within the source.
    for (const fit of ["cover", "crop"]) {
      expect(await served(landscape, `w=2048&h=2048&fit=${fit}`), fit).toMatchObject({ width: 1800, height: 1800, descriptor: `w1800h1800-${fit}.jpeg` });
      expect(await served(portrait, `w=4000&h=3000&fit=${fit}`), fit).toMatchObject({ width: 900, height: 675 });
    }
    // Pad: at most the smallest box of the ratio around the source (the image at its own size).
    expect(await served(portrait, `w=4000&h=3000&fit=pad`)).toMatchObject({ width: 2133, height: 1600 });
    expect(await served(landscape, `w=2048&h=2048&fit=pad`)).toMatchObject({ width: 2048, height: 2048 });
  });

  it("contain and scale-down fit the image inside the snapped box (the asked height bounds a tall image)", async () => {
    for (const fit of ["contain", "scale-down"]) {
      expect(await served(portrait, `w=640&h=480&fit=${fit}`), fit).toMatchObject({ width: 270, height: 480 }); // was 360 x 640
      expect(await served(landscape, `w=640&h=480&fit=${fit}`), fit).toMatchObject({ width: 640, height: 288 });
    }
    // The image at its own size fits the box: the source's size.
    expect(await served(portrait, `w=3000&h=3000&fit=contain`)).toMatchObject({ width: 900, height: 1600, descriptor: null }); // the stored bytes
  });
});

describe("the plan's boxes (properties)", () => {
  const FITS: Fit[] = ["scale-down", "contain", "cover", "crop", "pad"];
  const plan = (w: number, h: number, fit: Fit, source: { width: number | null; height: number | null }) =>
    planVariant({ width: w, height: h, fit, quality: VARIANTS.defaultQuality, format: "image/webp" }, { type: "image/jpeg", ...source }, null);

  it("within the ladder and the source: a listed ratio, the long side on the ladder, both sides at least as asked", () => {
    const ratios = VARIANTS.boxRatios.map(([long, short]) => long / short);
    const side = fc.integer({ min: 1, max: 2048 });
    fc.assert(
      fc.property(side, side, fc.constantFrom<Fit>("cover", "crop", "pad"), (w, h, fit) => {
        const p = plan(w, h, fit, { width: 50_000, height: 50_000 });
        const [long, short] = [Math.max(p.width!, p.height!), Math.min(p.width!, p.height!)];
        expect(VARIANTS.ladder as readonly number[]).toContain(long);
        // The short side is the ratio's, rounded to a pixel.
        expect(ratios.some((r) => Math.abs(long / r - short) <= 0.5)).toBe(true);
        expect(p.width! >= w && p.height! >= h).toBe(true);
        if (p.width !== p.height) expect(p.width! > p.height!).toBe(w > h); // the box runs the asked way
      }),
      { numRuns: 2000 },
    );
  });

  it("a file has a bounded set of boxes per fit, whatever is asked", () => {
    const boxes = new Map<Fit, Set<string>>(FITS.map((f) => [f, new Set()]));
    const side = fc.integer({ min: 1, max: 99_999 });
    fc.assert(
      fc.property(side, side, fc.constantFrom(...FITS), (w, h, fit) => {
        const p = plan(w, h, fit, { width: 4000, height: 1800 });
        boxes.get(fit)!.add(`${p.width}x${p.height}`);
        // Nothing larger than the source where the image fills the box.
        if (fit === "cover" || fit === "crop") expect(p.width! <= 4000 && p.height! <= 1800).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    const bound = VARIANTS.boxRatios.length * 2 * (VARIANTS.ladder.length + 1);
    for (const [fit, set] of boxes) expect(set.size, fit).toBeLessThanOrEqual(bound);
  });

  it("an unknown source size caps the box at the top of the ladder", () => {
    const p = plan(5000, 2500, "cover", { width: null, height: null });
    expect([p.width, p.height]).toEqual([2048, 1024]);
  });
});
