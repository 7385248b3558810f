// A PATCH's chunk as the service reads it: its body (streamed, or read whole when small), and whether it has bytes.
import { TUS } from "../../config/uploads";
import { ApiError } from "../../platform/errors/errors";
import type { AppendOptions } from "./assembly";

export type Chunk = { body: ReadableStream<Uint8Array> | null; options: AppendOptions };

/**
 * A chunk of known, moderate size is read whole here and handed to the upload's object as bytes: one copy, where a
 * stream would cross to the object piece by piece (the common case: clients send 5 MiB chunks, one part each).
 * Larger or unsized chunks stream, and what of them arrives is kept even if they break off.
 */
export async function bodyToSend(chunk: Chunk): Promise<ReadableStream<Uint8Array> | Uint8Array | null> {
  const { body, options } = chunk;
  if (body === null || options.declaredBytes === null || options.declaredBytes > TUS.wholeChunkBytes) return body;
  try {
    return new Uint8Array(await new Response(body).arrayBuffer());
  } catch {
    throw new ApiError("incomplete_body", "The request body ended early");
  }
}

/** Whether a chunk holds any byte, read no further than its first piece; the rest is dropped unread. */
export async function hasBytes({ body, options }: Chunk): Promise<boolean> {
  if (body === null) return false;
  if (options.declaredBytes !== null) {
    await body.cancel().catch(() => undefined);
    return options.declaredBytes > 0;
  }
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      if (value.byteLength > 0) return true;
    }
  } catch {
    return false; // a body that broke off carried nothing we keep
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
