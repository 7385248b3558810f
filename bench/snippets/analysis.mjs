// Cases for bench/analysis.bench.mjs, run inside workerd by inWorkerd(): the image-analysis steps of
// src/analysis on images the bench sends once (`load`) and keeps in the isolate.
import { decodeImage, loadPhoton } from "../../src/analysis/imaging.ts";
import { phashFromLuma } from "../../src/analysis/phash.ts";
import { inspectImage } from "../../src/analysis/header.ts";
import { scrubMetadata } from "../../src/analysis/metadata.ts";

const images = new Map();
const decoded = new Map();
const options = (nsfwSize = 0) => ({ orientation: null, thumbnailMaxSide: 320, thumbnailJpegQuality: 80, nsfwSize });

function bytesOf(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Stores an image (base64) under `name`; returns its decoded size and phash. */
export async function load({ name, b64 }) {
  images.set(name, bytesOf(b64));
  const d = await decodeImage(images.get(name), options(224));
  decoded.set(name, d);
  return { width: d.width, height: d.height, phash: phashFromLuma(d.luma, d.lumaWidth, d.lumaHeight) };
}

/** Like the Python reference's timing: bytes -> decode -> grayscale -> Lanczos 32x32 -> DCT -> hash. */
export async function phashFromBytes({ name }) {
  const d = await decodeImage(images.get(name), { ...options(), thumbnailMaxSide: 0 });
  return phashFromLuma(d.luma, d.lumaWidth, d.lumaHeight);
}

/** Only our TypeScript part (Lanczos + DCT + bits) on already decoded luma. */
export function phashOnly({ name }) {
  const d = decoded.get(name);
  return phashFromLuma(d.luma, d.lumaWidth, d.lumaHeight);
}

/** Everything the job derives from pixels: decode, thumbnail (320 px, encoded), NSFW input, luma. */
export async function decodeAndDerive({ name }) {
  await decodeImage(images.get(name), options(224));
}

export function headerGuard({ name }) {
  return inspectImage(images.get(name), { maxPixels: 40e6, maxFrames: 1000 }).ok;
}

export function scrub({ name }) {
  return scrubMetadata(images.get(name).slice()).changed;
}

export async function photonLoadOnce() {
  const t0 = performance.now();
  await loadPhoton();
  return { ms: performance.now() - t0 };
}

/** Photon's wasm memory in bytes (it only grows, so it records the peak of everything run so far). */
export async function photonMemory() {
  const photon = await loadPhoton();
  const instance = await photon.initPhoton?.ensure?.();
  return instance ? instance.memory.buffer.byteLength : 0;
}

/** The job's decode step on a stored image through a chosen path (`full`: photon; `reduced`: lean decoder). */
export async function decodePath({ name, path }) {
  const d = await decodeImage(images.get(name), { ...options(224), maxFullDecodePixels: path === "full" ? Infinity : 0 });
  return { decoder: d.decoder, phash: phashFromLuma(d.luma, d.lumaWidth, d.lumaHeight), reduced: `${d.lumaWidth}x${d.lumaHeight}` };
}
