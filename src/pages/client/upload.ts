// The upload page: picker, drag and drop and paste fill a queue with previews; Upload sends them two at a time,
// each with its progress bar, then shows its links (upload-result.ts). A pasted link is fetched by the server
// (POST /upload/url) as one more row. Without JavaScript the form posts instead.
import { BROWSER_UPLOADS } from "../../config/uploads";
import { el, formatBytes } from "./dom";
import { failureOf, loadApi } from "./api-loader";
import type { Job, Row, UploadMeta } from "./upload-flows";
import { explain, showResult } from "./upload-result";

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

async function run(job: Job, m: UploadMeta, tags: string[], limitsEl: HTMLElement): Promise<void> {
  try {
    const { send } = await loadApi();
    showResult(job, await send(job, m, tags));
  } catch (err) {
    explain(job, failureOf(err), limitsEl);
  }
}

/** A link is fetched by the server: no bytes pass through the browser, so the bar only says "working". */
async function runLink(row: Row, url: string, m: UploadMeta, tags: string[], limitsEl: HTMLElement): Promise<void> {
  try {
    row.bar.removeAttribute("value"); // indeterminate while the server fetches
    row.status.textContent = "fetching";
    const { answerOf, api } = await loadApi();
    showResult(row, await answerOf(api().raw.POST("/upload/url", { body: { url, ...m, ...(tags.length ? { tags } : {}) } })));
  } catch (err) {
    explain(row, failureOf(err), limitsEl);
  }
}

const looksLikeLink = (text: string) => /^https?:\/\/\S+$/i.test(text.trim());

function linkRow(url: string): Row {
  const li = el("li", { class: "item" });
  li.appendChild(el("span", { class: "name" }, url));
  const bar = el("progress", { max: "100", value: "0", "aria-label": `Upload progress of ${url}` });
  li.appendChild(bar);
  const status = el("span", { class: "status", role: "status" }, "waiting");
  li.appendChild(status);
  return { name: url, li, bar, status };
}

export function initUpload(): void {
  const form = document.getElementById("upload-form") as UploadForm | null;
  const input = document.getElementById("files") as HTMLInputElement | null;
  const drop = document.getElementById("drop");
  const queueEl = document.getElementById("queue");
  const limitsEl = document.getElementById("limits-msg");
  if (!form || !input || !drop || !queueEl || !limitsEl) return;
  void loadApi().catch(() => undefined); // fetched while files are picked: the first upload does not wait for it
  const picked = document.getElementById("picked");
  const pending: Job[] = [];
  const countPicked = () => {
    if (picked) picked.textContent = pending.length === 0 ? "" : pending.length === 1 ? "1 image ready" : `${pending.length} images ready`;
  };

  const addFiles = (list: ArrayLike<File | null>) => {
    for (const f of Array.from(list)) {
      if (!f || !f.type || f.type.indexOf("image/") !== 0) continue;
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
      pending.push({ file: f, name: f.name, li, bar, status });
    }
    countPicked();
  };

  input.addEventListener("change", () => addFiles(input.files ?? []));
  drop.addEventListener("click", (e) => {
    if (e.target === drop || (e.target instanceof Element && e.target.tagName === "P")) input.click();
  });
  for (const t of ["dragenter", "dragover"]) {
    drop.addEventListener(t, (e) => {
      e.preventDefault();
      drop.classList.add("over");
    });
  }
  for (const t of ["dragleave", "drop"]) drop.addEventListener(t, () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    addFiles(e.dataTransfer?.files ?? []);
  });
  document.addEventListener("paste", (e) => {
    const files = Array.from(e.clipboardData?.items ?? [])
      .filter((item) => item.kind === "file")
      .map((item) => item.getAsFile());
    if (files.length) {
      addFiles(files);
      return;
    }
    // A link pasted anywhere but in a text field goes to the link field.
    const text = e.clipboardData?.getData("text/plain") ?? "";
    const target = e.target instanceof HTMLElement ? e.target : null;
    if (looksLikeLink(text) && !target?.closest("input, textarea, select")) {
      e.preventDefault();
      form.link.value = text.trim();
      form.link.focus();
    }
  });

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const jobs = pending.splice(0);
    countPicked();
    const link = form.link.value.trim();
    if (!jobs.length && !link) {
      limitsEl.textContent = "Choose, drop or paste some images (or a link to one) first.";
      return;
    }
    limitsEl.textContent = "";
    const m = meta(form);
    const tags = tagsOf(form);
    const linkJob = link ? linkRow(link) : null;
    if (linkJob) {
      queueEl.appendChild(linkJob.li);
      form.link.value = "";
    }
    loadApi()
      .then(({ getToken }) => getToken())
      .then(() => {
        // A few files at a time.
        let i = 0;
        const lane = async (): Promise<void> => {
          while (i < jobs.length) await run(jobs[i++], m, tags, limitsEl);
        };
        const fetching = linkJob ? [runLink(linkJob, link, m, tags, limitsEl)] : [];
        return Promise.all([...fetching, ...Array.from({ length: BROWSER_UPLOADS.parallelFiles }, lane)]);
      })
      .catch((err: Error) => (limitsEl.textContent = err.message));
  });
}
