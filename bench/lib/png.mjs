// A real PNG of any size for Node-side tests and benches (test/uploads/helpers.ts `makePng`, ported): RGB pixels
// from a seeded xorshift PRNG, so it does not compress, in zlib stored blocks. The server checks the magic bytes
// at completion and the analysis decodes the image, so random bytes behind a PNG signature are not enough.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(parts) {
  let c = 0xffffffff;
  for (const p of parts) for (let i = 0; i < p.length; i++) c = CRC_TABLE[(c ^ p[i]) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(data) {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length; i += 4096) {
    const end = Math.min(data.length, i + 4096);
    for (let j = i; j < end; j++) {
      a += data[j];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const u32 = (n) => Buffer.from([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

function chunk(type, data) {
  const t = Buffer.from(type, "ascii");
  return [u32(data.length), t, data, u32(crc32([t, data]))];
}

/** A width x height 8-bit RGB PNG (3 bytes a pixel, ~width*height*3 bytes in all). */
export function makePng(width, height, seed = 1) {
  const stride = width * 3 + 1;
  const raw = Buffer.alloc(stride * height);
  let x = seed >>> 0 || 1;
  for (let row = 0; row < height; row++) {
    raw[row * stride] = 0; // filter: none
    for (let i = 1; i < stride; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      raw[row * stride + i] = x & 255;
    }
  }
  const blocks = [Buffer.from([0x78, 0x01])];
  for (let at = 0; at < raw.length; at += 65535) {
    const len = Math.min(65535, raw.length - at);
    const final = at + len >= raw.length ? 1 : 0;
    blocks.push(Buffer.from([final, len & 255, len >>> 8, ~len & 255, (~len >>> 8) & 255]), raw.subarray(at, at + len));
  }
  blocks.push(u32(adler32(raw)));
  const ihdr = Buffer.concat([u32(width), u32(height), Buffer.from([8, 2, 0, 0, 0])]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    ...chunk("IHDR", ihdr),
    ...chunk("IDAT", Buffer.concat(blocks)),
    ...chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A PNG of about `bytes` bytes (at least), `width` pixels wide. */
export function pngOfSize(bytes, width = 3000, seed = 1) {
  return makePng(width, Math.ceil(bytes / (width * 3 + 1)), seed);
}
