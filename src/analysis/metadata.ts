// Privacy scrubbing of embedded metadata, in place and without re-encoding: GPS position and camera / lens
// serial numbers (and the owner's name) are overwritten with zeros / spaces of the same length, so the object
// keeps its size, its pixels and its orientation tag. Covers EXIF (TIFF IFDs) and XMP in JPEG (APP1), PNG
// (eXIf, iTXt) and WebP (EXIF, XMP chunks). Pure and total: malformed input never throws; EXIF we cannot
// parse is zeroed entirely (privacy wins over keeping the orientation).
import { ascii, u16be, u16le, u32be, u32le } from "./containers/bytes";
import { isJpeg } from "./containers/format";
import { jpegSegments } from "./containers/jpeg-segments";
import { isComplete, pngChunks, writeCrc } from "./containers/png-chunks";
import { isWebp, riffChunks } from "./containers/riff";

export type ScrubReport = {
  /** True when any byte changed (the caller writes the object back). */
  changed: boolean;
  /** EXIF orientation (1-8) when present; kept in the bytes. */
  orientation: number | null;
  /** What was found and blanked, e.g. "exif:gps", "exif:serial", "xmp:gps". */
  findings: string[];
};

/** EXIF tags blanked wherever they appear: owner name, body / lens / camera serial, maker notes (vendor blobs with serials). */
const SERIAL_TAGS = new Map<number, string>([
  [0xa430, "owner"],
  [0xa431, "serial"],
  [0xa435, "serial"],
  [0xc62f, "serial"],
  [0x927c, "makernote"],
]);
const TAG_ORIENTATION = 0x0112;
const TAG_EXIF_IFD = 0x8769;
const TAG_GPS_IFD = 0x8825;
const TYPE_SIZES = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];

/** Scrubs `bytes` in place (JPEG, PNG, WebP; other formats are left alone) and reports what it did. */
export function scrubMetadata(bytes: Uint8Array): ScrubReport {
  const report: ScrubReport = { changed: false, orientation: null, findings: [] };
  for (const block of metadataBlocks(bytes)) {
    const findingsBefore = report.findings.length;
    if (block.kind === "tiff") scrubTiff(bytes, block.start, block.end, report);
    else if (block.kind === "xmp") scrubXmp(bytes, block.start, block.end, report);
    else {
      // A block we cannot edit in place (compressed XMP, hex-encoded raw profiles): blank it whole.
      if (bytes.subarray(block.start, block.end).some((b) => b !== 0)) {
        bytes.fill(0, block.start, block.end);
        report.changed = true;
        report.findings.push("opaque-metadata");
      }
    }
    // Fix up the container (PNG chunk CRC) only for blocks that changed.
    if (report.findings.length > findingsBefore) block.after?.(bytes);
  }
  report.findings = [...new Set(report.findings)];
  return report;
}

export type TiffTag = { ifd: "ifd0" | "exif" | "gps" | "ifd1"; tag: number; type: number; count: number; value: Uint8Array };

/** Reads every EXIF tag (IFD0, Exif, GPS, IFD1) of a JPEG / PNG / WebP; for tests and diagnostics. */
export function readExifTags(bytes: Uint8Array): TiffTag[] {
  const tags: TiffTag[] = [];
  for (const block of metadataBlocks(bytes)) {
    if (block.kind !== "tiff") continue;
    walkTiff(bytes, block.start, block.end, (ifd, e) => {
      tags.push({ ifd, tag: e.tag, type: e.type, count: e.count, value: bytes.slice(e.valueAt, e.valueAt + e.length) });
    });
  }
  return tags;
}

/** The XMP packets of a JPEG / PNG / WebP as text; for tests and diagnostics. */
export function readXmp(bytes: Uint8Array): string[] {
  return metadataBlocks(bytes)
    .filter((b) => b.kind === "xmp")
    .map((b) => new TextDecoder().decode(bytes.subarray(b.start, b.end)));
}

// ---------------------------------------------------------------------------------------------------------
// Containers: where the EXIF (TIFF) and XMP blocks are

type Block = { kind: "tiff" | "xmp" | "opaque"; start: number; end: number; after?: (bytes: Uint8Array) => void };

function metadataBlocks(b: Uint8Array): Block[] {
  try {
    if (isJpeg(b)) return jpegBlocks(b);
    // Only "\x89PNG", not the whole signature: a file with a damaged signature is scrubbed all the same.
    if (b.length > 8 && b[0] === 0x89 && ascii(b, 1, 3) === "PNG") return pngBlocks(b);
    if (isWebp(b)) return webpBlocks(b);
  } catch {
    // Container walkers are bounds-checked; this is a last line of defence against a bug turning into a crash.
  }
  return [];
}

const EXIF_ID = "Exif\0\0";
const XMP_ID = "http://ns.adobe.com/xap/1.0/\0";
const XMP_EXT_ID = "http://ns.adobe.com/xmp/extension/\0";

/** APP1 segments before the first scan: nothing after it is metadata we scrub. */
function jpegBlocks(b: Uint8Array): Block[] {
  const blocks: Block[] = [];
  for (const segment of jpegSegments(b)) {
    if (segment.marker !== 0xe1) continue;
    const start = segment.start;
    const end = Math.min(segment.end, b.length);
    if (ascii(b, start, 6) === EXIF_ID) blocks.push({ kind: "tiff", start: start + 6, end });
    else if (ascii(b, start, XMP_ID.length) === XMP_ID) blocks.push({ kind: "xmp", start: start + XMP_ID.length, end });
    // Extended XMP: 32-byte GUID, 4-byte full length, 4-byte offset, then a slice of the packet.
    else if (ascii(b, start, XMP_EXT_ID.length) === XMP_EXT_ID) blocks.push({ kind: "xmp", start: start + XMP_EXT_ID.length + 40, end });
  }
  return blocks;
}

function pngBlocks(b: Uint8Array): Block[] {
  const blocks: Block[] = [];
  for (const chunk of pngChunks(b)) {
    const { type, start, end } = chunk;
    if (!isComplete(b, chunk) || type === "IEND") break;
    const fixCrc = (bytes: Uint8Array) => writeCrc(bytes, chunk);
    if (type === "eXIf") blocks.push({ kind: "tiff", start, end, after: fixCrc });
    else if (type === "iTXt" || type === "tEXt" || type === "zTXt") {
      const nul = b.indexOf(0, start);
      const keyword = nul > start && nul < end ? ascii(b, start, nul - start) : "";
      if (keyword === "XML:com.adobe.xmp" && type === "iTXt") {
        // keyword \0 compressed(1) method(1) language \0 translated-keyword \0 text
        const compressed = b[nul + 1] === 1;
        const lang = b.indexOf(0, nul + 3);
        const translated = lang >= 0 ? b.indexOf(0, lang + 1) : -1;
        if (!compressed && translated >= 0 && translated < end) blocks.push({ kind: "xmp", start: translated + 1, end, after: fixCrc });
        else blocks.push({ kind: "opaque", start: nul + 1, end, after: fixCrc });
      } else if (/^(XML:com\.adobe\.xmp|Raw profile type (exif|APP1|xmp))$/i.test(keyword)) {
        // ImageMagick stores EXIF / XMP hex-encoded (and maybe compressed) in text chunks: blank the payload.
        blocks.push({ kind: "opaque", start: nul + 1, end, after: fixCrc });
      }
    }
  }
  return blocks;
}

function webpBlocks(b: Uint8Array): Block[] {
  const blocks: Block[] = [];
  for (const chunk of riffChunks(b)) {
    const start = chunk.start;
    const end = Math.min(chunk.end, b.length);
    if (chunk.tag === "EXIF") blocks.push({ kind: "tiff", start: ascii(b, start, 6) === EXIF_ID ? start + 6 : start, end });
    else if (chunk.tag === "XMP ") blocks.push({ kind: "xmp", start, end });
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------------------
// EXIF (TIFF structure)

type Entry = { at: number; tag: number; type: number; count: number; valueAt: number; length: number };

/** Walks IFD0, the Exif IFD, the GPS IFD and IFD1; returns false when the structure is unusable. */
function walkTiff(b: Uint8Array, start: number, end: number, visit: (ifd: TiffTag["ifd"], e: Entry) => void, onIfd?: (ifd: TiffTag["ifd"], at: number, size: number) => void): boolean {
  if (end - start < 8) return false;
  const order = ascii(b, start, 2);
  if (order !== "II" && order !== "MM") return false;
  const le = order === "II";
  const u16 = (o: number) => (le ? u16le(b, o) : u16be(b, o));
  const u32 = (o: number) => (le ? u32le(b, o) : u32be(b, o));
  if (u16(start + 2) !== 42) return false;
  const seen = new Set<number>();
  const readIfd = (ifd: TiffTag["ifd"], offset: number): number | null => {
    const at = start + offset;
    if (offset < 8 || at + 2 > end || seen.has(at)) return null;
    seen.add(at);
    const count = u16(at);
    const size = 2 + count * 12 + 4;
    if (at + 2 + count * 12 > end) return null;
    for (let i = 0; i < count; i++) {
      const e = at + 2 + i * 12;
      const tag = u16(e);
      const type = u16(e + 2);
      const n = u32(e + 4);
      const length = (TYPE_SIZES[type] ?? 0) * n;
      const valueAt = length <= 4 ? e + 8 : start + u32(e + 8);
      if (length === 0 || valueAt + length > end) continue; // unknown type or out of range: nothing to read
      visit(ifd, { at: e, tag, type, count: n, valueAt, length });
      if (ifd !== "gps" && (tag === TAG_EXIF_IFD || tag === TAG_GPS_IFD) && length === 4) {
        readIfd(tag === TAG_EXIF_IFD ? "exif" : "gps", u32(valueAt));
      }
    }
    onIfd?.(ifd, at, Math.min(size, end - at));
    return at + 2 + count * 12 + 4 <= end ? u32(at + 2 + count * 12) : null;
  };
  const ifd1 = readIfd("ifd0", u32(start + 4));
  if (ifd1) readIfd("ifd1", ifd1);
  return true;
}

function scrubTiff(b: Uint8Array, start: number, end: number, report: ScrubReport) {
  const gpsIfds: { at: number; size: number }[] = [];
  const blank = (from: number, to: number, finding: string) => {
    if (b.subarray(from, to).some((v) => v !== 0)) {
      b.fill(0, from, to);
      report.changed = true;
      report.findings.push(finding);
    }
  };
  const le = ascii(b, start, 2) === "II";
  const parsed = walkTiff(
    b,
    start,
    end,
    (ifd, e) => {
      if (ifd === "gps") blank(e.valueAt, e.valueAt + e.length, "exif:gps");
      else if (SERIAL_TAGS.has(e.tag)) blank(e.valueAt, e.valueAt + e.length, `exif:${SERIAL_TAGS.get(e.tag)}`);
      else if (ifd === "ifd0" && e.tag === TAG_ORIENTATION && e.type === 3) {
        const v = le ? u16le(b, e.valueAt) : u16be(b, e.valueAt);
        if (v >= 1 && v <= 8) report.orientation = v;
      }
    },
    (ifd, at, size) => {
      if (ifd === "gps") gpsIfds.push({ at, size });
    },
  );
  if (!parsed) {
    blank(start, end, "exif:unparseable");
    return;
  }
  // With the values gone, empty the GPS directory itself (entry count 0), so readers see no GPS tags at all.
  for (const { at, size } of gpsIfds) blank(at, at + size, "exif:gps");
}

// ---------------------------------------------------------------------------------------------------------
// XMP: blank the values of location and serial-number properties, as attributes or as elements

const SENSITIVE_XMP = /^(gps\w*|\w*latitude|\w*longitude|\w*serialnumber|\w*ownername)$/i;

function scrubXmp(b: Uint8Array, start: number, end: number, report: ScrubReport) {
  // latin1 keeps one character per byte, so string indexes are byte offsets.
  let text = "";
  for (let i = start; i < end; i += 8192) text += String.fromCharCode(...b.subarray(i, Math.min(end, i + 8192)));
  const spaces = (from: number, to: number, finding: string) => {
    let touched = false;
    for (let i = from; i < to; i++) {
      if (b[start + i] !== 0x20) {
        b[start + i] = 0x20;
        touched = true;
      }
    }
    if (touched) {
      report.changed = true;
      report.findings.push(finding);
    }
  };
  const kind = (name: string) => (/serial|owner/i.test(name) ? "xmp:serial" : "xmp:gps");
  // prefix:Name="value"  or  prefix:Name='value'
  const attr = /([A-Za-z_][\w.-]*):([A-Za-z_][\w.-]*)\s*=\s*(["'])/g;
  for (let m; (m = attr.exec(text)); ) {
    const valueStart = m.index + m[0].length;
    const close = text.indexOf(m[3], valueStart);
    if (close < 0) break;
    if (SENSITIVE_XMP.test(m[2])) spaces(valueStart, close, kind(m[2]));
    attr.lastIndex = close + 1;
  }
  // <prefix:Name ...>content</prefix:Name>
  const element = /<([A-Za-z_][\w.-]*):([A-Za-z_][\w.-]*)(\s[^<>]*)?>/g;
  for (let m; (m = element.exec(text)); ) {
    if (!SENSITIVE_XMP.test(m[2]) || m[0].endsWith("/>")) continue;
    const closing = `</${m[1]}:${m[2]}>`;
    const contentStart = m.index + m[0].length;
    const close = text.indexOf(closing, contentStart);
    if (close < 0) continue;
    spaces(contentStart, close, kind(m[2]));
    element.lastIndex = close + closing.length;
  }
}
