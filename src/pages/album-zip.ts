// {site_url}/a/<album_id>/download: the album as a zip of the images an anonymous visitor sees, streamed from
// R2 one object after another (platform/formats/zip.ts), never held in memory. A password album needs its password
// (POSTed, as on the album page); wrong ones count against the same per-album, per-client limit.
import type { Context } from "hono";
import { inArray } from "drizzle-orm";
import type { AppEnv } from "../platform/http/env";
import type { AlbumRow } from "../db/schema";
import { files } from "../db/schema";
import { ANONYMOUS_SEES, albumFilesPage } from "../albums/queries";
import { zipStream, type ZipEntry } from "../platform/formats/zip";

const PAGE = 200;
/** An album download holds at most this many images (the API pages through any size). */
export const ZIP_MAX_FILES = 2000;

/** "Title.ext", unique within the archive, safe on every desktop. */
function entryName(title: string, filename: string, used: Set<string>): string {
  const ext = /\.([A-Za-z0-9]{1,10})$/.exec(filename)?.[1] ?? "img";
  const stem = (title.trim() || "image").replace(/[\\/:*?"<>|\u0000-\u001f]/g, "_").slice(0, 100);
  let name = `${stem}.${ext}`;
  for (let i = 2; used.has(name.toLowerCase()); i++) name = `${stem} (${i}).${ext}`;
  used.add(name.toLowerCase());
  return name;
}

async function* albumEntries(c: Context<AppEnv>, album: AlbumRow): AsyncGenerator<ZipEntry> {
  const db = c.get("dbs").shardOf("alb", album.id);
  const used = new Set<string>();
  for (let offset = 0; offset < ZIP_MAX_FILES; offset += PAGE) {
    const { rows } = await albumFilesPage(db, album.id, ANONYMOUS_SEES, PAGE, offset, Date.now());
    if (rows.length === 0) return;
    const keys = await db.select({ id: files.id, storeKey: files.storeKey, filename: files.filename }).from(files).where(inArray(files.id, rows.map((r) => r.id)));
    const byId = new Map(keys.map((k) => [k.id, k]));
    for (const row of rows) {
      const k = byId.get(row.id);
      if (!k) continue;
      yield {
        name: entryName(row.title, k.filename, used),
        modified: row.createdAt,
        open: async () => (await c.env.BUCKET.get(k.storeKey))?.body ?? null,
      };
    }
    if (rows.length < PAGE) return;
  }
}

export function albumZipResponse(c: Context<AppEnv>, album: AlbumRow): Response {
  const name = (album.title.trim() || "album").replace(/[^\w.\- ]+/g, "_").slice(0, 80);
  return new Response(zipStream(albumEntries(c, album)), {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename="${name}.zip"; filename*=UTF-8''${encodeURIComponent(album.title.trim() || "album")}.zip`,
      "Cache-Control": album.passwordHash ? "private, no-store" : "public, max-age=60",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
