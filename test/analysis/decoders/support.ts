/// <reference types="vite/client" />
// Shared by the lean decoder tests: their fixtures (test/fixtures/images/lean/<format>, inlined by Vite and
// loaded per folder on demand), photon's full decode as the reference, and the reducer applied to it.
import fc from "fast-check";
import { expect } from "vitest";
import { BoxReducer, LeanDecodeError, reductionFactor, type LeanDecoder, type ReducedImage } from "../../../src/analysis/decoders/reduce";
import { loadPhoton } from "../../../src/analysis/imaging";
import { base64ToBytes } from "../fixtures";

const loaders = import.meta.glob("../../fixtures/images/lean/*/*.{jpg,png,gif,bmp,webp}", { query: "?inline", import: "default" }) as Record<string, () => Promise<string>>;

export type LeanFixtures = {
  /** File names in the folder, sorted. */
  names: string[];
  /** A fresh copy of a fixture's bytes. */
  bytes(name: string): Uint8Array;
};

/** Every fixture of test/fixtures/images/lean/<folder>. */
export async function leanFixtures(folder: string): Promise<LeanFixtures> {
  const prefix = `../../fixtures/images/lean/${folder}/`;
  const entries = Object.entries(loaders).filter(([path]) => path.startsWith(prefix));
  const urls = new Map(await Promise.all(entries.map(async ([path, load]) => [path.slice(prefix.length), await load()] as const)));
  return {
    names: [...urls.keys()].sort(),
    bytes(name) {
      const url = urls.get(name);
      if (!url) throw new Error(`no fixture ${folder}/${name}`);
      return base64ToBytes(url.slice(url.indexOf(",") + 1));
    },
  };
}

export type FullImage = { width: number; height: number; rgba: Uint8Array };

/** Photon's full decode (the job's path for small images): the reference the lean decoders are held to. */
export async function photonDecode(bytes: Uint8Array): Promise<FullImage> {
  const photon = await loadPhoton();
  const img = photon.PhotonImage.new_from_byteslice(bytes);
  try {
    return { width: img.get_width(), height: img.get_height(), rgba: img.get_raw_pixels() };
  } finally {
    img.free();
  }
}

/** A full image averaged by BoxReducer, as a lean decoder should produce it directly. */
export function boxReduce(full: FullImage, factor: number): ReducedImage {
  const reducer = new BoxReducer(full.width, full.height, factor);
  for (let y = 0; y < full.height; y++) reducer.addRow(y, full.rgba, y * full.width * 4);
  return reducer.finish();
}

export async function photonFails(bytes: Uint8Array): Promise<boolean> {
  try {
    await photonDecode(bytes);
    return false;
  } catch {
    return true;
  }
}

/** Max and mean absolute difference over all channels of two reduced images of the same geometry. */
export function channelDiff(a: ReducedImage, b: ReducedImage): { max: number; mean: number } {
  expect([a.width, a.height, a.outWidth, a.outHeight]).toEqual([b.width, b.height, b.outWidth, b.outHeight]);
  let max = 0;
  let sum = 0;
  for (let i = 0; i < a.rgba.length; i++) {
    const d = Math.abs(a.rgba[i] - b.rgba[i]);
    sum += d;
    if (d > max) max = d;
  }
  return { max, mean: sum / Math.max(1, a.rgba.length) };
}

/**
 * A lossless decoder against photon + BoxReducer at factor 1 and at targets giving factors 2, 3 and 7 (sizes not
 * divisible by them in most fixtures): at most `maxDiff` apart anywhere. Returns photon's full image.
 */
export async function compareWithPhoton(decode: LeanDecoder, name: string, bytes: Uint8Array, maxDiff = 1): Promise<FullImage> {
  const full = await photonDecode(bytes);
  const pixels = full.width * full.height;
  for (const target of [pixels, Math.ceil(pixels / 4), Math.ceil(pixels / 9), Math.ceil(pixels / 49)]) {
    const ours = await decode(bytes, { targetPixels: target });
    const factor = reductionFactor(full.width, full.height, target);
    const { max, mean } = channelDiff(ours, boxReduce(full, factor));
    expect(max, `${name} factor ${factor}: max ${max}, mean ${mean.toFixed(4)}`).toBeLessThanOrEqual(maxDiff);
  }
  return full;
}

/**
 * Damages fixtures (truncations, byte changes biased to the first 80 bytes, where the headers are) and, whenever
 * photon still decodes one, requires the decoder to give photon's pixels exactly. The other way round is allowed:
 * a decoder may read files photon refuses. Returns how many damaged files both decoded.
 */
export async function agreesWithPhotonOnDamage(decode: LeanDecoder, sources: Uint8Array[], numRuns = 150): Promise<number> {
  let agreed = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.nat({ max: sources.length - 1 }),
      fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.double({ min: 0, max: 1, noNaN: true }), weight: 1 }),
      fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat({ max: 255 }), fc.boolean()), { maxLength: 3 }),
      async (i, cut, changes) => {
        let bytes = sources[i].slice();
        for (const [at, v, header] of changes) bytes[Math.floor(at * (Math.min(header ? 80 : bytes.length, bytes.length) - 1))] = v;
        if (cut !== null) bytes = bytes.subarray(0, Math.floor(cut * bytes.length));
        let full: FullImage;
        try {
          full = await photonDecode(bytes);
        } catch {
          return;
        }
        if (full.width === 0 || full.height === 0) return; // photon's empty image; ours is an error
        const ours = await decode(bytes, { targetPixels: full.width * full.height });
        expect(channelDiff(ours, boxReduce(full, 1)).max).toBe(0);
        agreed++;
      },
    ),
    { numRuns },
  );
  return agreed;
}

/**
 * Truncations and byte flips of the fixtures decode to a well-formed ReducedImage or throw LeanDecodeError,
 * never anything else. `headerBytes` biases half the flips into the first bytes, where the headers are.
 */
export async function onlyLeanErrors(decode: LeanDecoder, sources: Uint8Array[], headerBytes = 0): Promise<void> {
  const run = async (bytes: Uint8Array) => {
    try {
      const out = await decode(bytes, { targetPixels: 5000 });
      expect(out.rgba.length).toBe(out.outWidth * out.outHeight * 4);
    } catch (err) {
      if (!(err instanceof LeanDecodeError)) throw err;
    }
  };
  await fc.assert(
    fc.asyncProperty(fc.nat({ max: sources.length - 1 }), fc.double({ min: 0, max: 1, noNaN: true }), async (i, at) => {
      await run(sources[i].subarray(0, Math.floor(at * sources[i].length)));
    }),
    { numRuns: 150 },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.nat({ max: sources.length - 1 }),
      fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat({ max: 255 }), fc.boolean()), { minLength: 1, maxLength: 6 }),
      async (i, flips) => {
        const bytes = sources[i].slice();
        for (const [at, v, header] of flips) bytes[Math.floor(at * ((header && headerBytes ? Math.min(headerBytes, bytes.length) : bytes.length) - 1))] = v;
        await run(bytes);
      },
    ),
    { numRuns: 200 },
  );
}
