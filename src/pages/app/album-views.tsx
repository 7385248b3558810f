// The album pages' parts: the list with the create form, and one album's page (files with cover choice, the
// thumbnail picker for adding files, settings with the password state, delete). Thumbnails are owner links
// (`link`, owner-images.ts), and the owner's age-restricted files show with a badge.
import type { Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AgeBadge, AppLayout, Csrf, Notice, VisibilityBadge, plural } from "./ui";
import { ErrorNotice } from "./error-param";
import { FieldError, invalid, type FieldErrors } from "./form-errors";
import { str, type Form } from "./context";
import type { Album, AlbumDetail, FileItem } from "./api";
import { GridImage, type LinkOf } from "../picture";
import { config } from "../../config/env";

/** `covers`: each album's cover to draw (album-covers.ts: the chosen one, else its first file). `form` and
 *  `errors`: a refused create, shown again as typed with the messages beside the fields. */
export function AlbumList(props: { c: Context<AppEnv>; albums: Album[]; covers: Map<string, string | null>; link: LinkOf; error?: string; form?: Form; errors?: FieldErrors }) {
  const { c, errors } = props;
  const q = c.req.query();
  const v = (k: string) => (props.form ? str(props.form, k) : "");
  return (
    <AppLayout c={c} title="Albums">
      <h1>Albums</h1>
      {props.error ? <Notice kind="error">{props.error}</Notice> : <ErrorNotice param={q.error} />}
      {q.deleted ? <Notice kind="ok">The album was deleted.</Notice> : null}
      {props.albums.length === 0 ? <p>No albums yet: create one below.</p> : null}
      <ul class="grid">
        {props.albums.map((a) => (
          <li class="card">
            <a href={`/app/albums/${a.id}`} class="thumb">
              <span class="sr">Manage {a.title}</span>
              {props.covers.get(a.id) ? <GridImage env={c.env} file={{ id: props.covers.get(a.id)! }} alt="" link={props.link} /> : <span class="muted" aria-hidden="true">No images yet</span>}
            </a>
            <div class="meta">
              <a class="title" href={`/app/albums/${a.id}`}>{a.title}</a>
              <span class="muted">
                {plural(a.fileCount, "file")} · {a.visibility}
                {a.passwordProtected ? " · password" : ""}
              </span>
            </div>
          </li>
        ))}
      </ul>
      <h2 id="create">Create an album</h2>
      {errors?.notice ? <Notice kind="error">{errors.notice}</Notice> : null}
      <form method="post" action="/app/albums#create" class="stack panel">
        <Csrf c={c} />
        <label for="atitle">Title</label>
        <input id="atitle" name="title" required maxlength={200} value={v("title")} {...invalid(errors, "title", "atitle")} />
        <FieldError errors={errors} name="title" id="atitle" />
        <label for="adesc">Description</label>
        <textarea id="adesc" name="description" rows={2} maxlength={2000} {...invalid(errors, "description", "adesc")}>{v("description")}</textarea>
        <FieldError errors={errors} name="description" id="adesc" />
        <label for="avis">Visibility</label>
        <select id="avis" name="visibility">
          {[["public", "Public"], ["unlisted", "Unlisted"], ["private", "Private"]].map(([value, text]) => (
            <option value={value} selected={v("visibility") === value}>{text}</option>
          ))}
        </select>
        <label for="apw">Password (optional)</label>
        {/* A password is never sent back into a page: retyped after a refusal. */}
        <input id="apw" name="password" type="password" autocomplete="new-password" {...invalid(errors, "password", "apw")} />
        <FieldError errors={errors} name="password" id="apw" />
        <button type="submit">Create album</button>
      </form>
    </AppLayout>
  );
}

/** What the owner sees and visitors do not: why the public page shows fewer images than this one. */
function VisitorsSee(props: { files: FileItem[]; total: number }) {
  const hidden = props.files.filter((f) => f.visibility === "private" || f.ageRestricted);
  if (hidden.length === 0) return null;
  const priv = hidden.filter((f) => f.visibility === "private").length;
  const adult = hidden.filter((f) => f.visibility !== "private" && f.ageRestricted).length;
  const why = [
    priv ? `${plural(priv, "private image")} (only you see ${priv === 1 ? "it" : "them"})` : "",
    adult ? `${plural(adult, "image")} flagged 18+ (shown only to signed-in visitors of age with safe mode off)` : "",
  ].filter(Boolean);
  return (
    <p class="notice" id="visitors-see">
      Visitors see {props.total - hidden.length} of these {props.total} images on the public page: it leaves out {why.join(" and ")}.
      {" "}Change a file's visibility from its Edit page.
    </p>
  );
}

/** `cover`: the album's cover, chosen or (`byDefault`) its first image while none is chosen. */
function AlbumFileCard(props: { c: Context<AppEnv>; a: AlbumDetail; f: FileItem; link: LinkOf; cover: { id?: string; byDefault: boolean } }) {
  const { c, a, f, cover } = props;
  const title = f.title || "Untitled image";
  const isCover = cover.id === f.id;
  const chosen = isCover && !cover.byDefault;
  return (
    <li class={isCover ? "card cover" : "card"}>
      {/* The thumbnail is the cover button: a click makes this image the album's cover. */}
      <form method="post" action={`/app/albums/${a.id}/cover`}>
        <Csrf c={c} />
        <input type="hidden" name="fileId" value={f.id} />
        <button type="submit" class="thumb link" aria-label={chosen ? `${title} (the cover)` : `Make ${title} the cover`} aria-pressed={chosen ? "true" : "false"} disabled={chosen}>
          <GridImage env={c.env} file={f} alt="" link={props.link} />
        </button>
      </form>
      <div class="meta">
        <span class="title">{title}</span>
        <span class="badges">
          <VisibilityBadge visibility={f.visibility} />
          {f.ageRestricted ? <AgeBadge /> : null}
        </span>
        {chosen ? <span class="badge">Cover</span> : isCover ? <span class="muted"><span class="badge">Cover</span> the first image, until you click one</span> : <span class="muted">Click the image to make it the cover</span>}
        <form method="post" action={`/app/albums/${a.id}/files/${f.id}/remove`}>
          <Csrf c={c} />
          <button type="submit" class="small" aria-label={`Remove ${title} from the album`}>Remove</button>
        </form>
      </div>
    </li>
  );
}

export function AlbumManage(props: { c: Context<AppEnv>; a: AlbumDetail; mine: FileItem[]; link: LinkOf }) {
  const { c, a, mine, link } = props;
  const q = c.req.query();
  const url = `${config(c.env).siteUrl}/a/${a.id}`;
  return (
    <AppLayout c={c} title={a.title}>
      <h1>{a.title}</h1>
      {q.created ? <Notice kind="ok">Album created.</Notice> : null}
      {q.saved ? <Notice kind="ok">Saved.</Notice> : null}
      <ErrorNotice param={q.error} />
      <p class="row">
        <span class="badge">{a.visibility}</span>
        <span class="badge" id="password-state">{a.passwordProtected ? "Password set" : "No password"}</span>
        <span class="muted">{plural(a.fileCount, "file")}</span>
      </p>
      <div class="copyline">
        <span>Public page:</span>
        <a id="album-link" href={`/a/${a.id}`}>{url}</a>
        <button type="button" class="small" data-copy="" data-copy-text={url} aria-label="Copy the album's link">Copy</button>
      </div>
      <h2>Images in this album</h2>
      {a.files.length === 0 ? <p>None yet: add some below.</p> : null}
      <VisitorsSee files={a.files} total={a.files.length} />
      <ul class="grid">
        {a.files.map((f) => (
          <AlbumFileCard c={c} a={a} f={f} link={link} cover={{ id: a.coverImageId ?? a.files[0]?.id, byDefault: !a.coverImageId }} />
        ))}
      </ul>
      <h2>Add images</h2>
      {mine.length === 0 ? (
        <p>No other images to add.</p>
      ) : (
        <form method="post" action={`/app/albums/${a.id}/add`}>
          <Csrf c={c} />
          <fieldset>
            <legend>Your images</legend>
            <ul class="picker">
              {mine.map((f) => (
                <li>
                  <label>
                    <GridImage env={c.env} file={f} alt="" size={120} link={link} />
                    <span class="check">
                      <input type="checkbox" name="fileIds" value={f.id} /> {f.title || "Untitled image"}
                    </span>
                    {f.ageRestricted ? <AgeBadge /> : null}
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
          <p>
            <button type="submit" class="primary">Add to album</button>
          </p>
        </form>
      )}
      <h2>Settings</h2>
      <form method="post" action={`/app/albums/${a.id}`} class="stack panel">
        <Csrf c={c} />
        <label for="atitle">Title</label>
        <input id="atitle" name="title" required maxlength={200} value={a.title} />
        <label for="adesc">Description</label>
        <textarea id="adesc" name="description" rows={2} maxlength={2000}>{a.description}</textarea>
        <label for="avis">Visibility</label>
        <select id="avis" name="visibility">
          {["public", "unlisted", "private"].map((v) => (
            <option value={v} selected={a.visibility === v}>{v}</option>
          ))}
        </select>
        <p class="muted">{a.passwordProtected ? "A password is set: visitors must enter it." : "No password: anyone with the link can open it."}</p>
        <label for="apw">{a.passwordProtected ? "New password (leave empty to keep)" : "Password (optional)"}</label>
        <input id="apw" name="password" type="password" autocomplete="new-password" />
        {a.passwordProtected ? (
          <label>
            <input type="checkbox" name="removePassword" value="1" /> Remove the password
          </label>
        ) : null}
        <button type="submit">Save album</button>
      </form>
      <h2>Delete</h2>
      <form method="post" action={`/app/albums/${a.id}/delete`} class="row">
        <Csrf c={c} />
        <label class="check">
          <input type="checkbox" name="confirm" value="1" required /> Yes, delete this album (the images stay)
        </label>
        <button type="submit" class="danger">Delete album</button>
      </form>
    </AppLayout>
  );
}
