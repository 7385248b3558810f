// One file of mine: edit its metadata (and see its duplicates), or delete it after a confirmation page.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Csrf, Notice } from "./ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage, type FileFull } from "./api";
import { requireFormToken, session, str, type Form } from "./context";
import { GridImage, type LinkOf } from "../picture";
import { ownerThumbLinks } from "../owner-images";
import { ShareSection } from "./share-link";
import { FileInsights } from "./insights";

type Editable = Pick<FileFull, "id" | "title" | "description" | "alt" | "visibility" | "tags"> & Partial<Pick<FileFull, "duplicates" | "thumbnailUrl" | "placeholder" | "dominantColor">>;

/** `link`: the owner's signed thumbnail links (owner-images.ts): the preview shows a private or 18+ file too. */
function EditPage(props: { c: Context<AppEnv>; file: Editable; link: LinkOf; error?: string; revoked?: boolean }) {
  const { c, file: f } = props;
  return (
    <AppLayout c={c} title="Edit file">
      <h1>Edit “{f.title || "Untitled image"}”</h1>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      {props.revoked ? <Notice kind="ok">Private links revoked: the links made so far no longer work.</Notice> : null}
      <p>
        <a href={`/f/${f.id}`}>Open the file's page</a> · <a href={`/app/files/${f.id}/similar`}>More like this</a>
      </p>
      <div class="edit-top">
      <a class="edit-preview" href={`/f/${f.id}`} aria-label={`Open the page of ${f.title || "the image"}`}>
        <GridImage env={c.env} file={f} alt="" size={256} link={props.link} />
      </a>
      <form method="post" action={`/app/files/${f.id}/edit`} class="stack panel">
        <Csrf c={c} />
        <label for="title">Title</label>
        <input id="title" name="title" maxlength={200} value={f.title ?? ""} />
        <label for="description">Description</label>
        <textarea id="description" name="description" rows={3} maxlength={2000}>{f.description ?? ""}</textarea>
        <label for="alt">Alt text (what the image shows, for screen readers; the title stands in without it)</label>
        <input id="alt" name="alt" maxlength={1000} value={f.alt ?? ""} />
        <label for="tags">Tags (comma separated)</label>
        <input id="tags" name="tags" value={(f.tags ?? []).join(", ")} />
        <label for="visibility">Visibility</label>
        <select id="visibility" name="visibility">
          {["public", "unlisted", "private"].map((v) => (
            <option value={v} selected={f.visibility === v}>{v}</option>
          ))}
        </select>
        <button type="submit">Save</button>
      </form>
      </div>
      <ShareSection c={c} fileId={f.id} />
      <FileInsights c={c} id={f.id} />
      {f.duplicates && f.duplicates.length > 0 ? (
        <section aria-labelledby="dups">
          <h2 id="dups">Duplicates among your files</h2>
          <ul>
            {f.duplicates.map((d) => (
              <li>
                <a href={`/f/${d.fileId}`}>{d.fileId}</a> ({d.match === "exact" ? "identical" : d.signal === "embedding" ? "similar: cropped or turned" : `similar, distance ${d.distance}`}) ·{" "}
                <a href={`/app/files/${d.fileId}/edit`}>edit</a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </AppLayout>
  );
}

const failure = (c: Context<AppEnv>, title: string, message: string, status: 400 | 403 | 404) =>
  c.html(
    <AppLayout c={c} title={title}>
      <h1>{title}</h1>
      <Notice kind="error">{message}</Notice>
    </AppLayout>,
    status,
  );

export const fileEditPages = new Hono<AppEnv>();

fileEditPages.get("/app/files/:id/edit", async (c) => {
  const r = await result(call(apiOf(c), "files.get", { params: { path: { id: c.req.param("id") } } }));
  if (!r.ok) return failure(c, "Edit file", apiMessage(r), 404);
  const link = await ownerThumbLinks(c.env, session(c).userId, [r.body.id]);
  return c.html(<EditPage c={c} file={r.body} link={link} revoked={c.req.query("revoked") === "1"} />);
});

fileEditPages.post("/app/files/:id/edit", requireFormToken, async (c) => {
  const id = c.req.param("id");
  const form = (await c.req.parseBody()) as Form;
  const tags = str(form, "tags").split(",").map((t) => t.trim()).filter(Boolean);
  const visibility = str(form, "visibility") as Editable["visibility"];
  const body = { title: str(form, "title"), description: str(form, "description"), alt: str(form, "alt"), visibility, tags };
  const r = await result(call(apiOf(c), "files.update", { params: { path: { id } }, body }));
  if (!r.ok) return c.html(<EditPage c={c} file={{ id, ...body }} link={await ownerThumbLinks(c.env, session(c).userId, [id])} error={apiMessage(r)} />, 400);
  return c.redirect("/app/files?saved=1", 303);
});

fileEditPages.get("/app/files/:id/delete", async (c) => {
  const id = c.req.param("id");
  const r = await result(call(apiOf(c), "files.get", { params: { path: { id } } }));
  if (!r.ok) return failure(c, "Delete file", apiMessage(r), 404);
  return c.html(
    <AppLayout c={c} title="Delete file">
      <h1>Delete “{r.body.title || "Untitled image"}”?</h1>
      <p>The file and its links stop working at once. This cannot be undone.</p>
      <form method="post" action={`/app/files/${id}/delete`} class="row">
        <Csrf c={c} />
        <button type="submit" class="danger">Delete permanently</button> <a href="/app/files">Cancel</a>
      </form>
    </AppLayout>,
  );
});

fileEditPages.post("/app/files/:id/delete", requireFormToken, async (c) => {
  const r = await result(call(apiOf(c), "files.delete", { params: { path: { id: c.req.param("id") } } }));
  if (!r.ok) return failure(c, "Delete file", apiMessage(r), r.status === 404 || r.status === 403 ? r.status : 400);
  return c.redirect("/app/files?deleted=1", 303);
});
