// The signed-in pages' search box (layout.tsx SiteSearch): as the person types, the first matches of GET /search under it,
// each a link with its snippet's matches marked (built as DOM text, never HTML). Arrows move, Enter opens, Escape
// closes; without this script the box is a plain GET to /app/search.
import { el } from "./dom";
import { loadApi } from "./api-loader";

const WAIT_MS = 150;
const SHOWN = 8;

/** A snippet (\u0002…\u0003 marks) as text nodes and <mark> elements. */
export function markedSnippet(snippet: string): DocumentFragment {
  const out = document.createDocumentFragment();
  snippet.split(/[\u0002\u0003]/).forEach((part, i) => out.append(i % 2 === 1 ? el("mark", {}, part) : document.createTextNode(part)));
  return out;
}

export function initTypeahead(): void {
  const form = document.querySelector<HTMLFormElement>("form[data-typeahead]");
  const input = form?.querySelector<HTMLInputElement>("input[name=q]");
  const list = form?.querySelector<HTMLUListElement>("ul.typeahead");
  if (!form || !input || !list) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;
  const links = () => [...list.querySelectorAll<HTMLAnchorElement>("a")];
  const close = () => {
    list.hidden = true;
  };
  const show = async (q: string) => {
    const mine = ++asked;
    const { api } = await loadApi();
    const found = await api().search(q, { limit: SHOWN });
    if (mine !== asked) return; // a later keystroke asked again
    list.replaceChildren();
    const add = (href: string, snippet: string, thumb?: string) => {
      const a = el("a", { href });
      if (thumb) a.append(el("img", { src: thumb, alt: "", loading: "lazy" }));
      a.append(markedSnippet(snippet));
      const li = el("li");
      li.append(a);
      list.append(li);
    };
    for (const f of found.files) add(`/f/${f.id}`, f.snippet, `/app/files/${f.id}/preview`);
    for (const a of found.albums.slice(0, 3)) add(`/app/albums/${a.id}`, `Album: ${a.snippet}`);
    if (list.children.length === 0) list.append(el("li", { class: "muted" }, "Nothing matches yet"));
    list.hidden = false;
  };
  input.addEventListener("input", () => {
    clearTimeout(timer);
    const q = input.value.trim();
    if (q.length < 2) {
      asked++;
      close();
      return;
    }
    timer = setTimeout(() => void show(q).catch(close), WAIT_MS);
  });
  // Down from the box to the first match, up and down among them, Escape back to the box; Enter follows a link.
  form.addEventListener("keydown", (e) => {
    if (list.hidden) return;
    const all = links();
    const at = all.indexOf(document.activeElement as HTMLAnchorElement);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (all.length === 0) return;
      e.preventDefault();
      const next = at + (e.key === "ArrowDown" ? 1 : -1);
      if (next < 0) input.focus();
      else all[Math.min(next, all.length - 1)].focus();
    } else if (e.key === "Escape") {
      close();
      input.focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (!form.contains(e.target as Node)) close();
  });
}
