// Files dragged anywhere over a page that takes them (the upload page, My files) and images pasted anywhere on
// it: the whole window is the drop zone while files are over it (body.dragging shows the overlay), and the files
// go to `take`. Text pasted into a field stays the field's.

/** Whether a drag carries files (a dragged link or text selection does not). */
const carriesFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes("Files");

export function dropAnywhere(take: (files: File[]) => void, onPasteText?: (text: string, e: ClipboardEvent) => void): void {
  let depth = 0; // dragenter and dragleave fire for every element crossed: the overlay goes when the count is back to 0
  const done = () => {
    depth = 0;
    document.body.classList.remove("dragging");
  };
  document.addEventListener("dragenter", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    depth++;
    document.body.classList.add("dragging");
  });
  document.addEventListener("dragover", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault(); // else the browser opens the dropped file in place of the page
    if (e.dataTransfer) e.dataTransfer.dropEffect = "copy";
  });
  document.addEventListener("dragleave", (e) => {
    if (!carriesFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (depth === 0) done();
  });
  document.addEventListener("drop", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    done();
    const files = Array.from(e.dataTransfer?.files ?? []);
    if (files.length) take(files);
  });
  document.addEventListener("paste", (e) => {
    const files = Array.from(e.clipboardData?.items ?? [])
      .filter((item) => item.kind === "file")
      .map((item) => item.getAsFile())
      .filter((f): f is File => f !== null);
    if (files.length) {
      e.preventDefault();
      take(files);
      return;
    }
    onPasteText?.(e.clipboardData?.getData("text/plain") ?? "", e);
  });
}
