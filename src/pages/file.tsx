// {site_url}/f/<file_id>: one image (sized by srcset, see picture.tsx) with copyable links (direct, markdown,
// HTML, BBCode), OpenGraph and Twitter card tags so links unfurl in chat apps, and oEmbed discovery (the
// answers come from oembed.ts). Server-rendered with hono/jsx; the client script is app.js, served from our origin.
// Its owner, signed in, sees their private or age-restricted file here too (file-owner.tsx).
import { Hono, type Context } from "hono";
import type { Child } from "hono/jsx";
import type { AppEnv } from "../platform/http/env";
import type { FileRow } from "../db/schema";
import { ApiError } from "../platform/errors/errors";
import { assertReadable, isAgeRestricted, isUnsafeToRender, loadFile } from "../serving/access";
import { fileUrl, filePageUrl, apiUrl } from "../platform/http/urls";
import { pathOf } from "@imghost/client";
import { servedType } from "../serving/answers";
import { Layout } from "./layout";
import { When, formatBytes } from "./app/ui";
import { originalSrcset, placeholderData, previewImage, sizedOriginal, plainLinks, type LinkOf } from "./picture";
import { ownerOriginalLinks } from "./owner-images";
import { LIGHTBOX_WIDTH, LightboxDialog } from "./lightbox";
import { OwnerNotice, ownerSeesMore, pageViewer } from "./file-owner";
import { config } from "../config/env";

/** The page's column is at most this wide; the image asks for no more (the link opens the original). */
const PAGE_IMAGE_WIDTH = 1024;


/** What the site router lends its pages (kept as parameters so this module does not import routes.tsx). */
export type PageDeps = {
  headers: (c: Context<AppEnv>) => void;
  notFound: (c: Context<AppEnv>) => Response | Promise<Response>;
};

export const PROVIDER_NAME = "imghost";

export type OgImage = { url: string; width?: number | null; height?: number | null; type?: string; alt?: string };

/** OpenGraph + Twitter card tags (and the oEmbed discovery link when given). */
export function SocialTags(props: { title: string; description?: string; url: string; image?: OgImage; oembed?: string }): Child {
  const { title, description, url, image, oembed } = props;
  return (
    <>
      <meta property="og:site_name" content={PROVIDER_NAME} />
      <meta property="og:type" content="website" />
      <meta property="og:title" content={title} />
      <meta property="og:url" content={url} />
      {description ? <meta property="og:description" content={description} /> : null}
      {image ? <meta property="og:image" content={image.url} /> : null}
      {image?.type ? <meta property="og:image:type" content={image.type} /> : null}
      {image?.width ? <meta property="og:image:width" content={String(image.width)} /> : null}
      {image?.height ? <meta property="og:image:height" content={String(image.height)} /> : null}
      {image?.alt ? <meta property="og:image:alt" content={image.alt} /> : null}
      <meta name="twitter:card" content={image ? "summary_large_image" : "summary"} />
      <meta name="twitter:title" content={title} />
      {description ? <meta name="twitter:description" content={description} /> : null}
      {image ? <meta name="twitter:image" content={image.url} /> : null}
      <link rel="canonical" href={url} />
      {oembed ? <link rel="alternate" type="application/json+oembed" href={oembed} title={title} /> : null}
    </>
  );
}

export function fileTitle(f: Pick<FileRow, "title">): string {
  return f.title.trim() || "Untitled image";
}

/** The image's alt text: the owner's, else the title (extensions.md § 9). */
export function fileAlt(f: Pick<FileRow, "title" | "alt">): string {
  return f.alt.trim() || fileTitle(f);
}

/** Renders the contract's 404 / 410 answers as pages. */
export function errorPage(c: Context<AppEnv>, deps: PageDeps, err: unknown): Response | Promise<Response> {
  if (!(err instanceof ApiError)) throw err;
  if (err.status === 410) {
    deps.headers(c);
    return c.html(
      <Layout title="Gone">
        <h1>Gone</h1>
        <p>{err.message}.</p>
      </Layout>,
      410,
    );
  }
  if (err.status === 404) return deps.notFound(c);
  throw err;
}

export function CopyField(props: { id: string; label: string; value: string }) {
  return (
    <div class="link">
      <label for={props.id}>{props.label}</label>
      <input id={props.id} type="text" readonly value={props.value} />
      <button type="button" class="small" data-copy={props.id} aria-label={`Copy ${props.label.toLowerCase()}`}>
        Copy
      </button>
    </div>
  );
}

/** The share formats people paste into forums, READMEs and web pages. */
export function shareLinks(env: Env, f: FileRow) {
  const direct = fileUrl(env, f.id);
  const alt = fileAlt(f).replace(/[\[\]"<>]/g, "");
  return {
    direct,
    page: filePageUrl(env, f.id),
    markdown: `![${alt}](${direct})`,
    html: `<img src="${direct}" alt="${alt}">`,
    bbcode: `[img]${direct}[/img]`,
  };
}

function oembedHref(env: Env, pageUrl: string) {
  return `${config(env).siteUrl}/oembed?format=json&url=${encodeURIComponent(pageUrl)}`;
}

/** Date, views, size, dimensions, then download (`download`: the owner's, through the web app) and report. */
function FileFacts(props: { file: FileRow; download: string }) {
  const { file } = props;
  const views = file.viewCount;
  return (
    <aside class="panel" aria-label="About this image">
      <dl class="facts">
        <dt>Uploaded</dt>
        <dd><When iso={file.createdAt.toISOString()} /></dd>
        <dt>Views</dt>
        <dd id="views">{views.toLocaleString("en")}</dd>
        <dt>Size</dt>
        <dd>{formatBytes(file.bytes)}</dd>
        {file.width && file.height ? (
          <>
            <dt>Dimensions</dt>
            <dd>{file.width} × {file.height} px</dd>
          </>
        ) : null}
        <dt>Type</dt>
        <dd>{servedType(file.mime).replace("image/", "").toUpperCase()}</dd>
      </dl>
      <p class="row">
        <a class="button primary" href={props.download} rel="nofollow" download>Download</a>
        <a class="button" href={`/f/${file.id}/report`} rel="nofollow">Report</a>
      </p>
    </aside>
  );
}

/** `owner`: drawn for the file's signed-in owner, with their owner links. */
function FilePage(props: { env: Env; file: FileRow; owner?: { link: LinkOf } }) {
  const { env, file, owner } = props;
  const links = shareLinks(env, file);
  const link = owner?.link ?? plainLinks(env);
  const title = fileTitle(file);
  // The owner sees their own age-restricted image; link previews never name an owner link.
  const restricted = isAgeRestricted(file) && !owner;
  const unsafe = isUnsafeToRender(file);
  const description = file.description.trim() || undefined;
  const download = owner ? `/app/files/${file.id}/download` : apiUrl(env, pathOf("files.download", { id: file.id }));
  const image: OgImage | undefined = restricted || unsafe || owner
    ? undefined
    : { ...previewImage(env, file), alt: fileAlt(file) };
  return (
    <Layout
      title={`${title} - ${PROVIDER_NAME}`}
      description={description}
      head={
        <>
          <SocialTags title={title} description={restricted ? "Age-restricted image" : description} url={links.page} image={image} oembed={oembedHref(env, links.page)} />
        </>
      }
    >
      <h1>{title}</h1>
      {owner ? <OwnerNotice file={file} /> : null}
      {unsafe ? (
        <div class="notice">
          <p>This file is not shown here: it could not be checked safely ({file.analysisError}).</p>
          <p>
            <a href={download} rel="nofollow noopener" download>
              Download the file
            </a>{" "}
            if you trust it.
          </p>
        </div>
      ) : restricted ? (
        <div class="notice">
          <p>This image is marked as age-restricted, so it is not shown here.</p>
          <p>
            <a href={links.direct} rel="nofollow noopener">Open the image</a> if you are of age and want to see it.
          </p>
        </div>
      ) : (
        <div class="media" data-lightbox="">
          {/* The script opens the viewer on a click; without it (or with a modifier key) the link opens the original. */}
          <a href={link(file.id, "original", null)} data-full={sizedOriginal(env, file, LIGHTBOX_WIDTH, link).url} data-title={title}>
            <img
              src={sizedOriginal(env, file, PAGE_IMAGE_WIDTH, link).url}
              srcset={originalSrcset(env, file, link)}
              sizes="(max-width: 72rem) 100vw, 72rem"
              alt={fileAlt(file)}
              width={file.width ?? undefined}
              height={file.height ?? undefined}
              {...placeholderData(file)}
            />
          </a>
          <LightboxDialog single />
        </div>
      )}
      <div class="split">
        <div>
          {description ? <p>{description}</p> : null}
          <h2 class="sr-only">Share</h2>
          <div class="links">
            <CopyField id="link-direct" label="Direct link" value={links.direct} />
            <CopyField id="link-page" label="Page" value={links.page} />
            <CopyField id="link-markdown" label="Markdown" value={links.markdown} />
            <CopyField id="link-html" label="HTML" value={links.html} />
            <CopyField id="link-bbcode" label="BBCode" value={links.bbcode} />
          </div>
        </div>
        <FileFacts file={file} download={download} />
      </div>
    </Layout>
  );
}

export function filePages(deps: PageDeps) {
  const pages = new Hono<AppEnv>();

  pages.get("/f/:id", async (c) => {
    try {
      // What an anonymous visitor may see (private -> 404), unless the signed-in owner asks (file-owner.tsx).
      const fileId = c.req.param("id");
      const loaded = await loadFile(c.get("dbs").shardOf("file", fileId), fileId);
      const viewer = await pageViewer(c, loaded);
      assertReadable(loaded, viewer, Date.now(), { safeMode: false });
      deps.headers(c);
      if (viewer.userId !== null) {
        c.header("Cache-Control", "private, no-store");
        const link = await ownerOriginalLinks(c.env, viewer.userId, loaded.file);
        return c.html(<FilePage env={c.env} file={loaded.file} owner={{ link }} />);
      }
      // The <img> on the page counts the view when it loads the short link; the page itself does not.
      c.header("Cache-Control", "public, max-age=60");
      // Its owner's page of this file differs: a cache keeps the two apart (browsers key on Vary: Cookie).
      if (ownerSeesMore(loaded.file)) c.header("Vary", "Cookie");
      return c.html(<FilePage env={c.env} file={loaded.file} />);
    } catch (err) {
      return errorPage(c, deps, err);
    }
  });


  return pages;
}
