// The navigation's Menu (a <details> below 52rem): opening needs no script; Escape closes it (giving the focus
// back to its button when it was inside), and so does a tap outside it.

export function initMenu(): void {
  const menu = document.querySelector<HTMLDetailsElement>("nav.main details.menu");
  if (!menu) return;
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || !menu.open) return;
    const inside = menu.contains(document.activeElement);
    menu.open = false;
    if (inside) menu.querySelector("summary")?.focus();
  });
  document.addEventListener("click", (e) => {
    if (menu.open && !menu.contains(e.target as Node | null)) menu.open = false;
  });
}
