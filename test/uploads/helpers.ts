// Helpers for the upload tests: real image bytes, the two flows end to end, and direct looks at D1/R2.
import { env } from "cloudflare:workers";
import { call, type Reply } from "../support/api";
import { crc32 } from "../../src/platform/formats/crc32";
import { setStorage, storage } from "../support/owners";
import { ownerDb } from "../support/shard-db";

// ---------------------------------------------------------------------------------------------------------
// A real PNG of any size: RGB pixels from a seeded PRNG (so it does not compress), zlib with stored blocks.

/** CRC over a chunk's type and data, with the service's own PNG CRC. */
const chunkCrc = (parts: Uint8Array[]) => crc32(concatBytes(parts));
function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function adler32(data: Uint8Array): number {
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

const u32 = (n: number) => new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

function chunk(type: string, data: Uint8Array): Uint8Array[] {
  const t = new TextEncoder().encode(type);
  return [u32(data.length), t, data, u32(chunkCrc([t, data]))];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function makePng(width: number, height: number, seed = 1): Uint8Array {
  const stride = width * 3 + 1;
  const raw = new Uint8Array(stride * height);
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
  const blocks: Uint8Array[] = [new Uint8Array([0x78, 0x01])];
  for (let at = 0; at < raw.length || at === 0; at += 65535) {
    const len = Math.min(65535, raw.length - at);
    const final = at + len >= raw.length ? 1 : 0;
    blocks.push(new Uint8Array([final, len & 255, len >>> 8, ~len & 255, (~len >>> 8) & 255]), raw.subarray(at, at + len));
    if (final) break;
  }
  blocks.push(u32(adler32(raw)));
  const ihdr = concat([u32(width), u32(height), new Uint8Array([8, 2, 0, 0, 0])]);
  return concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    ...chunk("IHDR", ihdr),
    ...chunk("IDAT", concat(blocks)),
    ...chunk("IEND", new Uint8Array(0)),
  ]);
}

/** A small real PNG (8x8). */
export const SMALL_PNG = makePng(8, 8, 7);

/** Byte-for-byte equality (vitest's deep equality is slow on megabytes). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

export async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// ---------------------------------------------------------------------------------------------------------
// Flows

export type PresignOptions = { token?: string; bytes?: Uint8Array; mime?: string; filename?: string; extra?: Record<string, unknown>; ip?: string };

/** A fresh client IP: anonymous callers are rate limited per IP (5 uploads an hour). */
export function randomIp() {
  const b = crypto.getRandomValues(new Uint8Array(3));
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

export async function presign(opts: PresignOptions = {}): Promise<Reply> {
  const bytes = opts.bytes ?? SMALL_PNG;
  return call("/upload/presign", {
    token: opts.token,
    ip: opts.ip ?? (opts.token ? undefined : randomIp()),
    body: {
      filename: opts.filename ?? "photo.png",
      mime: opts.mime ?? "image/png",
      bytes: bytes.byteLength,
      sha256: await sha256(bytes),
      title: "A photo",
      description: "test",
      visibility: "public",
      ...opts.extra,
    },
  });
}

export function putDirect(fileId: string, bytes: Uint8Array | ReadableStream, token?: string, headers: Record<string, string> = {}) {
  return call(`/upload/direct/${fileId}`, { method: "PUT", raw: bytes as BodyInit, token, headers: { "content-type": "image/png", ...headers } });
}

export function finalize(p: { uploadId: string; fileId: string; storeKey: string }, storeEtag: string, token?: string, extra: Record<string, unknown> = {}) {
  return call("/upload/finalize", { token, body: { uploadId: p.uploadId, fileId: p.fileId, storeKey: p.storeKey, storeEtag, width: 8, height: 8, ...extra } });
}

/** presign -> PUT -> finalize; returns every reply. */
export async function directUpload(token?: string, bytes: Uint8Array = SMALL_PNG) {
  const pre = await presign({ token, bytes });
  if (pre.status !== 201) throw new Error(`presign ${pre.status} ${pre.text}`);
  const uploadToken = token ?? pre.body.uploadToken;
  const put = await putDirect(pre.body.fileId, bytes, uploadToken);
  if (put.status !== 200) throw new Error(`put ${put.status} ${put.text}`);
  const fin = await finalize(pre.body, put.headers.get("etag")!, uploadToken);
  if (fin.status !== 200) throw new Error(`finalize ${fin.status} ${fin.text}`);
  return { pre, put, fin };
}

// ---------------------------------------------------------------------------------------------------------
// Looking at D1 / R2 directly

// The quota counters live on the owner's shard (owners), see test/support/owners.ts.
export { setStorage, storage };

export async function uploadRow(uploadId: string) {
  return ownerDb.prepare("SELECT * FROM uploads WHERE id = ?").bind(uploadId).first<Record<string, any>>();
}

export async function fileRow(fileId: string) {
  return ownerDb.prepare("SELECT * FROM files WHERE id = ?").bind(fileId).first<Record<string, any>>();
}

export async function objectExists(key: string) {
  return (await env.BUCKET.head(key)) !== null;
}

/** The state after a failure path: nothing stored, nothing live, nothing reserved. */
export async function expectNothingLeft(p: { uploadId: string; fileId: string; storeKey: string }, userId?: string) {
  const upload = await uploadRow(p.uploadId);
  const file = await fileRow(p.fileId);
  const reserved = userId ? (await storage(userId)).reserved : 0;
  return {
    object: await objectExists(p.storeKey),
    uploadState: upload?.state,
    fileState: file?.state,
    uploadReserved: upload?.reserved_bytes,
    userReserved: reserved,
  };
}
