// Public album: a keyboard lightbox (arrows, Escape) over the gallery's links.

export function initLightbox(): void {
  const gallery = document.querySelector(".gallery[data-lightbox]");
  const box = document.getElementById("lightbox");
  if (!gallery || !window.HTMLDialogElement || !(box instanceof HTMLDialogElement)) return;
  const links = Array.from(gallery.querySelectorAll<HTMLAnchorElement>("a[data-full]"));
  const img = box.querySelector("img");
  const caption = box.querySelector(".caption");
  const open = box.querySelector<HTMLAnchorElement>(".open");
  if (!img || !caption || !open) return;
  let at = 0;
  const show = (i: number) => {
    at = (i + links.length) % links.length;
    const a = links[at];
    const title = a.getAttribute("data-title") || "";
    img.src = a.getAttribute("data-full") ?? "";
    img.alt = title;
    caption.textContent = `${title} (${at + 1} of ${links.length})`;
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
  box.addEventListener("keydown", (e) => {
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
