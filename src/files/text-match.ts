// Typed words as an FTS5 MATCH over the search indexes (migration 0019, docs/search.md). The triggers store each
// word after its owner's key, so a match reads that owner's entries alone, however full the shard. Words are built
// here from tokens, each quoted: nothing a user types reaches FTS5's query syntax.
import { sql, type SQL } from "drizzle-orm";

/** What the triggers split words on, wider: any character that is not a letter, digit or mark. */
export const WORD_SEPARATOR = /[^\p{L}\p{N}\p{M}]+/u;
const MAX_TERMS = 16;

/** The owner's key as the triggers write it: lower(hex(substr(user_id, -12))) || 'z' (ids are ASCII). */
export function searchKey(userId: string): string {
  const bytes = new TextEncoder().encode(userId.slice(-12));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("") + "z";
}

/** A typed query: bare words, "quoted phrases", and whether the last bare word also matches as a prefix. */
export type Terms = { words: string[]; phrases: string[][]; prefix: string | null };

const split = (text: string) => text.split(WORD_SEPARATOR).filter(Boolean);

export function parseTerms(q: string): Terms {
  const words: string[] = [];
  const phrases: string[][] = [];
  const parts = q.split('"');
  // Odd parts are inside quotes; an unclosed quote's text counts as bare words.
  const closed = parts.length % 2 === 1;
  parts.forEach((part, i) => {
    const quoted = i % 2 === 1 && (closed || i < parts.length - 1);
    if (quoted) {
      const tokens = split(part);
      if (tokens.length > 1) phrases.push(tokens);
      else words.push(...tokens);
    } else words.push(...split(part));
  });
  const endsBare = !/"\s*$/.test(q) || !closed;
  const prefix = endsBare && words.length > 0 && split(parts.at(-1) ?? "").length > 0 ? words.pop()! : null;
  return { words: words.slice(0, MAX_TERMS), phrases: phrases.slice(0, MAX_TERMS), prefix };
}

/** The MATCH expression for one owner's index entries; null when nothing searchable was typed. */
export function matchExpression(userId: string, terms: Terms): string | null {
  const key = searchKey(userId);
  const quoted = (tokens: string[]) => `"${tokens.map((t) => key + t).join(" ")}"`;
  const parts = [...terms.words.map((w) => quoted([w])), ...terms.phrases.map(quoted)];
  if (terms.prefix) parts.push(`${quoted([terms.prefix])}*`);
  return parts.length > 0 ? parts.join(" ") : null;
}

/** Lower-case, without diacritics: how the index's tokenizer (unicode61 remove_diacritics 2) compares words. */
export const foldWord = (word: string) => word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();

/** Rows of `files` the match finds (a condition on files rows). */
export const fileMatches = (match: string): SQL => sql`files.rowid IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ${match})`;

/** Title, alt text and tags weigh three times description, filename and album titles. */
export const FILE_RANK = sql`bm25(files_fts, 3.0, 1.0)`;
