// Albums management pages: list + create, one album's settings (title, description, visibility, password,
// cover), add/remove files, delete. The public page stays /a/<id> (pages/album.tsx).
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../env";
import { AppLayout, Csrf, Notice } from "./ui";
import { apiCall, apiMessage, type PageSession } from "./session";

type Form = Record<string, string | File | (string | File)[]>;
type Guards = {
  withSession: (c: Context<AppEnv>, fn: (s: PageSession, csrf: string) => Promise<Response> | Response) => Promise<Response>;
  withPost: (c: Context<AppEnv>, fn: (s: PageSession, form: Form, csrf: string) => Promise<Response> | Response) => Promise<Response>;
};
const str = (f: Form, k: string) => (typeof f[k] === "string" ? (f[k] as string) : "");
type FileItem = { id: string; title: string | null; thumbnailUrl: string | null };

export function albumAppPages(g: Guards) {
  const app = new Hono<AppEnv>();

  app.get("/app/albums", (c) =>
    g.withSession(c, async (s, csrf) => {
      const r = await apiCall(c, "GET", "/albums?limit=100", { token: s.access });
      const albums = (r.ok ? r.body.albums : []) as Array<{ id: string; title: string; visibility: string; fileCount: number; passwordProtected?: boolean }>;
      const q = c.req.query();
      return c.html(
        <AppLayout title="Albums" signedIn csrf={csrf}>
          <h1>Albums</h1>
          {q.error ? <Notice kind="error">{q.error}</Notice> : null}
          {q.deleted ? <Notice kind="ok">The album was deleted.</Notice> : null}
          <h2>Create an album</h2>
          <form method="post" action="/app/albums" class="stack">
            <Csrf token={csrf} />
            <label for="atitle">Title</label>
            <input id="atitle" name="title" required maxlength={200} />
            <label for="adesc">Description</label>
            <textarea id="adesc" name="description" rows={2} maxlength={2000}></textarea>
            <label for="avis">Visibility</label>
            <select id="avis" name="visibility">
              <option value="public">Public</option>
              <option value="unlisted">Unlisted</option>
              <option value="private">Private</option>
            </select>
            <label for="apw">Password (optional)</label>
            <input id="apw" name="password" type="password" autocomplete="new-password" />
            <button type="submit">Create album</button>
          </form>
          <h2>Your albums</h2>
          {albums.length === 0 ? <p>No albums yet.</p> : null}
          <ul>
            {albums.map((a) => (
              <li>
                <a href={`/app/albums/${a.id}`}>{a.title}</a> <span class="muted">({a.visibility}, {a.fileCount} files{a.passwordProtected ? ", password" : ""})</span>
              </li>
            ))}
          </ul>
        </AppLayout>,
      );
    }),
  );

  app.post("/app/albums", (c) =>
    g.withPost(c, async (s, form) => {
      const body: Record<string, unknown> = { title: str(form, "title"), description: str(form, "description"), visibility: str(form, "visibility") || "public" };
      if (str(form, "password")) body.password = str(form, "password");
      const r = await apiCall(c, "POST", "/albums", { token: s.access, body });
      if (!r.ok) return c.redirect(`/app/albums?error=${encodeURIComponent(apiMessage(r))}`, 303);
      return c.redirect(`/app/albums/${r.body.id}?created=1`, 303);
    }),
  );

  app.get("/app/albums/:id", (c) =>
    g.withSession(c, async (s, csrf) => {
      const id = encodeURIComponent(c.req.param("id"));
      const [ar, fr] = await Promise.all([
        apiCall(c, "GET", `/albums/${id}?limit=100`, { token: s.access }),
        apiCall(c, "GET", "/files?limit=100&excludeNsfw=false", { token: s.access }),
      ]);
      if (!ar.ok) return c.html(<AppLayout title="Album" signedIn csrf={csrf}><Notice kind="error">{apiMessage(ar)}</Notice></AppLayout>, ar.status === 404 ? 404 : 400);
      const a = ar.body as { id: string; title: string; description: string; visibility: string; coverImageId: string | null; passwordProtected: boolean; files: FileItem[] };
      const inAlbum = new Set(a.files.map((f) => f.id));
      const mine = ((fr.ok ? fr.body.files : []) as FileItem[]).filter((f) => !inAlbum.has(f.id));
      const q = c.req.query();
      return c.html(
        <AppLayout title={a.title} signedIn csrf={csrf}>
          <h1>{a.title}</h1>
          {q.created ? <Notice kind="ok">Album created.</Notice> : null}
          {q.saved ? <Notice kind="ok">Saved.</Notice> : null}
          {q.error ? <Notice kind="error">{q.error}</Notice> : null}
          <p>
            Public page: <a id="album-link" href={`/a/${a.id}`}>{new URL(`/a/${a.id}`, c.req.url).toString()}</a>
          </p>
          <h2>Files in this album</h2>
          {a.files.length === 0 ? <p>None yet.</p> : null}
          <ul class="grid">
            {a.files.map((f) => (
              <li class="card">
                <a href={`/f/${f.id}`} class="thumb">
                  {f.thumbnailUrl ? <img src={f.thumbnailUrl} alt={f.title ?? f.id} loading="lazy" /> : <span class="pending">processing…</span>}
                </a>
                <div class="meta">
                  <span>{f.title || f.id}{a.coverImageId === f.id ? " (cover)" : ""}</span>
                  <form method="post" action={`/app/albums/${a.id}/cover`} class="inline">
                    <Csrf token={csrf} />
                    <input type="hidden" name="fileId" value={f.id} />
                    <button type="submit">Make cover</button>
                  </form>
                  <form method="post" action={`/app/albums/${a.id}/files/${f.id}/remove`} class="inline">
                    <Csrf token={csrf} />
                    <button type="submit" aria-label={`Remove ${f.title || f.id} from the album`}>Remove</button>
                  </form>
                </div>
              </li>
            ))}
          </ul>
          <h2>Add files</h2>
          {mine.length === 0 ? (
            <p>No other files to add.</p>
          ) : (
            <form method="post" action={`/app/albums/${a.id}/add`}>
              <Csrf token={csrf} />
              <fieldset>
                <legend>Your files</legend>
                {mine.map((f) => (
                  <label class="pick">
                    <input type="checkbox" name="fileIds" value={f.id} /> {f.title || f.id}
                  </label>
                ))}
              </fieldset>
              <button type="submit">Add to album</button>
            </form>
          )}
          <h2>Settings</h2>
          <form method="post" action={`/app/albums/${a.id}`} class="stack">
            <Csrf token={csrf} />
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
            <label for="apw">{a.passwordProtected ? "New password (leave empty to keep)" : "Password (optional)"}</label>
            <input id="apw" name="password" type="password" autocomplete="new-password" />
            {a.passwordProtected ? (
              <label><input type="checkbox" name="removePassword" value="1" /> Remove the password</label>
            ) : null}
            <button type="submit">Save album</button>
          </form>
          <h2>Delete</h2>
          <form method="post" action={`/app/albums/${a.id}/delete`}>
            <Csrf token={csrf} />
            <label><input type="checkbox" name="confirm" value="1" required /> Yes, delete this album (the files stay)</label>{" "}
            <button type="submit" class="danger">Delete album</button>
          </form>
        </AppLayout>,
      );
    }),
  );

  const back = (c: Context<AppEnv>, r: { ok: boolean } & Parameters<typeof apiMessage>[0], ok = "saved=1") =>
    c.redirect(`/app/albums/${c.req.param("id")}?${r.ok ? ok : `error=${encodeURIComponent(apiMessage(r))}`}`, 303);

  app.post("/app/albums/:id", (c) =>
    g.withPost(c, async (s, form) => {
      const body: Record<string, unknown> = { title: str(form, "title"), description: str(form, "description"), visibility: str(form, "visibility") };
      if (str(form, "removePassword") === "1") body.password = null;
      else if (str(form, "password")) body.password = str(form, "password");
      const r = await apiCall(c, "PATCH", `/albums/${encodeURIComponent(c.req.param("id"))}`, { token: s.access, body });
      return back(c, r);
    }),
  );
  app.post("/app/albums/:id/cover", (c) =>
    g.withPost(c, async (s, form) => {
      const r = await apiCall(c, "PATCH", `/albums/${encodeURIComponent(c.req.param("id"))}`, { token: s.access, body: { coverImageId: str(form, "fileId") } });
      return back(c, r);
    }),
  );
  app.post("/app/albums/:id/add", (c) =>
    g.withPost(c, async (s) => {
      const all = await c.req.parseBody({ all: true });
      const fileIds = ([] as unknown[]).concat(all.fileIds ?? []).filter((v): v is string => typeof v === "string");
      if (fileIds.length === 0) return c.redirect(`/app/albums/${c.req.param("id")}?error=${encodeURIComponent("Choose at least one file")}`, 303);
      const r = await apiCall(c, "POST", `/albums/${encodeURIComponent(c.req.param("id"))}/files`, { token: s.access, body: { fileIds } });
      return back(c, r);
    }),
  );
  app.post("/app/albums/:id/files/:fileId/remove", (c) =>
    g.withPost(c, async (s) => {
      const r = await apiCall(c, "DELETE", `/albums/${encodeURIComponent(c.req.param("id"))}/files/${encodeURIComponent(c.req.param("fileId"))}`, { token: s.access });
      return back(c, r);
    }),
  );
  app.post("/app/albums/:id/delete", (c) =>
    g.withPost(c, async (s) => {
      const r = await apiCall(c, "DELETE", `/albums/${encodeURIComponent(c.req.param("id"))}`, { token: s.access });
      if (!r.ok) return back(c, r);
      return c.redirect("/app/albums?deleted=1", 303);
    }),
  );

  return app;
}
