// A streaming ZIP writer: entries are stored (images are compressed already), each written as its bytes arrive
// with the CRC-32 and sizes in a data descriptor after it (general purpose bit 3), so no entry is ever held in
// memory and the archive can start before the last object is read. ZIP64 records are written when sizes or
// offsets pass 4 GiB, so large albums work too.
import { crc32 } from "./crc32";

export type ZipEntry = { name: string; modified: Date; open: () => Promise<ReadableStream<Uint8Array> | null> };

const MAX32 = 0xffffffff;
const enc = new TextEncoder();

function dosTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getUTCFullYear());
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

class Bytes {
  private parts: number[] = [];
  u16(v: number) { this.parts.push(v & 0xff, (v >>> 8) & 0xff); return this; }
  u32(v: number) { this.u16(v & 0xffff).u16(Math.floor(v / 0x10000) & 0xffff); return this; }
  u64(v: number) { return this.u32(v % 0x100000000).u32(Math.floor(v / 0x100000000)); }
  raw(b: Uint8Array) { for (const x of b) this.parts.push(x); return this; }
  done() { return new Uint8Array(this.parts); }
}

/** The archive of `entries`, in order; entries whose object is missing are skipped. */
export function zipStream(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  (async () => {
    const central: Uint8Array[] = [];
    let offset = 0;
    let count = 0;
    const write = async (b: Uint8Array) => {
      await writer.write(b);
      offset += b.byteLength;
    };
    try {
      for await (const entry of entries) {
        const body = await entry.open();
        if (!body) continue;
        const name = enc.encode(entry.name);
        const { time, date } = dosTime(entry.modified);
        const start = offset;
        // Local header: CRC and sizes follow in the data descriptor (bit 3); UTF-8 names (bit 11).
        await write(new Bytes().u32(0x04034b50).u16(45).u16(0x0808).u16(0).u16(time).u16(date).u32(0).u32(0).u32(0).u16(name.length).u16(0).raw(name).done());
        let crc = 0;
        let size = 0;
        const reader = body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          crc = crc32(value, crc);
          size += value.byteLength;
          await write(value);
        }
        const big = size >= MAX32 || start >= MAX32;
        const desc = new Bytes().u32(0x08074b50).u32(crc);
        await write((big ? desc.u64(size).u64(size) : desc.u32(size).u32(size)).done());
        const extra = big ? new Bytes().u16(0x0001).u16(24).u64(size).u64(size).u64(start).done() : new Uint8Array(0);
        central.push(
          new Bytes()
            .u32(0x02014b50).u16(45).u16(45).u16(0x0808).u16(0).u16(time).u16(date).u32(crc)
            .u32(big ? MAX32 : size).u32(big ? MAX32 : size).u16(name.length).u16(extra.length).u16(0).u16(0).u16(0).u32(0)
            .u32(big ? MAX32 : start).raw(name).raw(extra).done(),
        );
        count++;
      }
      const cdStart = offset;
      for (const record of central) await write(record);
      const cdSize = offset - cdStart;
      if (cdStart >= MAX32 || count >= 0xffff) {
        const z64 = offset;
        await write(new Bytes().u32(0x06064b50).u64(44).u16(45).u16(45).u32(0).u32(0).u64(count).u64(count).u64(cdSize).u64(cdStart).done());
        await write(new Bytes().u32(0x07064b50).u32(0).u64(z64).u32(1).done());
      }
      await write(
        new Bytes().u32(0x06054b50).u16(0).u16(0).u16(Math.min(count, 0xffff)).u16(Math.min(count, 0xffff)).u32(Math.min(cdSize, MAX32)).u32(Math.min(cdStart, MAX32)).u16(0).done(),
      );
      await writer.close();
    } catch (err) {
      await writer.abort(err).catch(() => {});
    }
  })();
  return readable;
}
