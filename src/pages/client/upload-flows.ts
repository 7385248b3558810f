// The two ways a file reaches storage: one direct PUT below the multipart cutoff, else parallel parts, each
// retried. The numbers are config.ts's (BROWSER_UPLOADS, inlined by esbuild), so the cutoff is the server's
// decimal 5 MB and every part at least R2's minimum.
import { BROWSER_UPLOADS } from "../../config";
import { ApiError, put, uploadApi, type MultipartInit } from "./upload-api";

/** A row of the queue: what it is called, its progress and its status. */
export type Row = { name: string; li: HTMLLIElement; bar: HTMLProgressElement; status: HTMLSpanElement };
/** A file of the queue and its row. */
export type Job = Row & { file: File };
/** The fields chosen on the form, sent with every file. */
export type UploadMeta = { title?: string; description?: string; visibility: "public" | "unlisted" | "private"; expiresIn?: number };
/** What finalize needs from either flow. */
export type Stored = { p: { uploadId: string; fileId: string; storeKey: string }; etag: string };

async function sha256(file: File): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function direct(job: Job, meta: UploadMeta): Promise<Stored> {
  const f = job.file;
  const hash = await sha256(f);
  job.status.textContent = "starting";
  const p = await uploadApi.presign({ filename: f.name, mime: f.type, bytes: f.size, sha256: hash, ...meta });
  job.status.textContent = "uploading";
  const r = await put(p.uploadUrl, f, f.type, (n) => (job.bar.value = Math.round((n / f.size) * 100)));
  return { p, etag: r.etag || "" };
}

const retryable = (err: unknown) => !(err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429);
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function multipart(job: Job, meta: UploadMeta): Promise<Stored> {
  const f = job.file;
  const init: MultipartInit = await uploadApi.multipartInit({ filename: f.name, mime: f.type, totalBytes: f.size, partSize: BROWSER_UPLOADS.partBytes, ...meta });
  const loaded = new Map<number, number>();
  const done: { partNumber: number; etag: string }[] = [];
  const progress = () => {
    let sum = 0;
    for (const n of loaded.values()) sum += n;
    job.bar.value = Math.round((sum / f.size) * 100);
  };
  const sendPart = async (part: MultipartInit["parts"][number], attempt: number): Promise<void> => {
    const start = (part.partNumber - 1) * init.partSize;
    const blob = f.slice(start, Math.min(start + init.partSize, f.size));
    try {
      const r = await put(part.url, blob, "application/octet-stream", (n) => {
        loaded.set(part.partNumber, n);
        progress();
      });
      done.push({ partNumber: part.partNumber, etag: r.body.etag || r.etag || "" });
    } catch (err) {
      // A failed part is sent again (bounded); the parts already stored are kept.
      if (attempt >= BROWSER_UPLOADS.partAttempts || !retryable(err)) throw err;
      loaded.set(part.partNumber, 0);
      job.status.textContent = `retrying part ${part.partNumber}`;
      await wait(500 * attempt);
      return sendPart(part, attempt + 1);
    }
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < init.parts.length) await sendPart(init.parts[next++], 1);
  };
  job.status.textContent = `uploading ${init.partCount} parts`;
  await Promise.all(Array.from({ length: Math.min(BROWSER_UPLOADS.parallelParts, init.parts.length) }, worker));
  done.sort((a, b) => a.partNumber - b.partNumber);
  job.status.textContent = "assembling";
  const c = await uploadApi.multipartComplete({ uploadId: init.uploadId, fileId: init.fileId, storeKey: init.storeKey, parts: done });
  return { p: init, etag: c.storeEtag };
}

/** Stores the file by the flow its size calls for. */
export function store(job: Job, meta: UploadMeta): Promise<Stored> {
  return job.file.size < BROWSER_UPLOADS.multipartFromBytes ? direct(job, meta) : multipart(job, meta);
}

/** The image's size as a hint for finalize (the analysis measures it anyway). */
export async function dimensions(file: File): Promise<{ width?: number; height?: number }> {
  if (!window.createImageBitmap) return {};
  try {
    const b = await createImageBitmap(file);
    const d = { width: b.width, height: b.height };
    b.close();
    return d;
  } catch {
    return {};
  }
}
