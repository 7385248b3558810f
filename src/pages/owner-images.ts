// The signed-in owner's own images on the pages (My files, the album editor, the upload results, their file page).
// A plain byte link of a private file is 404 to a browser (an <img> sends no Bearer token, and {image_url} is usually
// a host the session cookie never reaches), so these pages name owner links (serving/signed-links.ts), signed at
// render time, one HMAC per URL and no D1 read: docs/files-and-serving.md § Owner links.
import type { Variant } from "../serving/edge-cache";
import { OWNER_SIG, ownerLinkExp, signOwnerLink } from "../serving/signed-links";
import { originalWidths, plainLinks, thumbWidths, type LinkOf } from "./picture";
import { config } from "../config/env";

/** The links of one file a page will name: its variant and the widths (null: the object itself). */
export type Wanted = { fileId: string; variant: Variant; widths: (number | null)[] };

const keyOf = (fileId: string, variant: Variant, w: number | null) => `${fileId} ${variant} ${w ?? ""}`;

/**
 * Signs every wanted link for `ownerId` and answers the LinkOf the page's components draw with. A link nobody
 * asked for falls back to the plain one (it works for what a stranger may see, and is never a 500).
 */
export async function ownerLinks(env: Env, ownerId: string, wanted: Wanted[], now = Date.now()): Promise<LinkOf> {
  const exp = ownerLinkExp(now);
  const plain = plainLinks(env);
  const signed = new Map<string, string>();
  await Promise.all(
    wanted.flatMap(({ fileId, variant, widths }) =>
      widths.map(async (w) => {
        const params = new URLSearchParams(w === null ? {} : { w: String(w) });
        const sig = await signOwnerLink(config(env).signedUrlSecret, ownerId, fileId, variant, params, exp);
        params.set("exp", String(exp));
        params.set(OWNER_SIG, sig);
        signed.set(keyOf(fileId, variant, w), `${plain(fileId, variant, null)}?${params}`);
      }),
    ),
  );
  return (fileId, variant, w) => signed.get(keyOf(fileId, variant, w)) ?? plain(fileId, variant, w);
}

/** The thumbnail family (GridImage) of each of the owner's files. */
export function ownerThumbLinks(env: Env, ownerId: string, fileIds: Iterable<string>, now?: number): Promise<LinkOf> {
  const wanted = [...new Set(fileIds)].map((fileId): Wanted => ({ fileId, variant: "thumb", widths: thumbWidths() }));
  return ownerLinks(env, ownerId, wanted, now);
}

/** The original's ladder (the file page's srcset, its 1024 px src and the link to the original). */
export function ownerOriginalLinks(env: Env, ownerId: string, f: { id: string; width: number | null }, now?: number): Promise<LinkOf> {
  return ownerLinks(env, ownerId, [{ fileId: f.id, variant: "original", widths: originalWidths(f.width) }], now);
}
