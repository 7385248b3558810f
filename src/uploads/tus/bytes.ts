// Byte arrays joined and regrouped: the tus assembly works on lists of chunks as they arrived.

export function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Chunks regrouped into rows of at most `size` bytes (a Durable Object's SQLite row holds at most 2 MB). */
export function rowsOf(chunks: Uint8Array[], size: number): Uint8Array[] {
  const rows: Uint8Array[] = [];
  let current: Uint8Array[] = [];
  let have = 0;
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.byteLength; ) {
      const take = Math.min(size - have, chunk.byteLength - at);
      current.push(chunk.subarray(at, at + take));
      have += take;
      at += take;
      if (have === size) {
        rows.push(concat(current, have));
        current = [];
        have = 0;
      }
    }
  }
  if (have > 0) rows.push(concat(current, have));
  return rows;
}
