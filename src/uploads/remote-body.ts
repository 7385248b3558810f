// The body of a fetched image as an upload from a URL reads it: every read bounded by the deadline, every byte
// counted against a cap, and when it stops early, why (too large, too slow, broken off). The remote's
// Content-Length is only a claim: the count is what decides.
import type { Deadline } from "./remote-fetch";
import { readHead, type Head } from "./streams";

export type BodyFailure = "too_large" | "timeout" | "broken";

export class RemoteBody {
  /** Why the body stopped before its end, once it did. */
  failure: BodyFailure | null = null;
  /** Bytes read so far. */
  received = 0;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly cap: number,
    private readonly deadline: Deadline,
  ) {
    this.reader = body.getReader();
  }

  /** A reader's read(). Past the cap or the deadline, or when the body breaks, it throws. */
  async read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    if (this.failure) throw new Error(`the remote body stopped: ${this.failure}`);
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await this.deadline.within(this.reader.read());
    } catch (err) {
      this.stop(this.deadline.passed ? "timeout" : "broken");
      throw err;
    }
    if (next.done) return next;
    this.received += next.value.byteLength;
    if (this.received > this.cap) {
      this.stop("too_large"); // cut off: nothing past the cap is read
      throw new Error(`the remote body is over ${this.cap} bytes`);
    }
    return next;
  }

  /** The first `want` bytes (fewer when the body is shorter), its chunks kept whole for re-use. */
  head(want: number): Promise<Head> {
    return readHead(this, want);
  }

  /**
   * The rest of the body into memory, after `head`: its chunks as they came (never joined, so the bytes are held
   * once), bounded by the cap.
   */
  async readToEnd(head: Head): Promise<Head> {
    const chunks = [...head.chunks];
    if (!head.done) for (let next = await this.read(); !next.done; next = await this.read()) chunks.push(next.value);
    return { chunks, bytes: head.bytes, done: true };
  }

  /** `head`'s chunks, then the rest as it comes: the body again, for the verified store to stream. */
  stream(head: Head): ReadableStream<Uint8Array> {
    let next = 0;
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const chunk = next < head.chunks.length ? head.chunks[next++] : head.done ? undefined : (await this.read()).value;
          if (chunk === undefined) controller.close();
          else controller.enqueue(chunk);
        },
        // the store stopped reading (a wrong length, a failed put): its own answer says why
        cancel: () => this.release(),
      },
      { highWaterMark: 0 },
    );
  }

  /** Stops reading for `why` (the first reason given is kept) and lets the connection go. */
  stop(why: BodyFailure): void {
    this.failure ??= why;
    this.release();
  }

  /** Lets the connection go. */
  release(): void {
    this.reader.cancel().catch(() => undefined);
  }
}
