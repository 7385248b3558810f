// How one tus chunk becomes R2 parts: held bytes and the chunk are cut into TUS.partBytes parts, each uploaded to the
// R2 multipart upload, the rest held for the next chunk; the state lives in the upload's Durable Object
// (./upload-state.ts), which hands in `keep` and `assemble`. Without Upload-Checksum each part is kept once R2 has it
// (tus 1.0: store as much as possible); with one, nothing of the chunk is kept until its digest matches (else 460).
import { TUS } from "../../config/uploads";
import { concat } from "./bytes";

export type ChecksumAlgorithm = "SHA-1" | "SHA-256";
export type AppendOptions = {
  /** The chunk's Content-Length, when the client sent one. */
  declaredBytes: number | null;
  checksum: { algorithm: ChecksumAlgorithm; digest: Uint8Array } | null;
};

export type AppendResult =
  | { kind: "appended"; offset: number }
  /** The last byte is in and R2 assembled the object (`sha256`: the file's, when the object hashed every byte). */
  | ({ kind: "complete"; offset: number } & Assembled)
  /** Upload-Offset is not the server's offset (which is given). */
  | { kind: "conflict"; offset: number }
  /** The chunk would end past Upload-Length. */
  | { kind: "too_long"; length: number }
  | { kind: "checksum_mismatch" }
  /** The body broke off; `offset` is what was kept. */
  | { kind: "interrupted"; offset: number }
  /** Another append of this upload is still running. */
  | { kind: "busy" }
  | { kind: "missing" }
  | { kind: "expired" };

/** A part to keep; `data`, its bytes, lets the object go on hashing the file (a part kept without them stops it). */
export type KeptPart = { partNumber: number; etag: string; bytes: number; data?: Uint8Array };
export type Assembled = { etag: string; sha256: string | null };

export type Assembly = {
  length: number;
  offset: number;
  partsKept: { n: number; bytes: number };
  held: Uint8Array[];
  r2: R2MultipartUpload;
  /** Stores parts and the held bytes that replace the old ones, durably; answers the new offset. */
  keep(parts: KeptPart[], held: Uint8Array[]): number;
  /** Completes the R2 upload with every kept part; answers the object's etag and, if known, the file's SHA-256. */
  assemble(complete: (parts: R2UploadedPart[]) => Promise<R2Object>): Promise<Assembled>;
};

const byteCount = (chunks: Uint8Array[]) => chunks.reduce((n, c) => n + c.byteLength, 0);

/** The first `size` bytes of `chunks` as one array, and the chunks left after them. */
function takeFirst(chunks: Uint8Array[], size: number): { part: Uint8Array; rest: Uint8Array[] } {
  const taken: Uint8Array[] = [];
  let have = 0;
  let i = 0;
  if (chunks[0]?.byteLength === size) return { part: chunks[0], rest: chunks.slice(1) }; // an aligned chunk: no copy
  for (; i < chunks.length && have < size; i++) {
    const c = chunks[i];
    const need = size - have;
    if (c.byteLength <= need) {
      taken.push(c);
      have += c.byteLength;
    } else {
      taken.push(c.subarray(0, need));
      have += need;
      return { part: concat(taken, size), rest: [c.subarray(need), ...chunks.slice(i + 1)] };
    }
  }
  return { part: concat(taken, size), rest: chunks.slice(i) };
}

/** The chunk's bytes as they come: a stream (read as it arrives), or bytes the worker already read whole. */
export type ChunkBody = ReadableStream<Uint8Array> | Uint8Array | null;

async function* piecesOf(body: ChunkBody): AsyncGenerator<Uint8Array> {
  if (body === null) return;
  if (body instanceof Uint8Array) {
    yield body;
    return;
  }
  const reader = body.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

export async function appendChunks(a: Assembly, body: ChunkBody, options: AppendOptions): Promise<AppendResult> {
  const partSize = TUS.partBytes;
  let held = a.held;
  let nextPart = a.partsKept.n + 1;
  let offset = a.offset;
  const unkept: KeptPart[] = [];
  const digest = options.checksum ? new crypto.DigestStream(options.checksum.algorithm) : null;
  const digestWriter = digest?.getWriter();
  let received = 0;
  let broken = false;

  // Only the body's own failure (the client went away) ends the loop quietly; R2's and the object's storage's
  // errors propagate (a 5xx), so nothing is kept on the strength of a part R2 did not take.
  const pieces = piecesOf(body);
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await pieces.next();
      } catch {
        broken = true;
        break;
      }
      if (next.done) break;
      const piece = next.value;
      received += piece.byteLength;
      if (a.offset + received > a.length) return { kind: "too_long", length: a.length };
      await digestWriter?.write(piece);
      held = [...held, piece];
      while (byteCount(held) >= partSize) {
        const { part, rest } = takeFirst(held, partSize);
        const uploaded = await a.r2.uploadPart(nextPart, part);
        // With a checksum the part waits for the chunk's digest, without its bytes (they are not kept around).
        unkept.push({ partNumber: nextPart, etag: uploaded.etag, bytes: partSize, ...(digest ? {} : { data: part }) });
        nextPart += 1;
        held = rest;
        if (!digest) offset = a.keep(unkept.splice(0), held);
      }
    }
  } finally {
    await pieces.return(undefined).catch(() => undefined);
  }

  if (digest && digestWriter) {
    if (broken) return { kind: "interrupted", offset: a.offset };
    await digestWriter.close();
    if (!equalBytes(new Uint8Array(await digest.digest), options.checksum!.digest)) return { kind: "checksum_mismatch" };
  }
  offset = a.keep(unkept.splice(0), held);
  if (broken) return { kind: "interrupted", offset };
  if (offset < a.length) return { kind: "appended", offset };
  return { kind: "complete", offset, ...(await finish(a, held, nextPart)) };
}

/** The last part (the held bytes, if any), then R2's completion. Safe to run again after a failure. */
export async function finish(a: Pick<Assembly, "r2" | "keep" | "assemble">, held: Uint8Array[], nextPart: number): Promise<Assembled> {
  if (held.length > 0) {
    const bytes = concat(held, byteCount(held));
    const uploaded = await a.r2.uploadPart(nextPart, bytes);
    a.keep([{ partNumber: nextPart, etag: uploaded.etag, bytes: bytes.byteLength, data: bytes }], []);
  }
  return a.assemble((parts) => a.r2.complete(parts));
}

function equalBytes(x: Uint8Array, y: Uint8Array): boolean {
  if (x.byteLength !== y.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < x.byteLength; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}
