// What a row of the upload queue shows at the end: the stored thumbnail, the share links with Copy buttons, the
// analysis and any duplicates; or why the upload failed, with the plan's limits for the refusals a person can act on.
import { UPLOADS } from "../../config/uploads";
import { el, formatBytes } from "./dom";
import { nsfwWords } from "../nsfw-words";
import type { Finalized } from "./api";
import { loadApi } from "./api-loader";
import type { Row } from "./upload-flows";

let copyId = 0;

// The same words as the no-JavaScript results page (src/pages/app/upload-result.tsx).
function analysisSummary(fin: Finalized): string {
  if (fin.analysis === "failed") return `Not analysed: ${fin.analysisError || "the image could not be read"}.`;
  if (fin.analysis !== "done") return "Still being analysed: its page shows the result in a moment.";
  const parts = [`Analysed: ${fin.width} × ${fin.height}`];
  const nsfw = nsfwWords(fin);
  if (nsfw) parts.push(`NSFW: ${nsfw}`);
  const n = (fin.duplicates || []).length;
  parts.push(n === 0 ? "no duplicates among your files" : n === 1 ? "1 duplicate among your files" : `${n} duplicates among your files`);
  return `${parts.join(" · ")}.`;
}

/**
 * The row's preview becomes the stored thumbnail, through the web app (/app/files/<id>/preview sends the browser
 * on to an owner link): a private file's plain link is 404 to the browser, and {image_url} may be another host.
 */
function showThumbnail(job: Row, fileId: string): void {
  let img = job.li.querySelector<HTMLImageElement>("img.preview");
  if (!img) {
    img = el("img", { class: "preview", alt: `Preview of ${job.name}` });
    job.li.insertBefore(img, job.li.firstChild);
  }
  const picked = img.src.startsWith("blob:") ? img.src : null;
  img.src = `/app/files/${encodeURIComponent(fileId)}/preview`;
  if (picked) URL.revokeObjectURL(picked);
}

export function showResult(job: Row, fin: Finalized): void {
  job.bar.value = 100;
  job.status.textContent = "done";
  showThumbnail(job, fin.fileId);
  const links = el("div", { class: "links" });
  const name = job.name.replace(/[[\]"<>]/g, "");
  const rows: [string, string][] = [
    ["Page", `${location.origin}/f/${fin.fileId}`],
    ["Direct", fin.url],
    ["Markdown", `![${name}](${fin.url})`],
    ["BBCode", `[img]${fin.url}[/img]`],
  ];
  for (const [label, value] of rows) {
    const id = `link-${++copyId}`;
    const wrap = el("div", { class: "link" });
    wrap.appendChild(el("label", { for: id }, label));
    wrap.appendChild(el("input", { id, readonly: "", value }));
    wrap.appendChild(el("button", { type: "button", class: "small", "data-copy": `#${id}`, "aria-label": `Copy ${label} of ${job.name}` }, "Copy"));
    links.appendChild(wrap);
  }
  job.li.appendChild(links);
  if (fin.visibility === "private") job.li.appendChild(el("p", { class: "muted" }, "Private: its links answer “Not found” to everyone but you."));
  job.li.appendChild(el("p", { class: "muted analysis" }, analysisSummary(fin)));
  for (const d of fin.duplicates || []) {
    const p = el("p", { class: "muted" }, d.match === "exact" ? "Identical to " : d.signal === "embedding" ? "Similar (cropped or turned) to " : `Similar to (distance ${d.distance}) `);
    p.appendChild(el("a", { href: `/f/${d.fileId}` }, d.fileId));
    job.li.appendChild(p);
  }
}

/** The accepted types as people know them: "JPEG, PNG, GIF, WebP, AVIF, BMP". */
const ACCEPTED = UPLOADS.mimeTypes.map((m) => ({ jpeg: "JPEG", png: "PNG", gif: "GIF", webp: "WebP", avif: "AVIF", bmp: "BMP" })[m.slice(6)] ?? m).join(", ");

const WHY: Record<number, string> = {
  413: "This file is larger than your plan allows.",
  402: "Your storage quota is full.",
  415: `This file type is not accepted (${ACCEPTED}).`,
  429: "Too many uploads right now: wait a little and retry.",
};

export function explain(job: Row, err: { status: number; message: string }, limitsEl: HTMLElement): void {
  job.li.classList.add("failed");
  // A link's bar is indeterminate while the server fetches: it must not go on moving once the row failed.
  if (!job.bar.hasAttribute("value")) job.bar.value = 0;
  job.status.textContent = `failed: ${err.message}`;
  const why = WHY[err.status];
  if (!why) return;
  loadApi()
    .then(({ answerOf, api, call }) => answerOf(call(api().raw, "account.limits")))
    .then((l) => {
      const left = l.rateLimits.uploads.remaining !== null ? `; ${l.rateLimits.uploads.remaining} uploads left in this window.` : ".";
      limitsEl.textContent = `${why} Plan ${l.plan}: files up to ${formatBytes(l.maxFileBytes)}; ${formatBytes(l.quota.remaining)} of ${formatBytes(l.quota.total)} storage left${left}`;
    })
    .catch(() => {});
}
