// {site_url}/oembed (https://oembed.com): `url` may be a file page, a short link, a CDN link or an album page.
// Only what an anonymous visitor may see is embedded. A photo's `url` is the ladder variant within maxwidth x
// maxheight in a format crawlers read, its width and height the variant's own (picture.tsx previewImage);
// thumbnail_url always comes with thumbnail_width and thumbnail_height (previewThumbnail), as the spec asks.
import type { Context } from "hono";
import type { AppEnv } from "../platform/http/env";
import { ApiError } from "../platform/errors/errors";
import { ANONYMOUS_VIEWER, assertReadable, isUnsafeToRender, loadFile } from "../serving/access";
import { filePageUrl, albumUrl } from "../platform/http/urls";
import { internalPath } from "../platform/http/dispatch";
import { visibleAlbum } from "../albums/service";
import { ANONYMOUS_SEES, visibleCover } from "../albums/queries";
import { fitWithin, previewImage, previewThumbnail } from "./picture";
import { PROVIDER_NAME, fileAlt, fileTitle } from "./file";
import { config } from "../config/env";

/** oEmbed consumers read JSON errors, in the API's body (the codes are in platform/errors/error-codes.ts). */
const oembedError = (c: Context<AppEnv>, err: ApiError) => c.json(err.body(), err.status);

const positiveInt = (v: string | undefined) => {
  const n = v === undefined ? NaN : Number(v);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

export async function oembed(c: Context<AppEnv>) {
  const format = c.req.query("format") ?? "json";
  if (format !== "json") return oembedError(c, new ApiError("oembed_format", "Only format=json is supported"));
  const raw = c.req.query("url");
  let target: URL;
  try {
    target = new URL(raw ?? "");
  } catch {
    return oembedError(c, new ApiError("oembed_url", "url must be an absolute URL"));
  }
  const notFound = () => oembedError(c, new ApiError("not_found", "No embeddable content at that URL"));
  const path = internalPath(target, c.env).path;
  const maxW = positiveInt(c.req.query("maxwidth"));
  const maxH = positiveInt(c.req.query("maxheight"));
  const base = { version: "1.0", provider_name: PROVIDER_NAME, provider_url: config(c.env).siteUrl, cache_age: 300 };
  c.header("Cache-Control", "public, max-age=300");
  c.header("X-Content-Type-Options", "nosniff");

  const fileId = /^\/(?:f|i)\/([^/]+)(?:\/thumb)?$/.exec(path)?.[1] ?? /^\/cdn\/uploads\/[^/]+\/([^/]+)\/[^/]+$/.exec(path)?.[1];
  if (fileId) {
    const loaded = await loadFile(c.get("dbs").shardOf("file", fileId), fileId);
    try {
      assertReadable(loaded, ANONYMOUS_VIEWER, Date.now(), { safeMode: true });
    } catch {
      return notFound(); // private, gone or age-restricted: nothing to embed
    }
    const f = loaded!.file;
    if (isUnsafeToRender(f)) return notFound(); // a pixel bomb is nobody's preview
    const image = previewImage(c.env, f, { maxWidth: maxW, maxHeight: maxH });
    // A GIF or BMP is linked as stored: its own size, fitted to the limits for the consumer to scale it.
    const size = image.width && image.height ? { width: image.width, height: image.height } : fitWithin(f.width ?? 0, f.height ?? 0, maxW, maxH);
    return c.json({
      ...base,
      type: "photo",
      title: fileTitle(f),
      // Not in oEmbed 1.0, which lets providers add parameters: the text for the <img alt> a consumer writes.
      alt: fileAlt(f),
      url: image.url,
      width: size.width,
      height: size.height,
      ...previewThumbnail(c.env, f),
      web_page: filePageUrl(c.env, f.id),
    });
  }

  const albumId = /^\/a\/([^/]+)$/.exec(path)?.[1];
  if (albumId) {
    try {
      const db = c.get("dbs").shardOf("alb", albumId);
      const { album } = await visibleAlbum(db, albumId, ANONYMOUS_VIEWER);
      if (album.passwordHash) return notFound();
      // The preview is a file the album page itself shows an anonymous visitor, never a private one.
      const cover = await visibleCover(db, album, ANONYMOUS_SEES, Date.now());
      return c.json({
        ...base,
        type: "link",
        title: album.title,
        ...(cover ? previewThumbnail(c.env, cover) : {}),
        web_page: albumUrl(c.env, album.id),
      });
    } catch {
      return notFound();
    }
  }
  return notFound();
}
