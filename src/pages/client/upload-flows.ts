// A queued file and how it is sent: @imghost/client's upload(), the repository's one uploader. Below
// BROWSER_UPLOADS.tusFromBytes (config/uploads.ts, inlined by esbuild: the decimal 5 MB the page states) presign,
// PUT, finalize; from there tus, resumable after a reload (docs/web-app.md). The metadata travels with the upload, so
// no call follows finalize; the bytes go through XMLHttpRequest (api.ts), whose progress moves the row's bar.
import { BROWSER_UPLOADS } from "../../config/uploads";
import { api, resumeStore, type Finalized } from "./api";

/** A row of the queue: what it is called, its progress and its status. */
export type Row = { name: string; li: HTMLLIElement; bar: HTMLProgressElement; status: HTMLSpanElement };
/** A file of the queue and its row. */
export type Job = Row & { file: File };
/** The fields chosen on the form, sent with every file. */
export type UploadMeta = { title?: string; description?: string; visibility: "public" | "unlisted" | "private"; expiresIn?: number };

/** Sends the job's file, direct or over tus by its size; answers finalize's body. */
export async function send(job: Job, meta: UploadMeta, tags: string[]): Promise<Finalized> {
  const size = job.file.size;
  let shown = 0;
  const show = (sent: number) => {
    const percent = Math.min(100, Math.round((sent / size) * 100));
    if (percent > shown) job.bar.value = shown = percent;
  };
  // A chunk's bytes count from where it starts (its Upload-Offset); a direct PUT starts at 0.
  const client = api({ onSent: (loaded, headers) => show(Number(headers.get("upload-offset") ?? 0) + loaded), retry: BROWSER_UPLOADS.uploadRetry });
  job.status.textContent = size >= BROWSER_UPLOADS.tusFromBytes ? "uploading" : "starting";
  return client.upload(job.file, {
    ...meta,
    ...(tags.length ? { tags } : {}),
    tusFromBytes: BROWSER_UPLOADS.tusFromBytes,
    chunkBytes: BROWSER_UPLOADS.tusChunkBytes,
    resume: { store: resumeStore },
    onProgress: ({ sentBytes }) => {
      // The first report of a resumed upload is the server's offset, before any byte is sent.
      const resumed = shown === 0 && sentBytes > 0 && sentBytes < size;
      show(sentBytes);
      job.status.textContent = sentBytes >= size ? "finalizing" : resumed ? "resuming" : "uploading";
    },
    onRetry: ({ attempt, of }) => (job.status.textContent = `retrying (${attempt} of ${of})`),
  });
}
