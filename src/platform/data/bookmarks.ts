// `x-d1-bookmark` with shards: one D1 bookmark per database a client read or wrote, `0:<bookmark>,1:<bookmark>`,
// database 0 being the directory (which is also shard 0), n the shard SHARD_n. A bare bookmark, as clients from
// before shards send, is database 0's. docs/api-conventions.md describes the header.
import { laterBookmark } from "./db";

/** D1 bookmarks are short hex-and-dash strings; anything else is ignored rather than passed to D1. */
const BOOKMARK = /^[0-9a-f][0-9a-f-]{0,127}$/i;
const ENTRY = /^(\d{1,2}):(.+)$/;

/** The bookmarks a request carried, by database; malformed entries are dropped. */
export function parseBookmarks(header: string | null | undefined, databases: number): Map<number, string> {
  const out = new Map<number, string>();
  if (!header) return out;
  const text = header.trim();
  if (BOOKMARK.test(text)) {
    out.set(0, text);
    return out;
  }
  for (const part of text.split(",")) {
    const m = ENTRY.exec(part.trim());
    if (!m) continue;
    const db = Number(m[1]);
    if (db < databases && BOOKMARK.test(m[2])) out.set(db, laterBookmark(out.get(db), m[2])!);
  }
  return out;
}

/**
 * The header's value for the bookmarks a response knows, database 0 first; undefined when it knows none. When
 * database 0's is the only one, it is sent bare, as before shards: a client that reads one value sees no change.
 */
export function formatBookmarks(bookmarks: ReadonlyMap<number, string | undefined>): string | undefined {
  const parts = [...bookmarks.entries()].filter((e): e is [number, string] => Boolean(e[1])).sort((a, b) => a[0] - b[0]);
  if (parts.length === 1 && parts[0][0] === 0) return parts[0][1];
  return parts.length ? parts.map(([db, bm]) => `${db}:${bm}`).join(",") : undefined;
}
