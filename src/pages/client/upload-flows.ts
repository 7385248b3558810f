// A queued file and the small files' flow: presign, one direct PUT, finalize. Files from
// BROWSER_UPLOADS.tusFromBytes (config/uploads.ts, inlined by esbuild: the decimal 5 MB the page states) go over tus
// instead, resumable across reloads (upload-tus.ts); upload.ts picks.
import { put, uploadApi, type Finalized } from "./upload-api";

/** A row of the queue: what it is called, its progress and its status. */
export type Row = { name: string; li: HTMLLIElement; bar: HTMLProgressElement; status: HTMLSpanElement };
/** A file of the queue and its row. */
export type Job = Row & { file: File };
/** The fields chosen on the form, sent with every file. */
export type UploadMeta = { title?: string; description?: string; visibility: "public" | "unlisted" | "private"; expiresIn?: number };

async function sha256(file: File): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The image's size as a hint for finalize (the analysis measures it anyway). */
async function dimensions(file: File): Promise<{ width?: number; height?: number }> {
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

/** presign, one PUT, finalize; tags go on the file afterwards (presign takes none). Answers finalize's body. */
export async function sendDirect(job: Job, meta: UploadMeta, tags: string[]): Promise<Finalized> {
  const f = job.file;
  const hash = await sha256(f);
  job.status.textContent = "starting";
  const p = await uploadApi.presign({ filename: f.name, mime: f.type, bytes: f.size, sha256: hash, ...meta });
  job.status.textContent = "uploading";
  const r = await put(p.uploadUrl, f, f.type, (n) => (job.bar.value = Math.round((n / f.size) * 100)));
  const d = await dimensions(f);
  job.status.textContent = "finalizing";
  const fin = await uploadApi.finalize({ uploadId: p.uploadId, fileId: p.fileId, storeKey: p.storeKey, storeEtag: r.etag || "", ...d });
  if (tags.length) await uploadApi.patchFile(fin.fileId, { tags });
  return fin;
}
