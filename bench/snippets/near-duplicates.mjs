// Cases for bench/near-duplicates.bench.mjs, run inside workerd by inWorkerd(): what the analysis job derives
// for near-duplicate matching from an image's bytes (decode as the job does, phash, the NSFW model's pooled
// embedding and its binary code).
import { decodeImage } from "../../src/analysis/imaging.ts";
import { classifyNsfw } from "../../src/analysis/nsfw.ts";
import { phashFromLuma } from "../../src/analysis/phash.ts";

function bytesOf(b64) {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** phash and pooled embedding of one image (base64); `raw`: also the 1280 floats. */
export async function analyse({ b64, raw }) {
  const d = await decodeImage(bytesOf(b64), { orientation: null, thumbnailMaxSide: 0, thumbnailJpegQuality: 80, nsfwSize: 224 });
  const phash = phashFromLuma(d.luma, d.lumaWidth, d.lumaHeight);
  const r = await classifyNsfw(d.nsfwInput);
  return { phash, width: d.width, height: d.height, embedding: raw ? Array.from(r.embedding) : undefined };
}
