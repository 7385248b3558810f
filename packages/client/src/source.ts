// An upload's input as bytes to read by range: a Blob, bytes, a stream, or (through the Node entry) a file path.
// Random-access inputs are read where asked; a stream is read forward only, keeping just the bytes of the range
// being sent, which is all a resumed tus upload can need again (the server never loses an offset it answered).
import { ImghostError } from "./errors.js";

/** A file path (Node only), a Blob or File, bytes (a Buffer is a Uint8Array), a web stream, or any async iterable of bytes such as a Node Readable. */
export type UploadInput = string | Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface ByteSource {
  readonly size: number;
  /** Bytes [start, end). A stream's source reads forward: `start` is never before the previous read's start. */
  read(start: number, end: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** What an input is once opened: its bytes, and the name and type it came with, if any. */
export type OpenedInput = { source: ByteSource; name?: string; type?: string };

/** Opens a file path: the Node entry provides one; elsewhere a path is refused. */
export type PathOpener = (path: string) => Promise<OpenedInput>;

export type OpenContext = {
  openPath?: PathOpener;
  /** The most bytes a stream of unknown size may be buffered to (asked of the server only when needed). */
  bufferLimit: () => Promise<number>;
};

export function bytesSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.byteLength, read: async (start, end) => bytes.subarray(start, end), close: async () => undefined };
}

function blobSource(blob: Blob): ByteSource {
  return { size: blob.size, read: async (start, end) => new Uint8Array(await blob.slice(start, end).arrayBuffer()), close: async () => undefined };
}

async function* readerChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Stops the stream when the upload ends early (an error or an abort), and lets it go when it ended.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

const encoder = new TextEncoder();
const asBytes = (chunk: unknown): Uint8Array =>
  chunk instanceof Uint8Array ? chunk
  : typeof chunk === "string" ? encoder.encode(chunk)
  : ArrayBuffer.isView(chunk) ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength)
  : chunk instanceof ArrayBuffer ? new Uint8Array(chunk)
  : (() => {
      throw new TypeError(`a stream given to upload() must yield bytes, not ${typeof chunk}`);
    })();

function concat(pieces: Uint8Array[], length: number): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** A stream of a known size, read forward. */
class StreamSource implements ByteSource {
  private pieces: Uint8Array[] = [];
  private held = 0; // bytes in `pieces`
  private heldFrom = 0; // the offset of pieces[0]'s first byte
  private ended = false;

  constructor(
    private readonly chunks: AsyncIterator<unknown>,
    readonly size: number,
  ) {}

  async read(start: number, end: number): Promise<Uint8Array> {
    if (start < this.heldFrom) throw new Error(`a stream cannot be read again from byte ${start} (it is at ${this.heldFrom})`);
    while (this.heldFrom + this.held < end && !this.ended) await this.pull();
    if (this.heldFrom + this.held < end) throw new Error(`the stream ended after ${this.heldFrom + this.held} bytes, before the ${this.size} given as options.size`);
    // A stream longer than its size would be cut short without a word: look past the end before the last bytes go.
    if (end >= this.size) await this.expectEnd();
    const all = concat(this.pieces, this.held);
    const kept = all.subarray(start - this.heldFrom);
    this.pieces = [kept];
    this.held = kept.byteLength;
    this.heldFrom = start;
    return kept.subarray(0, end - start);
  }

  private async pull() {
    const next = await this.chunks.next();
    if (next.done) {
      this.ended = true;
      return;
    }
    const bytes = asBytes(next.value);
    this.pieces.push(bytes);
    this.held += bytes.byteLength;
  }

  private async expectEnd() {
    while (!this.ended) {
      const before = this.heldFrom + this.held;
      await this.pull();
      if (this.heldFrom + this.held > this.size) throw new Error(`the stream has more bytes than the ${this.size} given as options.size (at least ${this.heldFrom + this.held}, ${before} before the last piece)`);
    }
  }

  async close() {
    if (!this.ended) await this.chunks.return?.();
  }
}

/** A stream of unknown size, read into memory up to `limit` bytes. */
async function buffered(chunks: AsyncIterator<unknown>, limit: number): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  let length = 0;
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
    const bytes = asBytes(next.value);
    pieces.push(bytes);
    length += bytes.byteLength;
    if (length > limit) {
      await chunks.return?.();
      throw new ImghostError({ status: 413, code: "file_too_large", message: `The stream is over the ${limit} bytes your plan allows for a file (pass options.size to stream it without buffering)`, details: { limit } });
    }
  }
  return concat(pieces, length);
}

const isAsyncIterable = (v: object): v is AsyncIterable<unknown> => Symbol.asyncIterator in v;
const isWebStream = (v: object): v is ReadableStream<Uint8Array> => typeof (v as ReadableStream).getReader === "function";

/** The last part of a path, with either separator (a Node ReadStream keeps the path it was opened with). */
const baseName = (p: string) => p.split(/[\\/]/).pop() || undefined;

export async function openInput(input: UploadInput, size: number | undefined, ctx: OpenContext): Promise<OpenedInput> {
  if (typeof input === "string") {
    if (!ctx.openPath) throw new TypeError("upload(): a file path works in Node only; pass a Blob, bytes or a stream here");
    return ctx.openPath(input);
  }
  if (typeof Blob !== "undefined" && input instanceof Blob) {
    const name = typeof (input as File).name === "string" && (input as File).name ? (input as File).name : undefined;
    return { source: blobSource(input), name, type: input.type || undefined };
  }
  if (input instanceof ArrayBuffer) return { source: bytesSource(new Uint8Array(input)) };
  if (ArrayBuffer.isView(input)) return { source: bytesSource(asBytes(input)) };
  if (typeof input !== "object" || input === null) throw new TypeError(`upload(): unsupported input ${typeof input}`);
  const chunks = isWebStream(input) ? readerChunks(input) : isAsyncIterable(input) ? input[Symbol.asyncIterator]() : null;
  if (!chunks) throw new TypeError("upload(): the input is not a path, a Blob, bytes or a stream");
  const path = (input as { path?: unknown }).path;
  const name = typeof path === "string" ? baseName(path) : undefined;
  if (size !== undefined) {
    if (!Number.isSafeInteger(size) || size <= 0) throw new TypeError(`upload(): options.size must be a positive whole number of bytes, not ${size}`);
    return { source: new StreamSource(chunks, size), name };
  }
  return { source: bytesSource(await buffered(chunks, await ctx.bufferLimit())), name };
}
