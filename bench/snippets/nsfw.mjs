// Cases for bench/nsfw.bench.mjs, run inside workerd by inWorkerd(): the NSFW model (src/analysis/nsfw.ts) on
// images the bench sends once (`image`), decoded to the model's 224x224 input like the analysis job does.
import { decodeImage } from "../../src/analysis/imaging.ts";
import { classifyNsfw, loadNsfwModel } from "../../src/analysis/nsfw.ts";

const inputs = new Map();

/** First use in a fresh isolate (call once, before anything else): import tfjs, create the backend, build the model. */
export async function loadModel({ only }) {
  const t0 = performance.now();
  const model = await loadNsfwModel(only ? { only } : {});
  return { ms: performance.now() - t0, backend: model.backend, wasmError: model.wasmError };
}

/** Decodes an image (base64) to the NSFW input and keeps it under `name`. */
export async function image({ name, b64 }) {
  const s = atob(b64);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  const decoded = await decodeImage(bytes, { orientation: null, thumbnailMaxSide: 0, thumbnailJpegQuality: 80, nsfwSize: 224 });
  if (!decoded.nsfwInput) throw new Error(`${name}: no NSFW input`);
  inputs.set(name, decoded.nsfwInput);
  return { width: decoded.width, height: decoded.height };
}

/** One inference on the isolate's backend; returns the score and which backend ran it. */
export async function nsfw({ name }) {
  const r = await classifyNsfw(inputs.get(name));
  return { score: r.score, backend: r.backend };
}
