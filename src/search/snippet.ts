// The `snippet` of a search hit: plain text with each matching word wrapped in \u0002…\u0003 (extensions.md § 9).
// The index keeps no text (it is contentless: docs/search.md), so the words are found again here in the row.
import { SEARCH } from "../config";
import { foldWord, type Terms } from "../files/text-match";

const PIECES = /([^\p{L}\p{N}\p{M}]+)/u;

function matcher(terms: Terms): (word: string) => boolean {
  const exact = new Set([...terms.words, ...terms.phrases.flat()].map(foldWord));
  const prefix = terms.prefix ? foldWord(terms.prefix) : null;
  return (word) => {
    const w = foldWord(word);
    return exact.has(w) || (prefix !== null && w.startsWith(prefix));
  };
}

/** The first field (in the given order) with a matching word, cut around that word; else the first non-empty one. */
export function snippet(fields: (string | null | undefined)[], terms: Terms, words = SEARCH.snippetWords): string {
  const matches = matcher(terms);
  const texts = fields.filter((f): f is string => !!f && f.trim() !== "");
  for (const text of texts) {
    const pieces = text.split(PIECES); // even indexes are words (maybe empty), odd ones separators
    const wordAt = pieces.map((p, i) => i % 2 === 0 && p !== "");
    const first = pieces.findIndex((p, i) => wordAt[i] && matches(p));
    if (first < 0) continue;
    const start = Math.max(0, first - 8);
    const end = Math.min(pieces.length, start + words * 2);
    const shown = pieces.slice(start, end).map((p, j) => (wordAt[start + j] && matches(p) ? `\u0002${p}\u0003` : p));
    return `${start > 0 ? "…" : ""}${shown.join("").trim()}${end < pieces.length ? "…" : ""}`;
  }
  const plain = texts[0] ?? "";
  return plain.length > 160 ? `${plain.slice(0, 160)}…` : plain;
}
