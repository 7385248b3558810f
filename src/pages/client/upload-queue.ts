// The rows of an upload queue and their sending, shared by the upload page (upload.ts) and My files
// (files-drop.ts): each file a row with its preview and progress, sent a few at a time by @imghost/client's
// upload (direct below the tus cutoff, over tus from it), then its links (upload-result.ts); a link is fetched by
// the server as one more row.
import { BROWSER_UPLOADS } from "../../config/uploads";
import { el, formatBytes } from "./dom";
import { failureOf, loadApi } from "./api-loader";
import type { Job, Row, UploadMeta } from "./upload-flows";
import { explain, showResult } from "./upload-result";

async function run(job: Job, m: UploadMeta, tags: string[], limitsEl: HTMLElement): Promise<boolean> {
  try {
    const { send } = await loadApi();
    showResult(job, await send(job, m, tags));
    return true;
  } catch (err) {
    explain(job, failureOf(err), limitsEl);
    return false;
  }
}

/** A link is fetched by the server: no bytes pass through the browser, so the bar only says "working". */
async function runLink(row: Row, url: string, m: UploadMeta, tags: string[], limitsEl: HTMLElement): Promise<boolean> {
  try {
    row.bar.removeAttribute("value"); // indeterminate while the server fetches
    row.status.textContent = "fetching";
    const { answerOf, api, call } = await loadApi();
    showResult(row, await answerOf(call(api().raw, "uploads.fromUrl", { body: { url, ...m, ...(tags.length ? { tags } : {}) } })));
    return true;
  } catch (err) {
    explain(row, failureOf(err), limitsEl);
    return false;
  }
}

/** Only images: anything else dropped or pasted (a text file, a folder) is left out. */
export const imagesOf = (list: ArrayLike<File | null>): File[] => Array.from(list).filter((f): f is File => !!f && f.type.indexOf("image/") === 0);

/** A row for each file, appended to the queue, waiting. */
export function fileRows(queueEl: HTMLElement, files: File[]): Job[] {
  return files.map((f) => {
    const li = el("li", { class: "item" });
    const preview = el("img", { class: "preview", alt: `Preview of ${f.name}` });
    preview.src = URL.createObjectURL(f);
    li.appendChild(preview);
    li.appendChild(el("span", { class: "name" }, `${f.name} (${formatBytes(f.size)})`));
    const bar = el("progress", { max: "100", value: "0", "aria-label": `Upload progress of ${f.name}` });
    li.appendChild(bar);
    const status = el("span", { class: "status", role: "status" }, "waiting");
    li.appendChild(status);
    queueEl.appendChild(li);
    return { file: f, name: f.name, li, bar, status };
  });
}

export function linkRow(queueEl: HTMLElement, url: string): Row {
  const li = el("li", { class: "item" });
  li.appendChild(el("span", { class: "name" }, url));
  const bar = el("progress", { max: "100", value: "0", "aria-label": `Upload progress of ${url}` });
  li.appendChild(bar);
  const status = el("span", { class: "status", role: "status" }, "waiting");
  li.appendChild(status);
  queueEl.appendChild(li);
  return { name: url, li, bar, status };
}

export type Sending = { jobs: Job[]; link?: { row: Row; url: string }; meta: UploadMeta; tags: string[]; limitsEl: HTMLElement };

/** Sends the rows, BROWSER_UPLOADS.parallelFiles at a time (the link beside them); answers how many succeeded. */
export async function send(s: Sending): Promise<number> {
  try {
    await (await loadApi()).getToken();
  } catch (err) {
    s.limitsEl.textContent = (err as Error).message;
    return 0;
  }
  let i = 0;
  let ok = 0;
  const lane = async (): Promise<void> => {
    while (i < s.jobs.length) if (await run(s.jobs[i++], s.meta, s.tags, s.limitsEl)) ok++;
  };
  const fetching = s.link ? [runLink(s.link.row, s.link.url, s.meta, s.tags, s.limitsEl).then((done) => void (done && ok++))] : [];
  await Promise.all([...fetching, ...Array.from({ length: BROWSER_UPLOADS.parallelFiles }, lane)]);
  return ok;
}
