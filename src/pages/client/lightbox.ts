// A keyboard lightbox (arrows, Escape) over the [data-lightbox] links of a page: the public album's gallery, and
// the file page's one image (which, without the script, opens the original).

export function initLightbox(): void {
  const gallery = document.querySelector("[data-lightbox]");
  const box = document.getElementById("lightbox");
  if (!gallery || !window.HTMLDialogElement || !(box instanceof HTMLDialogElement)) return;
  const links = Array.from(gallery.querySelectorAll<HTMLAnchorElement>("a[data-full]"));
  const img = box.querySelector("img");
  const caption = box.querySelector(".caption");
  const open = box.querySelector<HTMLAnchorElement>(".open");
  if (!img || !caption || !open || links.length === 0) return;
  let at = 0;
  const show = (i: number) => {
    at = (i + links.length) % links.length;
    const a = links[at];
    const title = a.getAttribute("data-title") || "";
    img.src = a.getAttribute("data-full") ?? "";
    img.alt = title;
    caption.textContent = links.length > 1 ? `${title} (${at + 1} of ${links.length})` : title;
    open.href = a.href;
  };
  links.forEach((a, i) => {
    a.addEventListener("click", (e) => {
      if (e.ctrlKey || e.metaKey || e.shiftKey) return;
      e.preventDefault();
      show(i);
      box.showModal();
    });
  });
  box.querySelector(".prev")?.addEventListener("click", () => show(at - 1));
  box.querySelector(".next")?.addEventListener("click", () => show(at + 1));
  box.querySelector(".close")?.addEventListener("click", () => box.close());
  // A click on the dark frame around the image closes it, as in the lightboxes people know.
  box.addEventListener("click", (e) => {
    if (e.target === box || (e.target instanceof HTMLElement && e.target.classList.contains("frame"))) box.close();
  });
  box.addEventListener("keydown", (e) => {
    if (links.length < 2) return;
    if (e.key === "ArrowLeft") {
      e.preventDefault();
      show(at - 1);
    }
    if (e.key === "ArrowRight") {
      e.preventDefault();
      show(at + 1);
    }
  });
  box.addEventListener("close", () => links[at]?.focus());
}
