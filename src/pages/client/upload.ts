// The upload page: images dropped anywhere on the page or pasted start at once, with the form's options; picked
// ones wait in the queue for Upload (so the options can be set after picking). Each row shows its preview and
// progress, then its links (upload-queue.ts). A pasted link is fetched by the server (POST /upload/url) as one more
// row. Without JavaScript the form posts instead.
import { dropAnywhere } from "./drop-anywhere";
import type { Job, UploadMeta } from "./upload-flows";
import { fileRows, imagesOf, linkRow, send } from "./upload-queue";

type UploadForm = HTMLFormElement & {
  link: HTMLInputElement;
  title: HTMLInputElement;
  description: HTMLTextAreaElement;
  tags: HTMLInputElement;
  visibility: HTMLSelectElement;
  expiry: HTMLSelectElement;
};

function meta(form: UploadForm): UploadMeta {
  const m: UploadMeta = { visibility: form.visibility.value as UploadMeta["visibility"] };
  const title = form.title.value.trim();
  const description = form.description.value.trim();
  if (title) m.title = title;
  if (description) m.description = description;
  if (form.expiry.value) m.expiresIn = Number(form.expiry.value);
  return m;
}

const tagsOf = (form: UploadForm) =>
  form.tags.value
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);

const looksLikeLink = (text: string) => /^https?:\/\/\S+$/i.test(text.trim());

export function initUpload(): void {
  const form = document.getElementById("upload-form") as UploadForm | null;
  const input = document.getElementById("files") as HTMLInputElement | null;
  const drop = document.getElementById("drop");
  const queueEl = document.getElementById("queue");
  const limitsEl = document.getElementById("limits-msg");
  if (!form || !input || !drop || !queueEl || !limitsEl) return;
  const picked = document.getElementById("picked");
  const pending: Job[] = [];
  const countPicked = () => {
    if (picked) picked.textContent = pending.length === 0 ? "" : pending.length === 1 ? "1 image ready" : `${pending.length} images ready`;
  };
  const sendNow = (jobs: Job[], link?: { row: ReturnType<typeof linkRow>; url: string }) => {
    limitsEl.textContent = "";
    void send({ jobs, link, meta: meta(form), tags: tagsOf(form), limitsEl });
  };

  input.addEventListener("change", () => {
    pending.push(...fileRows(queueEl, imagesOf(input.files ?? [])));
    countPicked();
  });
  drop.addEventListener("click", (e) => {
    if (e.target === drop || (e.target instanceof Element && e.target.tagName === "P")) input.click();
  });
  // Dropped or pasted: sent at once, with the options as they are now.
  dropAnywhere(
    (files) => {
      const jobs = fileRows(queueEl, imagesOf(files));
      if (jobs.length) sendNow(jobs);
    },
    (text, e) => {
      // A link pasted anywhere but in a text field goes to the link field.
      const target = e.target instanceof HTMLElement ? e.target : null;
      if (looksLikeLink(text) && !target?.closest("input, textarea, select")) {
        e.preventDefault();
        form.link.value = text.trim();
        form.link.focus();
      }
    },
  );

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const jobs = pending.splice(0);
    countPicked();
    const url = form.link.value.trim();
    if (!jobs.length && !url) {
      limitsEl.textContent = "Choose, drop or paste some images (or a link to one) first.";
      return;
    }
    const link = url ? { row: linkRow(queueEl, url), url } : undefined;
    if (link) form.link.value = "";
    sendNow(jobs, link);
  });
}
