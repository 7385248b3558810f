// upload(): opens the input, settles the file name and type, and sends it direct or over tus by its size.
import { directUpload } from "./direct.js";
import { extensionOf, mimeFromName, sniffMime } from "./mime.js";
import { openInput, type ByteSource, type PathOpener, type UploadInput } from "./source.js";
import { type Transport } from "./transport.js";
import { tusUpload } from "./tus.js";
import { fileKey } from "./resume.js";
import type { FinalizeResponse, UploadOptions } from "./types.js";
import type { UploadJob } from "./job.js";

export type { UploadJob };

export const DEFAULT_TUS_FROM_BYTES = 5_000_000;
/** The buffer bound for a stream of unknown size when the server does not say its limit (the direct upload's maximum). */
const FALLBACK_BUFFER_LIMIT = 100 * 1000 * 1000;


/** The plan's file size limit as tus announces it (Tus-Max-Size), for buffering a stream of unknown size. */
async function planFileLimit(t: Transport, signal?: AbortSignal): Promise<number> {
  const res = await t.send("OPTIONS /upload/tus", t.url("/upload/tus"), () => ({ method: "OPTIONS", headers: t.headers({ "tus-resumable": "1.0.0" }) }), signal);
  await res.arrayBuffer().catch(() => undefined);
  const limit = Number(res.headers.get("tus-max-size"));
  return res.ok && Number.isSafeInteger(limit) && limit > 0 ? limit : FALLBACK_BUFFER_LIMIT;
}

export async function upload(t: Transport, input: UploadInput, options: UploadOptions, openPath?: PathOpener): Promise<FinalizeResponse> {
  const { signal } = options;
  const opened = await openInput(input, options.size, { openPath, bufferLimit: () => planFileLimit(t, signal) });
  try {
    const { source } = opened;
    if (source.size === 0) throw new TypeError("upload(): the input is empty");
    const named = options.filename ?? opened.name;
    const mime =
      options.mime ??
      (opened.type?.startsWith("image/") ? opened.type : null) ??
      (named ? mimeFromName(named) : null) ??
      sniffMime(await source.read(0, Math.min(source.size, 32))) ??
      // The server answers 415 with the list of types it takes.
      "application/octet-stream";
    let sent = 0;
    const filename = named ?? `upload.${extensionOf(mime)}`;
    const job: UploadJob = {
      source,
      filename,
      mime,
      options,
      resumeKey: options.resume ? (options.resume.key ?? fileKey(input, filename, mime, source.size)) : undefined,
      signal,
      progress(sentBytes) {
        if (sentBytes < sent) return;
        sent = sentBytes;
        options.onProgress?.({ sentBytes, totalBytes: source.size });
      },
    };
    const tusFrom = options.tusFromBytes ?? DEFAULT_TUS_FROM_BYTES;
    return await (source.size >= tusFrom ? tusUpload(t, job) : directUpload(t, job));
  } finally {
    await opened.source.close();
  }
}
