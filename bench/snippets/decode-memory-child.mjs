// One measurement of bench/decode-memory.bench.mjs, in its own Node process so its peak RSS is its own:
//   node decode-memory-child.mjs <bundle.mjs> <mode> <image>
// mode: `read` (baseline: load the bundle and the file only), `lean` (our reduced decode, as the job calls it),
// `photon` (photon's full decode + get_raw_pixels, what the job did before). The lean and photon modes use
// separate bundles, each with its own baseline, so photon's load-time peak does not hide the lean decode's.
// Prints one JSON line.
import { readFileSync } from "node:fs";

const [bundle, mode, file] = process.argv.slice(2);
const { decodeReduced, parseImageHeader, photon } = await import(bundle);
const bytes = new Uint8Array(readFileSync(file));
const header = parseImageHeader(bytes);
const started = process.cpuUsage();
let out = {};
if (mode === "photon-load") {
  await photon(); // baseline of the photon mode: its module loaded and instantiated
} else if (mode === "lean") {
  const reduced = await decodeReduced(bytes, 1_000_000);
  out = { reduced: `${reduced.outWidth}x${reduced.outHeight}` };
} else if (mode === "photon") {
  const image = (await photon()).PhotonImage.new_from_byteslice(bytes);
  try {
    out = { pixels: image.get_raw_pixels().length };
  } finally {
    image.free();
  }
}
const cpu = process.cpuUsage(started);
console.log(JSON.stringify({ mode, ...out, cpuMs: (cpu.user + cpu.system) / 1000, maxRssKB: process.resourceUsage().maxRSS, width: header.width, height: header.height }));
