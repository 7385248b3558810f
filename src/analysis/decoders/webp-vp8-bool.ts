// VP8 boolean entropy decoder (RFC 6386 section 7) and the key-frame header (section 9 / 19.2).
import { u16le, u24le } from "../containers/bytes";
import { LeanDecodeError } from "./reduce";
import { COEFF_PROBS, COEFF_UPDATE_PROBS } from "./webp-vp8-tables";

/** Shifts that bring a range of 1..127 back to 128..255. */
const NORM = new Uint8Array(256);
for (let r = 1; r < 128; r++) NORM[r] = Math.clz32(r) - 24;

/**
 * Bit-exact with the RFC's reference reader: a 16-bit window, one byte shifted in per 8 bits consumed,
 * zeros past the end. `overrun` counts the zero bytes supplied so a truncated stream can be refused.
 */
export class BoolDecoder {
  private value: number;
  private range = 255;
  private bitCount = 0;
  private pos: number;
  overrun = 0;

  constructor(
    private readonly buf: Uint8Array,
    start: number,
    private readonly end: number,
  ) {
    this.pos = start;
    this.value = (this.nextByte() << 8) | this.nextByte();
  }

  private nextByte(): number {
    if (this.pos < this.end) return this.buf[this.pos++];
    this.overrun++;
    return 0;
  }

  readBool(prob: number): number {
    const split = 1 + (((this.range - 1) * prob) >> 8);
    const bigSplit = split << 8;
    let bit: number;
    if (this.value >= bigSplit) {
      this.range -= split;
      this.value -= bigSplit;
      bit = 1;
    } else {
      this.range = split;
      bit = 0;
    }
    if (this.range < 128) {
      const shift = NORM[this.range];
      this.range <<= shift;
      this.value <<= shift;
      this.bitCount += shift;
      if (this.bitCount >= 8) {
        this.bitCount -= 8;
        this.value |= this.nextByte() << this.bitCount;
      }
    }
    return bit;
  }

  readLiteral(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) v = (v << 1) | this.readBool(128);
    return v;
  }

  readFlag(): boolean {
    return this.readBool(128) === 1;
  }

  /** n-bit magnitude then a sign bit. */
  readSigned(n: number): number {
    const m = this.readLiteral(n);
    return this.readBool(128) ? -m : m;
  }

  /** Walks a flat tree (see webp-vp8-tables.ts) from node `start`. */
  readTree(tree: Int8Array, probs: Uint8Array, probOffset = 0): number {
    let i = 0;
    do i = tree[i + this.readBool(probs[probOffset + (i >> 1)])];
    while (i > 0);
    return -i;
  }

  /** A valid stream never needs more than the bytes it has; the window reads at most 2 ahead. */
  checkOverrun(what: string): void {
    if (this.overrun > 2) throw new LeanDecodeError(`VP8: truncated ${what}`);
  }
}

export type Segment = { ydc: number; yac: number; y2dc: number; y2ac: number; uvdc: number; uvac: number; filterLevel: number; quant: number };

export type FrameHeader = {
  width: number;
  height: number;
  segmentsEnabled: boolean;
  updateMap: boolean;
  absoluteDelta: boolean;
  segmentProbs: Uint8Array;
  segments: Segment[];
  simpleFilter: boolean;
  filterLevel: number;
  sharpness: number;
  modeDelta0: number;
  partitions: BoolDecoder[];
  tokenProbs: Uint8Array;
  /** -1 when every macroblock codes its coefficients (no skip flag). */
  skipProb: number;
  /** Reader of the first partition, positioned at the first macroblock header. */
  modes: BoolDecoder;
};

const clampQ = (q: number) => (q < 0 ? 0 : q > 127 ? 127 : q);

export function readFrameHeader(data: Uint8Array, DC: Int16Array, AC: Int16Array): FrameHeader {
  if (data.length < 10) throw new LeanDecodeError("VP8: frame header truncated");
  const tag = u24le(data, 0);
  if (tag & 1) throw new LeanDecodeError("VP8: not a key frame");
  const firstPartSize = tag >>> 5;
  if (data[3] !== 0x9d || data[4] !== 0x01 || data[5] !== 0x2a) throw new LeanDecodeError("VP8: bad start code");
  // The top two bits of each dimension are an upscaling hint that decoders (libwebp, image) ignore.
  const width = u16le(data, 6) & 0x3fff;
  const height = u16le(data, 8) & 0x3fff;
  if (width === 0 || height === 0) throw new LeanDecodeError("VP8: zero dimension");
  if (firstPartSize > data.length - 10) throw new LeanDecodeError("VP8: first partition truncated");
  const b = new BoolDecoder(data, 10, 10 + firstPartSize);

  if (b.readLiteral(1) !== 0) throw new LeanDecodeError("VP8: unsupported colour space");
  b.readLiteral(1); // clamping type: the decoder clamps always

  const segmentsEnabled = b.readFlag();
  let updateMap = false;
  let absoluteDelta = true; // segments without feature data: absolute zeros (as libwebp and image)
  const segmentProbs = new Uint8Array([255, 255, 255]);
  const segQuant = [0, 0, 0, 0];
  const segFilter = [0, 0, 0, 0];
  if (segmentsEnabled) {
    updateMap = b.readFlag();
    if (b.readFlag()) {
      absoluteDelta = b.readFlag();
      for (let i = 0; i < 4; i++) segQuant[i] = b.readFlag() ? b.readSigned(7) : 0;
      for (let i = 0; i < 4; i++) segFilter[i] = b.readFlag() ? b.readSigned(6) : 0;
    }
    if (updateMap) for (let i = 0; i < 3; i++) segmentProbs[i] = b.readFlag() ? b.readLiteral(8) : 255;
  }

  const simpleFilter = b.readFlag();
  const filterLevel = b.readLiteral(6);
  const sharpness = b.readLiteral(3);
  let modeDelta0 = 0;
  if (b.readFlag() && b.readFlag()) {
    // Reference-frame deltas (unused by the intra-only decoder photon uses), then mode deltas.
    for (let i = 0; i < 4; i++) if (b.readFlag()) b.readSigned(6);
    for (let i = 0; i < 4; i++) {
      const d = b.readFlag() ? b.readSigned(6) : 0;
      if (i === 0) modeDelta0 = d;
    }
  }

  const numPartitions = 1 << b.readLiteral(2);
  let p = 10 + firstPartSize;
  const sizesStart = p;
  p += 3 * (numPartitions - 1);
  if (p > data.length) throw new LeanDecodeError("VP8: partition table truncated");
  const partitions: BoolDecoder[] = [];
  for (let i = 0; i < numPartitions; i++) {
    let size: number;
    if (i < numPartitions - 1) {
      const s = sizesStart + 3 * i;
      size = u24le(data, s);
      if (size > data.length - p) throw new LeanDecodeError("VP8: token partition truncated");
    } else {
      size = data.length - p;
    }
    partitions.push(new BoolDecoder(data, p, p + size));
    p += size;
  }

  const yacAbs = b.readLiteral(7);
  const deltas: number[] = [];
  for (let i = 0; i < 5; i++) deltas.push(b.readFlag() ? b.readSigned(4) : 0);
  const [ydcD, y2dcD, y2acD, uvdcD, uvacD] = deltas;
  const segments: Segment[] = [];
  for (let i = 0; i < 4; i++) {
    // Segment quantizers are absolute or relative to the frame's; without segments the frame's applies.
    // (image 0.24, photon's decoder, used index 0 when segmentation is off: a bug fixed in image-webp.)
    const base = !segmentsEnabled ? yacAbs : absoluteDelta ? segQuant[i] : segQuant[i] + yacAbs;
    let y2ac = ((AC[clampQ(base + y2acD)] * 155) / 100) | 0;
    if (y2ac < 8) y2ac = 8;
    let uvdc = DC[clampQ(base + uvdcD)];
    if (uvdc > 132) uvdc = 132;
    let fl = filterLevel;
    if (segmentsEnabled) fl = absoluteDelta ? segFilter[i] : fl + segFilter[i];
    segments.push({
      ydc: DC[clampQ(base + ydcD)],
      yac: AC[clampQ(base)],
      y2dc: DC[clampQ(base + y2dcD)] * 2,
      y2ac,
      uvdc,
      uvac: AC[clampQ(base + uvacD)],
      filterLevel: fl,
      quant: base,
    });
  }

  b.readLiteral(1); // refresh_entropy_probs: irrelevant for a single frame
  const tokenProbs = COEFF_PROBS.slice();
  for (let i = 0; i < tokenProbs.length; i++) if (b.readBool(COEFF_UPDATE_PROBS[i])) tokenProbs[i] = b.readLiteral(8);
  const skipProb = b.readFlag() ? b.readLiteral(8) : -1;
  b.checkOverrun("frame header");

  return { width, height, segmentsEnabled, updateMap, absoluteDelta, segmentProbs, segments, simpleFilter, filterLevel, sharpness, modeDelta0, partitions, tokenProbs, skipProb, modes: b };
}
