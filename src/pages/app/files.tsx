// My files: a searchable, filterable grid (title, size, views, date, copy-link), numbered pages, and
// multi-select with bulk delete / visibility / add to album. Data only through the API. Every file of the
// account is listed, its age-restricted ones too (with a badge: safe mode guards other people's files, not the
// owner's own), and the thumbnails are owner links (owner-images.ts), so private ones show on any {image_url}.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AgeBadge, AppLayout, DropOverlay, Notice, Pager, VisibilityBadge, formatBytes, plural, When } from "./ui";
import { getCookie, setCookie } from "hono/cookie";
import { call } from "@imghost/client";
import { apiOf, result, compact, apiMessage, type Album, type FileItem } from "./api";
import { requireSession, session } from "./context";
import { bulkPages } from "./files-bulk";
import { GridImage, type LinkOf } from "../picture";
import { ownerThumbLinks } from "../owner-images";
import { ErrorNotice } from "./error-param";
import { fileEditPages } from "./files-edit";
import { shareLinkPages } from "./share-link";
import { ownerFilePages } from "./owner-files";
import { config } from "../../config/env";

const PAGE_SIZE = 24;
const SORTS = ["created", "views", "size", "relevance"] as const;
const COLOUR = /^#[0-9a-f]{6}$/i;
const VISIBILITIES = ["public", "unlisted", "private"] as const;

function FileCard(props: { env: Env; f: FileItem; link: LinkOf; page: string }) {
  const { f } = props;
  const title = f.title || "Untitled image";
  return (
    <li class="card">
      <label class="select">
        <input type="checkbox" name="ids" value={f.id} form="bulk" aria-label={`Select ${title}`} />
      </label>
      <a href={`/f/${f.id}`} class="thumb" aria-label={`${title}: open its page`}>
        <GridImage env={props.env} file={f} alt="" link={props.link} />
      </a>
      <div class="meta">
        <span class="title" title={title}>{title}</span>
        <span class="badges">
          <VisibilityBadge visibility={f.visibility} />
          {f.ageRestricted ? <AgeBadge /> : null}
        </span>
        <span class="muted">
          {formatBytes(f.bytes)} · {plural(f.viewCount, "view")} · <When iso={f.createdAt} />
        </span>
        <span class="actions">
          <button type="button" class="small" data-copy="" data-copy-text={props.page} aria-label={`Copy link to ${title}`}>
            Copy link
          </button>
          <a class="button small" href={`/app/files/${f.id}/edit`} aria-label={`Edit ${title}`}>Edit</a>
          <a class="button small" href={`/app/files/${f.id}/delete`} aria-label={`Delete ${title}`}>Delete</a>
        </span>
      </div>
    </li>
  );
}

function Filters(props: { q: Record<string, string> }) {
  const { q } = props;
  return (
    <form method="get" action="/app/files" class="toolbar" role="search">
      <div class="field grow">
        <label for="q">Search</label>
        <input id="q" name="q" type="search" value={q.q ?? ""} maxlength={200} placeholder="beach, cat…" />
      </div>
      <div class="field">
        <label for="tag">Tag</label>
        <input id="tag" name="tag" value={q.tag ?? ""} size={10} />
      </div>
      <div class="field">
        <label for="sort">Sort</label>
        <select id="sort" name="sort">
          {[["created", "Newest"], ["views", "Most viewed"], ["size", "Largest"], ["relevance", "Best match (with search)"]].map(([v, t]) => (
            <option value={v} selected={(q.sort ?? "created") === v}>{t}</option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="fvis">Visibility</label>
        <select id="fvis" name="visibility">
          <option value="">Any</option>
          {VISIBILITIES.map((v) => (
            <option value={v} selected={q.visibility === v}>{v}</option>
          ))}
        </select>
      </div>
      <div class="field colour-filter">
        <label>
          <input type="checkbox" name="bycolor" value="1" checked={q.bycolor === "1"} /> Nearest colour
        </label>
        <input id="color" name="color" type="color" value={COLOUR.test(q.color ?? "") ? q.color : "#3366cc"} aria-label="Colour" />
      </div>
      <button type="submit">Apply</button>
    </form>
  );
}

/** Grid or list: a link each (no script needed), the choice kept in a cookie for the next visit. */
const VIEW_COOKIE = "files-view";
type View = "grid" | "list";

function ViewSwitch(props: { view: View; href: (view: View) => string }) {
  return (
    <div class="view-switch" role="group" aria-label="Show the files as">
      {(["grid", "list"] as const).map((v) => (
        <a href={props.href(v)} aria-current={props.view === v ? "true" : undefined}>{v === "grid" ? "Grid" : "List"}</a>
      ))}
    </div>
  );
}

/** Images dropped anywhere on the page or pasted are uploaded at once (client/files-drop.ts), into this queue. */
function DropZone() {
  return (
    <section id="files-drop" aria-label="Upload by dropping or pasting">
      <p class="muted">
        <label for="drop-visibility">Drop or paste images anywhere on this page to upload them as</label>{" "}
        <select id="drop-visibility" class="inline-select">
          {VISIBILITIES.map((v) => (
            <option value={v}>{v}</option>
          ))}
        </select>
      </p>
      <div id="drop-msg" role="alert"></div>
      <ul id="drop-queue" class="queue" aria-label="Uploads from this page"></ul>
      <DropOverlay />
    </section>
  );
}

function BulkBar(props: { c: Context<AppEnv>; albums: Album[]; back: string }) {
  return (
    <form id="bulk" method="post" action="/app/files" class="bulk" aria-label="With the selected files">
      <input type="hidden" name="_csrf" value={props.c.get("csrf")} />
      <input type="hidden" name="back" value={props.back} />
      <span id="bulk-count" class="muted" aria-live="polite">Select files to act on several at once</span>
      <label for="bulk-action" class="sr-only">Action</label>
      <select id="bulk-action" name="action">
        <option value="public">Make public</option>
        <option value="unlisted">Make unlisted</option>
        <option value="private">Make private</option>
        <option value="album">Add to album…</option>
        <option value="delete">Delete</option>
      </select>
      <label for="bulk-album" class="sr-only">Album</label>
      <select id="bulk-album" name="albumId">
        {props.albums.length === 0 ? <option value="">(no albums yet)</option> : null}
        {props.albums.map((a) => (
          <option value={a.id}>{a.title}</option>
        ))}
      </select>
      <button type="submit" class="primary">Apply to selected</button>
    </form>
  );
}

export const filePages = new Hono<AppEnv>();
filePages.use("/app/files", requireSession);
filePages.use("/app/files/*", requireSession);

filePages.get("/app/files", async (c) => {
  const q = c.req.query();
  const page = Math.min(10_000, Math.max(1, Number.parseInt(q.page ?? "1", 10) || 1));
  const byColour = q.bycolor === "1" && COLOUR.test(q.color ?? "");
  const [r, albums] = await Promise.all([
    result(call(apiOf(c), "files.list", { params: { query: compact({
      limit: PAGE_SIZE,
      offset: (page - 1) * PAGE_SIZE,
      // A colour orders the list itself (no sort with it); "best match" needs words.
      sort: byColour ? undefined : SORTS.find((s) => s === q.sort && (s !== "relevance" || q.q)),
      color: byColour ? q.color : undefined,
      order: q.order === "asc" ? ("asc" as const) : undefined,
      visibility: VISIBILITIES.find((v) => v === q.visibility),
      excludeNsfw: "false", // the owner's own 18+ files are theirs to see
      q: q.q?.slice(0, 200),
      tag: q.tag?.slice(0, 50),
    }) } })),
    result(call(apiOf(c), "albums.list", { params: { query: { limit: 100 } } })),
  ]);
  const files = r.ok ? r.body.files : [];
  const total = r.ok ? r.body.pagination.total : 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const link = await ownerThumbLinks(c.env, session(c).userId, files.map((f) => f.id));
  const deleted = Number.parseInt(q.deleted ?? "", 10); // a count, never the query's text
  const pageLink = (p: number) => {
    const u = new URLSearchParams(q);
    u.set("page", String(p));
    return `/app/files?${u}`;
  };
  const filtered = Boolean(q.q || q.tag || q.visibility);
  const byColourNote = byColour ? `, nearest ${q.color} first` : "";
  // ?view= switches and is remembered; without it, the remembered one (grid by default).
  const view: View = q.view === "list" || q.view === "grid" ? q.view : getCookie(c, VIEW_COOKIE) === "list" ? "list" : "grid";
  if (q.view === "list" || q.view === "grid") setCookie(c, VIEW_COOKIE, view, { path: "/app/files", sameSite: "Lax", secure: true, maxAge: 365 * 86_400 });
  // The switch keeps the search and filters, never a notice of the address (?error=, ?saved=, ?deleted=).
  const viewLink = (v: View) => {
    const u = new URLSearchParams();
    for (const k of ["q", "tag", "sort", "order", "visibility", "bycolor", "color"]) if (q[k]) u.set(k, q[k]);
    u.set("view", v);
    return `/app/files?${u}`;
  };
  return c.html(
    <AppLayout c={c} title="My files">
      <div class="row">
        <h1>My files</h1>
        <a class="button primary" href="/app/upload">Upload</a>
      </div>
      {deleted > 0 ? <Notice kind="ok">{deleted === 1 ? "The file was deleted." : `${deleted} files were deleted.`}</Notice> : null}
      {q.saved ? <Notice kind="ok">Saved.</Notice> : null}
      <ErrorNotice param={q.error} />
      {!r.ok ? <Notice kind="error">{apiMessage(r)}</Notice> : null}
      <Filters q={q} />
      <DropZone />
      <div class="row">
        <p class="muted grow">{plural(total, "file")}{filtered ? " match" : ""}{byColourNote}</p>
        <ViewSwitch view={view} href={viewLink} />
      </div>
      {files.length === 0 ? <p>{filtered ? "Nothing matches: try other words." : <>No files yet. <a href="/app/upload">Upload some.</a></>}</p> : null}
      <ul class={view === "list" ? "grid list" : "grid"}>
        {files.map((f) => (
          <FileCard env={c.env} f={f} link={link} page={`${config(c.env).siteUrl}/f/${f.id}`} />
        ))}
      </ul>
      {files.length > 0 ? <BulkBar c={c} albums={albums.ok ? albums.body.albums : []} back={pageLink(page)} /> : null}
      <Pager page={page} pages={pages} href={pageLink} />
    </AppLayout>,
  );
});

filePages.route("/", bulkPages);
filePages.route("/", fileEditPages);
filePages.route("/", shareLinkPages);
filePages.route("/", ownerFilePages);
