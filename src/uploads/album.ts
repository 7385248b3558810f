// The album an upload names (extensions.md § 8): checked when the upload is made, joined at finalize. The rule is
// the caller's own album or nothing: anyone else's, a missing one, or any album for an anonymous caller is the
// same 404 album_not_found (no `manage` needed, and no album's existence revealed).
import { albumNotFound } from "../albums/service";
import { loadAlbum } from "../albums/queries";
import type { RequestDbs, ShardDb } from "../platform/data/db";
import { ownerMoving } from "../platform/data/moved-ids";
import type { Uploader } from "./access";

/** An album id and the handle on the shard its id names (a routed handle follows a moved owner's). */
export type UploadAlbum = { id: string; db: ShardDb };

export async function assertUploadAlbum(uploader: Uploader, album: UploadAlbum): Promise<void> {
  if (uploader.kind !== "user") throw albumNotFound();
  const loaded = await loadAlbum(album.db, album.id);
  if (!loaded || loaded.ownerGoneAt || loaded.album.userId !== uploader.user.id) throw albumNotFound();
  if (loaded.ownerMoving) throw ownerMoving();
}

/** The album a request's metadata names, if any, with the request's handle on the shard its id names. */
export function uploadAlbum(dbs: Pick<RequestDbs, "shardOf">, albumId: string | undefined | null): UploadAlbum | undefined {
  return albumId ? { id: albumId, db: dbs.shardOf("alb", albumId) } : undefined;
}
