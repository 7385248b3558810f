// The one CRC-32 (ISO-HDLC: PNG chunks, zip entries). Here, under every feature, because both the analysis
// (PNG chunk CRCs, analysis/containers/png-chunks.ts) and the zip writer (platform/formats/zip.ts) need it.

// Int32Array and -1 rather than Uint32Array and 0xffffffff: the values stay small integers in V8 (no heap
// numbers), which matters when the PNG decoder checks the CRC of every IDAT chunk of a 40 MP image.
const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/**
 * CRC-32 of `bytes`, going on from `crc` (the CRC of the bytes before them) so a stream can be checked piece by
 * piece: crc32(b, crc32(a)) === crc32(a ++ b).
 */
export function crc32(bytes: Uint8Array, crc = 0): number {
  const t = CRC_TABLE;
  let c = ~crc;
  for (let i = 0; i < bytes.length; i++) c = t[(c ^ bytes[i]) & 255] ^ (c >>> 8);
  return ~c >>> 0;
}
