// Copy buttons everywhere: `data-copy` names the field (an id, or a selector starting with #) or
// `data-copy-text` carries the text itself. The Clipboard API first, else select and execCommand.

function copyByCommand(field: Element | null): boolean {
  if (!(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement)) return false;
  field.select();
  document.execCommand("copy");
  return true;
}

export function initCopyButtons(): void {
  document.addEventListener("click", (e) => {
    const btn = e.target instanceof Element ? e.target.closest("[data-copy]") : null;
    if (!btn) return;
    const target = btn.getAttribute("data-copy") ?? "";
    const field = target.charAt(0) === "#" ? document.querySelector(target) : document.getElementById(target);
    const value = field && "value" in field && typeof field.value === "string" ? field.value : field?.textContent ?? "";
    const text = btn.getAttribute("data-copy-text") || value;
    const label = btn.textContent;
    const done = () => {
      btn.textContent = "Copied";
      setTimeout(() => (btn.textContent = label), 1500);
    };
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, () => copyByCommand(field) && done());
    else if (copyByCommand(field)) done();
  });
}
