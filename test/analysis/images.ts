// Hand-built image headers for the header guard tests: just enough bytes to describe an image, no pixels.
import { crc32 } from "../../src/platform/formats/crc32";

const be32 = (v: number) => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
const le16 = (v: number) => [v & 0xff, (v >>> 8) & 0xff];
const le24 = (v: number) => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff];
const le32 = (v: number) => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

function pngChunk(type: string, data: number[]): number[] {
  const body = [...ascii(type), ...data];
  return [...be32(data.length), ...body, ...be32(crc32(Uint8Array.from(body)))];
}

/** A PNG signature + IHDR (+ acTL for an APNG) + an empty IDAT + IEND: valid structure, claims any size. */
export function pngHeader(width: number, height: number, frames?: number): Uint8Array {
  return Uint8Array.from([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a,
    ...pngChunk("IHDR", [...be32(width), ...be32(height), 8, 6, 0, 0, 0]),
    ...(frames ? pngChunk("acTL", [...be32(frames), ...be32(0)]) : []),
    ...pngChunk("IDAT", [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]),
    ...pngChunk("IEND", []),
  ]);
}

/** SOI, an APP0, then a SOF marker (baseline by default) with the size. */
export function jpegHeader(width: number, height: number, sof = 0xc0): Uint8Array {
  return Uint8Array.from([
    0xff, 0xd8,
    0xff, 0xe0, 0x00, 0x10, ...ascii("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0,
    0xff, sof, 0x00, 0x11, 8, (height >> 8) & 0xff, height & 0xff, (width >> 8) & 0xff, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
    0xff, 0xda, 0x00, 0x08, 1, 1, 0, 0, 0x3f, 0,
  ]);
}

/** A GIF with `frames` 1x1 image descriptors (each with a minimal LZW stream). */
export function gifHeader(width: number, height: number, frames: number, frameSize?: [number, number]): Uint8Array {
  const [fw, fh] = frameSize ?? [1, 1];
  const frame = [0x21, 0xf9, 4, 0, 10, 0, 0, 0, 0x2c, 0, 0, 0, 0, ...le16(fw), ...le16(fh), 0, 2, 2, 0x4c, 0x01, 0];
  return Uint8Array.from([...ascii("GIF89a"), ...le16(width), ...le16(height), 0x80, 0, 0, 0, 0, 0, 255, 255, 255, ...Array(frames).fill(frame).flat(), 0x3b]);
}

function riff(chunks: number[][]): Uint8Array {
  const body = [...ascii("WEBP"), ...chunks.flat()];
  return Uint8Array.from([...ascii("RIFF"), ...le32(body.length), ...body]);
}

function webpChunk(type: string, data: number[]): number[] {
  return [...ascii(type), ...le32(data.length), ...data, ...(data.length & 1 ? [0] : [])];
}

export function webpLossy(width: number, height: number): Uint8Array {
  return riff([webpChunk("VP8 ", [0x50, 0x01, 0x00, 0x9d, 0x01, 0x2a, ...le16(width), ...le16(height), 0, 0])]);
}

export function webpLossless(width: number, height: number): Uint8Array {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  return riff([webpChunk("VP8L", [0x2f, ...le32(bits >>> 0), 0])]);
}

export function webpExtended(width: number, height: number, frames: number): Uint8Array {
  const flags = frames > 0 ? 0x02 : 0;
  const anmf = Array.from({ length: frames }, () => webpChunk("ANMF", Array(16).fill(0)));
  return riff([webpChunk("VP8X", [flags, 0, 0, 0, ...le24(width - 1), ...le24(height - 1)]), ...(frames ? [webpChunk("ANIM", [0, 0, 0, 0, 0, 0])] : []), ...anmf]);
}

export function bmpHeader(width: number, height: number): Uint8Array {
  return Uint8Array.from([...ascii("BM"), ...le32(54), 0, 0, 0, 0, ...le32(54), ...le32(40), ...le32(width), ...le32(height >>> 0), ...le16(1), ...le16(24), ...Array(24).fill(0)]);
}

function box(type: string, data: number[]): number[] {
  return [...be32(8 + data.length), ...ascii(type), ...data];
}

/** ftyp + meta/iprp/ipco/ispe: an AVIF still image header. */
export function avifHeader(width: number, height: number): Uint8Array {
  const ispe = box("ispe", [0, 0, 0, 0, ...be32(width), ...be32(height)]);
  return Uint8Array.from([...box("ftyp", [...ascii("avif"), 0, 0, 0, 0, ...ascii("mif1avif")]), ...box("meta", [0, 0, 0, 0, ...box("iprp", box("ipco", ispe))])]);
}
