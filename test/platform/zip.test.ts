// The streaming zip writer: a known CRC-32, and an archive whose headers, descriptors and central directory
// agree (the browser test also checks a real album's zip with `unzip -t`).
import { describe, expect, it } from "vitest";
import { crc32 } from "../../src/platform/formats/crc32";
import { zipStream, type ZipEntry } from "../../src/platform/formats/zip";

const enc = new TextEncoder();
const u16 = (b: Uint8Array, at: number) => b[at] | (b[at + 1] << 8);
const u32 = (b: Uint8Array, at: number) => (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;

function entry(name: string, chunks: string[] | null): ZipEntry {
  return {
    name,
    modified: new Date("2026-11-25T10:20:30Z"),
    open: async () =>
      chunks === null
        ? null
        : new ReadableStream({
            start(controller) {
              for (const c of chunks) controller.enqueue(enc.encode(c));
              controller.close();
            },
          }),
  };
}

describe("zipStream", () => {
  it("computes CRC-32 as zip tools do, across chunks", () => {
    expect(crc32(enc.encode("123456789"))).toBe(0xcbf43926);
    expect(crc32(enc.encode("6789"), crc32(enc.encode("12345")))).toBe(0xcbf43926);
  });

  it("writes stored entries with data descriptors and a matching central directory; skips missing objects", async () => {
    const zip = new Uint8Array(await new Response(zipStream([entry("a.txt", ["hello ", "world"]), entry("gone.jpg", null), entry("ü.txt", ["x"])])).arrayBuffer());
    const eocd = zip.length - 22;
    expect(u32(zip, eocd)).toBe(0x06054b50);
    expect(u16(zip, eocd + 10)).toBe(2);
    let at = u32(zip, eocd + 16);
    const names: string[] = [];
    for (let i = 0; i < 2; i++) {
      expect(u32(zip, at)).toBe(0x02014b50);
      const crc = u32(zip, at + 16);
      const size = u32(zip, at + 20);
      const nameLen = u16(zip, at + 28);
      const local = u32(zip, at + 42);
      const name = new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLen));
      names.push(name);
      expect(u32(zip, local)).toBe(0x04034b50);
      const data = zip.subarray(local + 30 + nameLen, local + 30 + nameLen + size);
      expect(crc32(data)).toBe(crc);
      expect(u32(zip, local + 30 + nameLen + size)).toBe(0x08074b50);
      at += 46 + nameLen + u16(zip, at + 30);
    }
    expect(names).toEqual(["a.txt", "ü.txt"]);
  });
});
