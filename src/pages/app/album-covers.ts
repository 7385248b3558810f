// An album with files but no chosen cover still gets a face in the owner's albums list: its first file, as the
// album editor marks it. The API's coverImageId stays the owner's choice (null: none chosen); this only draws.
// Read from the album's shard with the owner's view (visibleCover, the rule the public page's link preview uses),
// not through the API: its album read counts a view, and the list would count one per coverless album.
import { visibleCover } from "../../albums/queries";
import type { AppEnv } from "../../platform/http/env";
import type { Context } from "hono";

type Listed = { id: string; coverImageId: string | null; fileCount: number };

/** Each listed album's cover to draw: the chosen one, else its first file, else null. */
export async function coversOf(c: Context<AppEnv>, albums: Listed[]): Promise<Map<string, string | null>> {
  const now = Date.now();
  const entries = await Promise.all(
    albums.map(async (a): Promise<[string, string | null]> => {
      if (a.coverImageId || a.fileCount === 0) return [a.id, a.coverImageId];
      const first = await visibleCover(c.get("dbs").shardOf("alb", a.id), { id: a.id, coverFileId: null }, { owner: true, adult: true }, now).catch(() => undefined);
      return [a.id, first?.id ?? null];
    }),
  );
  return new Map(entries);
}
