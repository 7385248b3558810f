// My files takes images too: dropped anywhere on the page or pasted, they are uploaded at once (with the
// visibility chosen in the page's drop line) into a queue above the grid, which then offers to show the list
// again with them in it.
import { el } from "./dom";
import { dropAnywhere } from "./drop-anywhere";
import type { UploadMeta } from "./upload-flows";
import { fileRows, imagesOf, send } from "./upload-queue";

export function initFilesDrop(): void {
  const zone = document.getElementById("files-drop");
  const queueEl = document.getElementById("drop-queue");
  const limitsEl = document.getElementById("drop-msg");
  const visibility = document.getElementById("drop-visibility") as HTMLSelectElement | null;
  if (!zone || !queueEl || !limitsEl || !visibility) return;
  const doneEl = el("p", { class: "notice ok", role: "status", hidden: "" });
  queueEl.after(doneEl);
  let sent = 0;
  dropAnywhere((files) => {
    const jobs = fileRows(queueEl, imagesOf(files));
    if (!jobs.length) return;
    limitsEl.textContent = "";
    const meta: UploadMeta = { visibility: visibility.value as UploadMeta["visibility"] };
    void send({ jobs, meta, tags: [], limitsEl }).then((ok) => {
      sent += ok;
      if (sent === 0) return;
      doneEl.textContent = `${sent === 1 ? "1 image" : `${sent} images`} uploaded. `;
      doneEl.appendChild(el("a", { href: location.pathname + location.search }, "Show the list with them"));
      doneEl.hidden = false;
    });
  });
}
