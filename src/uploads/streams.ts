// Streaming bytes into R2 without holding a whole body in memory. R2 needs a body of known length:
// a FixedLengthStream of the expected size gives it one (and errors when the client sends more or fewer
// bytes, so a wrong-sized body is never stored). Magic bytes are sniffed from the first bytes before
// anything is stored.
import { bytesToHex } from "../platform/crypto/crypto";
import type { UploadMime } from "../config/uploads";
import { SNIFF_BYTES, magicMatches } from "./magic";

export type Head = { chunks: Uint8Array[]; bytes: Uint8Array; done: boolean };

/** Reads chunks until `want` bytes are in hand or the stream ends. Chunks are kept whole for re-use. */
export async function readHead(reader: Pick<ReadableStreamDefaultReader<Uint8Array>, "read">, want: number): Promise<Head> {
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
  | { ok: true; object: R2Object; sha256: string }
  | { ok: false; reason: "magic_mismatch" | "size_mismatch" | "checksum_mismatch" | "interrupted"; receivedBytes?: number; stored: boolean };

/** R2's own refusal of a body whose SHA-256 is not the one it was given (BadDigest, code 10037). */
const R2_BAD_DIGEST = /checksum you specified did not match|\(10037\)/i;

/** PUT of a whole file; R2 gets the expected SHA-256 and refuses a body that does not match, so nothing wrong becomes
 * visible and the worker hashes nothing. `knownLength`: the body goes to R2 natively (no JavaScript per chunk), then its
 * first 64 bytes are read back (a mismatch is removed by the caller); else a counting source into a FixedLengthStream
 * tells a wrong size from an interruption (docs/uploads.md). Without an expected SHA-256 (upload from a URL) the
 * chunked path hashes the bytes on the way (DigestStream) and answers the digest. */
export async function putVerified(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  expect: { bytes: number; sha256?: string; mime: UploadMime; fileId: string },
  knownLength = false,
): Promise<VerifiedPut> {
  const options = { httpMetadata: { contentType: expect.mime }, customMetadata: { fileId: expect.fileId }, ...(expect.sha256 ? { sha256: expect.sha256 } : {}) };
  if (knownLength && expect.sha256) return putKnownLength(bucket, key, body, { ...expect, sha256: expect.sha256 }, options);

  const reader = body.getReader();
  let head: Head;
  try {
    head = await readHead(reader, SNIFF_BYTES);
  } catch {
    return { ok: false, reason: "interrupted", stored: false }; // the body broke off before its first bytes
  }
  if (!magicMatches(expect.mime, head.bytes)) {
    await reader.cancel().catch(() => undefined);
    return { ok: false, reason: "magic_mismatch", stored: false };
  }

  let received = 0;
  let ended = false;
  let next = 0;
  const digest = expect.sha256 ? null : new crypto.DigestStream("SHA-256");
  const hashing = digest?.getWriter();
  const counted = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = next < head.chunks.length ? head.chunks[next++] : head.done ? undefined : (await reader.read()).value;
        if (chunk === undefined) {
          ended = true;
          await hashing?.close();
          controller.close();
          return;
        }
        received += chunk.byteLength;
        await hashing?.write(chunk);
        controller.enqueue(chunk);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  const sized = new FixedLengthStream(expect.bytes);
  const feeding = counted.pipeTo(sized.writable);
  const putting = bucket.put(key, sized.readable, options);
  const [fed, put] = await Promise.allSettled([feeding, putting]);
  const stored = put.status === "fulfilled";

  if (received !== expect.bytes && (ended || received > expect.bytes)) return { ok: false, reason: "size_mismatch", receivedBytes: received, stored };
  if (fed.status === "rejected") return { ok: false, reason: "interrupted", stored };
  if (put.status === "rejected") {
    if (R2_BAD_DIGEST.test(errorText(put.reason))) return { ok: false, reason: "checksum_mismatch", receivedBytes: received, stored };
    throw put.reason;
  }
  return { ok: true, object: put.value, sha256: digest ? bytesToHex(await digest.digest) : expect.sha256! };
}

const errorText = (err: unknown) => String((err as Error)?.message ?? err);
/** An error R2 itself raised for a put (its binding prefixes the operation), as opposed to the body's. */
const R2_PUT_ERROR = /^put: /;

async function putKnownLength(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  expect: { bytes: number; sha256: string; mime: UploadMime },
  options: R2PutOptions,
): Promise<VerifiedPut> {
  let object: R2Object;
  try {
    object = (await bucket.put(key, body, options))!;
  } catch (err) {
    const text = errorText(err);
    if (R2_BAD_DIGEST.test(text)) return { ok: false, reason: "checksum_mismatch", receivedBytes: expect.bytes, stored: false };
    if (R2_PUT_ERROR.test(text)) throw err;
    return { ok: false, reason: "interrupted", stored: false }; // the body broke off: R2 stored nothing
  }
  const head = await bucket.get(key, { range: { offset: 0, length: SNIFF_BYTES } });
  const first = head ? new Uint8Array(await head.arrayBuffer()) : new Uint8Array();
  if (!magicMatches(expect.mime, first)) return { ok: false, reason: "magic_mismatch", stored: true };
  return { ok: true, object, sha256: expect.sha256 };
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
  return { ok: true, object, sha256: expect.sha256 };
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
