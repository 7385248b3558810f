// My files: the bulk bar says how many cards are selected, and marks them (the stylesheet shows its album picker).

export function initBulkBar(): void {
  const count = document.getElementById("bulk-count");
  if (!document.getElementById("bulk") || !count) return;
  const sync = () => {
    let n = 0;
    document.querySelectorAll<HTMLInputElement>('input[name="ids"][form="bulk"]').forEach((box) => {
      if (box.checked) n++;
      box.closest(".card")?.classList.toggle("picked", box.checked);
    });
    count.textContent = n === 0 ? "Select files to act on several at once" : n === 1 ? "1 file selected" : `${n} files selected`;
  };
  document.addEventListener("change", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.name === "ids") sync();
  });
  sync();
}
