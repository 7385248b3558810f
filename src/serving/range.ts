// Range requests (RFC 9110 § 14): one `bytes=` range is served as 206; a syntactically valid range that
// starts past the end is 416; anything we do not serve partially (several ranges, other units, garbage)
// is ignored and the whole object is sent, which the RFC allows.

export type RangeDecision =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number } // inclusive end
  | { kind: "unsatisfiable" };

export function parseRange(header: string | null | undefined, size: number): RangeDecision {
  if (!header) return { kind: "full" };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return { kind: "full" };
  const [, first, last] = m;
  if (first === "" && last === "") return { kind: "full" };
  if (first === "") {
    // Suffix range: the last N bytes.
    const n = Number(last);
    if (!Number.isSafeInteger(n)) return { kind: "full" };
    if (n === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start)) return { kind: "full" };
  let end = last === "" ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(end)) end = Number.MAX_SAFE_INTEGER;
  if (end < start) return { kind: "full" }; // invalid byte-range-spec: ignore the header
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", start, end: Math.min(end, size - 1) };
}

/** If-None-Match against our strong ETag (weak comparison, as RFC 9110 § 13.1.2 asks for GET/HEAD). */
export function etagMatches(ifNoneMatch: string | null | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === bare);
}

/** `"abc"` from `abc`, `"abc"` or `W/"abc"`: the form our ETag header takes. */
export function quoteEtag(value: string): string {
  const bare = value.replace(/^W\//, "").replace(/^"|"$/g, "");
  return `"${bare}"`;
}
