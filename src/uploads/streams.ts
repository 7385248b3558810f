// Streaming bytes into R2 without holding a whole body in memory. R2 needs a body of known length:
// a FixedLengthStream of the expected size gives it one (and errors when the client sends more or fewer
// bytes, so a wrong-sized body is never stored). Magic bytes are sniffed from a tee()d branch before the
// store branch is read at all.
import { bytesToHex } from "../platform/crypto";
import type { UploadMime } from "../config";
import { SNIFF_BYTES, magicMatches } from "./magic";

type Head = { chunks: Uint8Array[]; bytes: Uint8Array; done: boolean };

/** Reads chunks until `want` bytes are in hand or the stream ends. Chunks are kept whole for re-use. */
async function readHead(reader: ReadableStreamDefaultReader<Uint8Array>, want: number): Promise<Head> {
  const chunks: Uint8Array[] = [];
  let have = 0;
  let done = false;
  while (have < want) {
    const next = await reader.read();
    if (next.done) {
      done = true;
      break;
    }
    chunks.push(next.value);
    have += next.value.byteLength;
  }
  const bytes = new Uint8Array(Math.min(have, want));
  let at = 0;
  for (const c of chunks) {
    if (at >= bytes.byteLength) break;
    const take = c.subarray(0, bytes.byteLength - at);
    bytes.set(take, at);
    at += take.byteLength;
  }
  return { chunks, bytes, done };
}

/** Splits off the first bytes for sniffing; the returned `rest` branch still yields the whole body. */
async function sniff(body: ReadableStream<Uint8Array>, mime: UploadMime) {
  const [probe, rest] = body.tee();
  const reader = probe.getReader();
  const head = await readHead(reader, SNIFF_BYTES);
  return { matches: magicMatches(mime, head.bytes), head, probe, reader, rest };
}

export type VerifiedPut =
  | { ok: true; object: R2Object }
  | { ok: false; reason: "magic_mismatch" | "size_mismatch" | "checksum_mismatch" | "interrupted"; receivedBytes?: number; stored: boolean };

/**
 * PUT of a whole file: one tee() branch goes through a FixedLengthStream into R2, the other through
 * crypto.DigestStream. R2 is also given the expected SHA-256, so it refuses to store a body that does not
 * match (nothing wrong ever becomes visible); the digest branch tells which check failed.
 */
export async function putVerified(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  expect: { bytes: number; sha256: string; mime: UploadMime; fileId: string },
): Promise<VerifiedPut> {
  const { matches, head, probe, reader, rest } = await sniff(body, expect.mime);
  if (!matches) {
    await Promise.allSettled([reader.cancel(), rest.cancel()]);
    return { ok: false, reason: "magic_mismatch", stored: false };
  }

  const digest = new crypto.DigestStream("SHA-256");
  const hashing = (async () => {
    const writer = digest.getWriter();
    for (const chunk of head.chunks) await writer.write(chunk);
    writer.releaseLock();
    reader.releaseLock();
    // the probe branch continues where readHead stopped
    await probe.pipeTo(digest);
  })();
  const sized = new FixedLengthStream(expect.bytes);
  const feeding = rest.pipeTo(sized.writable);
  const putting = bucket.put(key, sized.readable, {
    httpMetadata: { contentType: expect.mime },
    customMetadata: { fileId: expect.fileId },
    sha256: expect.sha256,
  });
  const [hashed, , put] = await Promise.allSettled([hashing, feeding, putting]);
  const stored = put.status === "fulfilled";

  if (hashed.status === "rejected") return { ok: false, reason: "interrupted", stored };
  const receivedBytes = Number(digest.bytesWritten);
  if (receivedBytes !== expect.bytes) return { ok: false, reason: "size_mismatch", receivedBytes, stored };
  if (bytesToHex(await digest.digest) !== expect.sha256) return { ok: false, reason: "checksum_mismatch", receivedBytes, stored };
  if (put.status === "rejected") throw put.reason;
  return { ok: true, object: put.value };
}

/** The same checks for a body already in memory (POST /upload/form): no streams to tee. */
export async function putBytesVerified(
  bucket: R2Bucket,
  key: string,
  bytes: Uint8Array,
  expect: { bytes: number; sha256: string; mime: UploadMime; fileId: string },
): Promise<VerifiedPut> {
  if (!magicMatches(expect.mime, bytes.subarray(0, SNIFF_BYTES))) return { ok: false, reason: "magic_mismatch", stored: false };
  if (bytes.byteLength !== expect.bytes) return { ok: false, reason: "size_mismatch", receivedBytes: bytes.byteLength, stored: false };
  if (bytesToHex(await crypto.subtle.digest("SHA-256", bytes)) !== expect.sha256) {
    return { ok: false, reason: "checksum_mismatch", receivedBytes: bytes.byteLength, stored: false };
  }
  const object = await bucket.put(key, bytes, { httpMetadata: { contentType: expect.mime }, customMetadata: { fileId: expect.fileId }, sha256: expect.sha256 });
  return { ok: true, object };
}

export type PartPut = { ok: true; part: R2UploadedPart } | { ok: false; reason: "magic_mismatch" | "interrupted" };

/** One multipart part of exactly `bytes` bytes. The first part is also sniffed for the declared mime. */
export async function putPart(
  upload: R2MultipartUpload,
  partNumber: number,
  body: ReadableStream<Uint8Array>,
  bytes: number,
  sniffAs?: UploadMime,
): Promise<PartPut> {
  let source = body;
  if (sniffAs) {
    const { matches, reader, rest } = await sniff(body, sniffAs);
    await reader.cancel().catch(() => undefined); // the store branch keeps the bytes read so far
    if (!matches) {
      await rest.cancel().catch(() => undefined);
      return { ok: false, reason: "magic_mismatch" };
    }
    source = rest;
  }
  const sized = new FixedLengthStream(bytes);
  const feeding = source.pipeTo(sized.writable);
  const uploading = upload.uploadPart(partNumber, sized.readable);
  const [fed, part] = await Promise.allSettled([feeding, uploading]);
  if (fed.status === "rejected") return { ok: false, reason: "interrupted" };
  if (part.status === "rejected") throw part.reason;
  return { ok: true, part: part.value };
}

/** Hex SHA-256 of a stored object, streamed back through crypto.DigestStream; null when it is missing. */
export async function storedSha256(bucket: R2Bucket, key: string): Promise<string | null> {
  const object = await bucket.get(key);
  if (!object) return null;
  const digest = new crypto.DigestStream("SHA-256");
  await object.body.pipeTo(digest);
  return bytesToHex(await digest.digest);
}
