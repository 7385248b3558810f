// GET /files?color=: the owner's files nearest first to a colour, by ΔE (CIE76) in CIELAB of their dominant colour.
// The distance is taken here, over the owner's (id, colour) pairs read from the owner's index range: SQLite has
// no cube root, and an owner's pairs are small next to the rows a page returns.
import { files } from "../db/schema";
import type { ShardDb } from "../platform/data/db";
import { listPageQuery, listWhere, type ListQuery } from "./queries";

type Lab = [number, number, number];

/** `#rrggbb` (any case) in CIELAB, D65 white. */
export function hexToLab(hex: string): Lab | null {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex.trim());
  if (!m) return null;
  const [r, g, b] = m.slice(1).map((h) => {
    const c = parseInt(h, 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const xyz = [(0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b, (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883];
  const [fx, fy, fz] = xyz.map((t) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116));
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

export const deltaE = (a: Lab, b: Lab) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** The ids of the owner's live files that pass the list's filters, nearest to `color` first (no colour: last). */
export async function idsByColour(db: ShardDb, userId: string, q: ListQuery, color: string, now: number): Promise<string[]> {
  const target = hexToLab(color)!;
  const rows = await db
    .select({ id: files.id, color: files.dominantColor, createdAt: files.createdAt })
    .from(files)
    .where(listWhere(userId, q, now))
    .all();
  const scored = rows.map((r) => {
    const lab = r.color ? hexToLab(r.color) : null;
    return { id: r.id, d: lab ? deltaE(target, lab) : Infinity, at: r.createdAt.getTime() };
  });
  scored.sort((a, b) => a.d - b.d || b.at - a.at);
  return scored.map((s) => s.id);
}

/** One page of the colour order: the page's rows, in that order, and the total. */
export async function listByColour(db: ShardDb, userId: string, q: ListQuery, color: string, now: number) {
  const ids = await idsByColour(db, userId, q, color, now);
  const page = ids.slice(q.offset, q.offset + q.limit);
  if (page.length === 0) return { rows: [], total: ids.length };
  const rows = await listPageQuery(db, userId, { ...q, offset: 0, ids: page }, now);
  const at = new Map(page.map((id, i) => [id, i]));
  return { rows: rows.sort((a, b) => at.get(a.id)! - at.get(b.id)!), total: ids.length };
}
