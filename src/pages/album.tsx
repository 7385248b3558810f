// {site_url}/a/<album_id>: the album's images as thumbnails linking to each image's page, with OpenGraph and
// Twitter card tags. Password-protected albums show a form that POSTs the password to this same address
// (never in a URL); wrong passwords count against the same per-album, per-client limit as the API.
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../platform/http/env";
import type { AlbumRow } from "../db/schema";
import { ApiError, RateLimitError } from "../platform/errors/errors";
import { albumUrl, filePageUrl } from "../platform/http/urls";
import { clientIp } from "../platform/http/client-ip";
import { ANONYMOUS_VIEWER, isUnsafeToRender } from "../serving/access";
import { ANONYMOUS_SEES, albumFilesPage, visibleCover } from "../albums/queries";
import { checkAlbumPassword, visibleAlbum } from "../albums/service";
import { countHit } from "../serving/view-counter";
import { Layout } from "./layout";
import { Pager } from "./app/ui";
import { signAlbumGrant, verifyAlbumGrant } from "../albums/download-grant";
import { albumZipResponse } from "./album-zip";
import { GridImage, previewImage, sizedOriginal } from "./picture";
import { matchExpression, parseTerms } from "../files/text-match";
import { LIGHTBOX_WIDTH, LightboxDialog } from "./lightbox";
import { PROVIDER_NAME, SocialTags, errorPage, type OgImage, type PageDeps } from "./file";
import { config } from "../config/env";

const PAGE_SIZE = 60;
const PROTECTED_PAGE_SIZE = 200;

type Thumb = { id: string; title: string; alt: string; width: number | null; height: number | null; placeholder: string | null; dominantColor: string | null };

function PasswordForm(props: { env: Env; album: AlbumRow; error?: string }) {
  const { album, error } = props;
  // No title, description or image of a protected album leaks into link previews.
  return (
    <Layout title={`Protected album - ${PROVIDER_NAME}`} head={<SocialTags title="Password-protected album" url={albumUrl(props.env, album.id)} />}>
      <h1>This album is password-protected</h1>
      {error ? <p class="error">{error}</p> : null}
      <form class="password" method="post" action={`/a/${album.id}`}>
        <input type="password" name="password" required autocomplete="current-password" aria-label="Album password" />
        <button type="submit">Open</button>
      </form>
    </Layout>
  );
}

function AlbumPage(props: { env: Env; album: AlbumRow; files: Thumb[]; page: number; hasMore: boolean; cover?: OgImage; hidePager: boolean; total: number; grant?: string; q?: string }) {
  const { env, album, files, page, cover, total, q } = props;
  const description = album.description.trim() || undefined;
  const url = albumUrl(env, album.id);
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return (
    <Layout
      title={`${album.title} - ${PROVIDER_NAME}`}
      description={description}
      head={<SocialTags title={album.title} description={description} url={url} image={cover} oembed={`${config(env).siteUrl}/oembed?format=json&url=${encodeURIComponent(url)}`} />}
    >
      <h1>{album.title}</h1>
      {description ? <p class="lead">{description}</p> : null}
      <div class="row">
        <span class="muted" id="album-count">
          {total === 1 ? "1 image" : `${total.toLocaleString("en")} images`}
          {q ? ` match “${q}”` : ""}
        </span>
        {total > 0 ? (
          album.passwordHash ? (
            <form method="post" action={`/a/${album.id}/download`}>
              <input type="hidden" name="grant" value={props.grant ?? ""} />
              <button type="submit" class="primary">Download all (.zip)</button>
            </form>
          ) : (
            <a class="button primary" href={`/a/${album.id}/download`} download>Download all (.zip)</a>
          )
        ) : null}
      </div>
      {album.passwordHash === null ? (
        <form class="row album-search" method="get" action={`/a/${album.id}`} role="search">
          <input type="search" name="q" value={q ?? ""} maxlength={200} placeholder="Search this album" aria-label="Search this album" />
          <button type="submit">Search</button>
          {q ? <a href={`/a/${album.id}`}>Show all</a> : null}
        </form>
      ) : null}
      {files.length === 0 ? <p class="muted">{q ? "No image in this album matches." : "No images to show."}</p> : null}
      <ul class="gallery" data-lightbox="">
        {files.map((f) => (
          <li>
            <a href={filePageUrl(env, f.id)} data-full={sizedOriginal(env, f, LIGHTBOX_WIDTH).url} data-title={f.title || "Image"}>
              <GridImage env={env} file={f} alt={f.alt || f.title || "Image"} />
            </a>
          </li>
        ))}
      </ul>
      <LightboxDialog />
      {props.hidePager && props.hasMore ? (
        <p class="muted">
          Showing the first {files.length} of {total} images.
        </p>
      ) : null}
      {props.hidePager ? null : <Pager page={page} pages={pages} href={(p) => `/a/${album.id}?page=${p}${q ? `&q=${encodeURIComponent(q)}` : ""}`} />}
    </Layout>
  );
}

/** The cover for link previews: the chosen cover, else the first image, among those an anonymous visitor sees. */
async function coverImage(c: Context<AppEnv>, album: AlbumRow): Promise<OgImage | undefined> {
  const f = await visibleCover(c.get("dbs").shardOf("alb", album.id), album, ANONYMOUS_SEES, Date.now());
  return f && !isUnsafeToRender(f) ? { ...previewImage(c.env, f), alt: f.alt || f.title || album.title } : undefined;
}

export function albumPages(deps: PageDeps) {
  const pages = new Hono<AppEnv>();

  type Submitted = { password?: string; grant?: string };
  async function render(c: Context<AppEnv>, form: Submitted | undefined, download = false) {
    const submitted = form !== undefined;
    try {
      const albumId = c.req.param("id") ?? "";
      const { album } = await visibleAlbum(c.get("dbs").shardOf("alb", albumId), albumId, ANONYMOUS_VIEWER);
      deps.headers(c);
      if (album.passwordHash !== null) {
        // Protected pages are per visitor: never stored by shared caches.
        c.header("Cache-Control", "private, no-store");
        try {
          // A valid grant from this album's page stands for the password (and costs no guess).
          if (!(download && (await verifyAlbumGrant(c.env, album, form?.grant)))) {
            await checkAlbumPassword(c.env, album, ANONYMOUS_VIEWER, clientIp(c.req.raw), submitted ? form.password ?? "" : undefined);
          }
        } catch (err) {
          if (err instanceof RateLimitError) {
            c.header("Retry-After", String(err.retryAfter));
            return c.html(<PasswordForm env={c.env} album={album} error="Too many wrong passwords. Try again later." />, 429);
          }
          if (err instanceof ApiError && err.status === 401) return c.html(<PasswordForm env={c.env} album={album} />, 401);
          if (err instanceof ApiError && err.status === 403) return c.html(<PasswordForm env={c.env} album={album} error="That password is not right." />, 403);
          throw err;
        }
      } else {
        c.header("Cache-Control", "public, max-age=60");
      }
      if (download) return albumZipResponse(c, album);
      // A password album's page comes from a POST, which cannot carry the password on to a next page, so it
      // shows one larger page (the API pages through any size).
      const size = submitted ? PROTECTED_PAGE_SIZE : PAGE_SIZE;
      const pageNo = submitted ? 1 : Math.min(10_000, Math.max(1, Number.parseInt(c.req.query("page") ?? "1", 10) || 1));
      // `?q=`: the album's images the search index finds among its owner's (extensions.md § 9); public albums only.
      const q = submitted || album.passwordHash !== null ? undefined : c.req.query("q")?.trim().slice(0, 200) || undefined;
      const match = q === undefined ? undefined : matchExpression(album.userId, parseTerms(q));
      const { rows, total } = await albumFilesPage(c.get("dbs").shardOf("alb", album.id), album.id, ANONYMOUS_SEES, size, (pageNo - 1) * size, Date.now(), match);
      const cover = album.passwordHash === null ? await coverImage(c, album) : undefined;
      countHit(c.env, c.executionCtx, "album_view", album.id);
      return c.html(
        <AlbumPage
          env={c.env}
          album={album}
          q={q}
          files={rows.map((r) => ({ id: r.id, title: r.title, alt: r.alt, width: r.width, height: r.height, placeholder: r.placeholder, dominantColor: r.dominantColor }))}
          page={pageNo}
          hasMore={pageNo * size < total}
          cover={cover}
          hidePager={submitted}
          total={total}
          grant={album.passwordHash !== null ? await signAlbumGrant(c.env, album) : undefined}
        />,
      );
    } catch (err) {
      return errorPage(c, deps, err);
    }
  }

  pages.get("/a/:id", (c) => render(c, undefined));
  pages.get("/a/:id/download", (c) => render(c, undefined, true));

  const postLimit = bodyLimit({ maxSize: 4 * 1024, onError: (c) => c.text("Request too large", 413) });
  const formOf = async (c: Context<AppEnv>): Promise<Submitted> => {
    try {
      const form = await c.req.parseBody();
      const text = (v: unknown) => (typeof v === "string" ? v : undefined);
      return { password: text(form.password), grant: text(form.grant) };
    } catch {
      return {};
    }
  };
  pages.post("/a/:id", postLimit, async (c) => render(c, await formOf(c)));
  pages.post("/a/:id/download", postLimit, async (c) => render(c, await formOf(c), true));

  return pages;
}
