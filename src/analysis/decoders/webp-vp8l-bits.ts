// LSB-first bit reader for VP8L (lossless WebP) streams. Reading past the end yields zero bits and sets
// `eos`, so decode loops stay bounded by the pixel count and the caller reports truncation once per row.
import { LeanDecodeError } from "./reduce";

export class BitReader {
  /** Unconsumed bits, LSB first; holds up to 32 bits after fill(). */
  private val = 0;
  private nbits = 0;
  private pos: number;
  /** Past the end of the data by more than the look-ahead: the stream is truncated. */
  eos = false;

  constructor(
    private readonly buf: Uint8Array,
    start: number,
    private readonly end: number,
  ) {
    this.pos = start;
  }

  /** Ensures at least 25 bits are buffered (enough for any prefix code plus its extra bits). */
  fill(): void {
    while (this.nbits <= 24) {
      if (this.pos < this.end) this.val |= this.buf[this.pos] << this.nbits;
      else if (this.pos > this.end + 8) this.eos = true;
      this.pos++;
      this.nbits += 8;
    }
  }

  peek(): number {
    return this.val;
  }

  skip(n: number): void {
    this.val >>>= n;
    this.nbits -= n;
  }

  /** n <= 24 bits. */
  read(n: number): number {
    if (this.nbits < n) this.fill();
    const v = this.val & ((1 << n) - 1);
    this.val >>>= n;
    this.nbits -= n;
    return v;
  }

  /** Throws when the stream ran out: more than the few bytes of look-ahead were read past its end. */
  check(): void {
    if (this.eos || this.pos * 8 - this.nbits > this.end * 8) throw new LeanDecodeError("truncated lossless WebP data");
  }
}
