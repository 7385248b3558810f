// The web application (issue 7): sign-up/login/verify, upload, my files, API keys, account.
// Server-rendered; every state change is a form POST checked for same Origin + a per-session CSRF token.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../env";
import { revokeSession } from "../../auth/sessions";
import { and, eq, inArray } from "drizzle-orm";
import { files as filesTable, users } from "../../db/schema";
import { AppLayout, Csrf, Notice, formatBytes } from "./ui";
import { UploadResults, type UploadAnswer, type UploadOutcome } from "./upload-result";
import { albumAppPages } from "./albums";
import { moderationAppPages } from "./moderation";
import { authenticateApiKey } from "../../keys/keys";
import {
  apiCall,
  apiForm,
  apiMessage,
  clearSessionCookie,
  csrfToken,
  csrfValid,
  pageSession,
  sameOrigin,
  setSessionCookie,
  type PageSession,
} from "./session";

type Deps = { headers: (c: Context<AppEnv>) => void };
type Form = Record<string, string | File | (string | File)[]>;
const str = (f: Form, k: string) => (typeof f[k] === "string" ? (f[k] as string) : "");

export function appPages(deps: Deps) {
  const app = new Hono<AppEnv>();

  // Every page: security headers, and never cached (they show per-user data).
  app.use("/app/*", async (c, next) => {
    deps.headers(c);
    c.header("Cache-Control", "no-store");
    await next();
  });
  app.use("/verify-email", async (c, next) => {
    deps.headers(c);
    c.header("Cache-Control", "no-store");
    await next();
  });

  /** Runs a page that needs a session: redirects to login without one. */
  async function withSession(c: Context<AppEnv>, fn: (s: PageSession, csrf: string) => Promise<Response> | Response) {
    const s = await pageSession(c);
    if (!s) return c.redirect(`/app/login?next=${encodeURIComponent(new URL(c.req.url).pathname)}`, 303);
    return fn(s, await csrfToken(c.env, s.sessionId));
  }

  /** A state-changing form POST: same Origin, a session and a valid CSRF token, or 403. */
  async function withPost(c: Context<AppEnv>, fn: (s: PageSession, form: Form, csrf: string) => Promise<Response> | Response) {
    if (!sameOrigin(c)) return c.text("Cross-site form posts are refused", 403);
    const s = await pageSession(c);
    if (!s) return c.redirect("/app/login", 303);
    const form = (await c.req.parseBody()) as Form;
    if (!(await csrfValid(c.env, s.sessionId, form._csrf))) return c.text("Invalid or missing CSRF token: reload the page and try again", 403);
    return fn(s, form, await csrfToken(c.env, s.sessionId));
  }

  app.get("/app", (c) => c.redirect("/app/upload", 303));

  // ---------- sign up / log in / log out ----------
  const safeNext = (n: string | undefined) => (n && /^\/app\/[\w\-/]*$/.test(n) ? n : "/app/upload");

  function LoginPage(props: { error?: string; email?: string; next?: string }) {
    return (
      <AppLayout title="Log in" signedIn={false}>
        <h1>Log in</h1>
        {props.error ? <Notice kind="error">{props.error}</Notice> : null}
        <form method="post" action="/app/login" class="stack">
          <input type="hidden" name="next" value={props.next ?? ""} />
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="email" required value={props.email ?? ""} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Log in</button>
        </form>
        <p>
          No account yet? <a href="/app/signup">Sign up</a>
        </p>
      </AppLayout>
    );
  }

  app.get("/app/login", (c) => c.html(<LoginPage next={c.req.query("next")} />));
  app.post("/app/login", async (c) => {
    if (!sameOrigin(c)) return c.text("Cross-site form posts are refused", 403);
    const form = (await c.req.parseBody()) as Form;
    const r = await apiCall(c, "POST", "/auth/login", { body: { email: str(form, "email"), password: str(form, "password") } });
    if (!r.ok) return c.html(<LoginPage error={apiMessage(r)} email={str(form, "email")} next={str(form, "next")} />, r.status === 429 ? 429 : 401);
    setSessionCookie(c, r.body.session);
    return c.redirect(safeNext(str(form, "next")), 303);
  });

  function SignupPage(props: { error?: string; form?: Form }) {
    const v = (k: string) => (props.form ? str(props.form, k) : "");
    return (
      <AppLayout title="Sign up" signedIn={false}>
        <h1>Create an account</h1>
        {props.error ? <Notice kind="error">{props.error}</Notice> : null}
        <form method="post" action="/app/signup" class="stack">
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="email" required value={v("email")} />
          <label for="username">Username</label>
          <input id="username" name="username" autocomplete="username" required minlength={3} maxlength={32} pattern="[A-Za-z0-9_.\-]+" value={v("username")} />
          <label for="password">Password (at least 8 characters)</label>
          <input id="password" name="password" type="password" autocomplete="new-password" required minlength={8} />
          <label>
            <input type="checkbox" name="ageConfirmed" value="1" /> I am 18 or older
          </label>
          <button type="submit">Sign up</button>
        </form>
        <p>
          Already registered? <a href="/app/login">Log in</a>
        </p>
      </AppLayout>
    );
  }

  app.get("/app/signup", (c) => c.html(<SignupPage />));
  app.post("/app/signup", async (c) => {
    if (!sameOrigin(c)) return c.text("Cross-site form posts are refused", 403);
    const form = (await c.req.parseBody()) as Form;
    const r = await apiCall(c, "POST", "/auth/signup", {
      body: { email: str(form, "email"), username: str(form, "username"), password: str(form, "password"), ageConfirmed: str(form, "ageConfirmed") === "1" },
    });
    if (!r.ok) {
      const fields = (r.body?.details?.fields ?? {}) as Record<string, unknown>;
      const detail = Object.entries(fields).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : String(v)}`).join("; ");
      return c.html(<SignupPage error={detail ? `${apiMessage(r)} (${detail})` : apiMessage(r)} form={form} />, r.status === 429 ? 429 : 400);
    }
    setSessionCookie(c, r.body.session);
    return c.redirect("/app/account?welcome=1", 303);
  });

  app.post("/app/logout", (c) =>
    withPost(c, async (s) => {
      await revokeSession(c.get("db"), s.sessionId, "logout");
      clearSessionCookie(c);
      return c.redirect("/app/login", 303);
    }),
  );

  // ---------- e-mail verification ----------
  // The mail link only shows a button: a GET must not use up the token (mail scanners prefetch links).
  app.get("/verify-email", (c) => {
    const token = c.req.query("token") ?? "";
    return c.html(
      <AppLayout title="Verify e-mail" signedIn={false}>
        <h1>Verify your e-mail address</h1>
        <form method="post" action="/verify-email" class="stack">
          <label for="token">Verification token</label>
          <input id="token" name="token" required value={token} />
          <button type="submit">Confirm my e-mail address</button>
        </form>
      </AppLayout>,
    );
  });
  app.post("/verify-email", async (c) => {
    if (!sameOrigin(c)) return c.text("Cross-site form posts are refused", 403);
    const form = (await c.req.parseBody()) as Form;
    const r = await apiCall(c, "POST", "/auth/verify-email", { body: { token: str(form, "token") } });
    return c.html(
      <AppLayout title="Verify e-mail" signedIn={false}>
        <h1>Verify your e-mail address</h1>
        {r.ok ? <Notice kind="ok">Your e-mail address is verified.</Notice> : <Notice kind="error">{apiMessage(r)}</Notice>}
        <p>
          <a href="/app/account">Go to your account</a>
        </p>
      </AppLayout>,
      r.ok ? 200 : 400,
    );
  });
  app.post("/app/resend-verification", (c) =>
    withPost(c, async (s) => {
      const r = await apiCall(c, "POST", "/auth/resend-verification", { token: s.access });
      return c.redirect(`/app/account?${r.ok ? "resent=1" : `error=${encodeURIComponent(apiMessage(r))}`}`, 303);
    }),
  );

  // ---------- short-lived token for same-origin client scripts ----------
  // Only same-origin script can send X-Requested-With without a preflight we never answer; the cookie is SameSite=Strict.
  app.get("/app/token", async (c) => {
    if (c.req.header("x-requested-with") !== "imghost") return c.json({ error: "Forbidden", message: "Missing X-Requested-With" }, 403);
    const s = await pageSession(c);
    if (!s) return c.json({ error: "Unauthorized", message: "Not signed in" }, 401);
    return c.json({ access_token: s.access, token_type: "Bearer" });
  });

  // ---------- upload ----------
  app.get("/app/upload", (c) =>
    withSession(c, (_s, csrf) =>
      c.html(
        <AppLayout title="Upload" signedIn csrf={csrf} script>
          <h1>Upload images</h1>
          <noscript>
            <Notice kind="ok">Without JavaScript the form posts the images in one request (no progress bar; up to your plan's file size).</Notice>
          </noscript>
          <form id="upload-form" class="stack" method="post" action="/app/upload" enctype="multipart/form-data">
            <Csrf token={csrf} />
            <div id="drop" class="drop" tabindex={0} role="button" aria-describedby="drop-help">
              <p id="drop-help">Drop images here, paste from the clipboard, or choose files.</p>
              <label for="files">Choose images</label>
              <input id="files" name="files" type="file" accept="image/jpeg,image/png,image/gif,image/webp,image/avif,image/bmp" multiple />
            </div>
            <label for="title">Title</label>
            <input id="title" name="title" maxlength={200} />
            <label for="description">Description</label>
            <textarea id="description" name="description" rows={2} maxlength={2000}></textarea>
            <label for="tags">Tags (comma separated)</label>
            <input id="tags" name="tags" />
            <label for="visibility">Visibility</label>
            <select id="visibility" name="visibility">
              <option value="public">Public</option>
              <option value="unlisted">Unlisted</option>
              <option value="private">Private</option>
            </select>
            <label for="expiry">Expires</label>
            <select id="expiry" name="expiry">
              <option value="">Never</option>
              <option value="3600">After 1 hour</option>
              <option value="86400">After 1 day</option>
              <option value="604800">After 7 days</option>
              <option value="2592000">After 30 days</option>
            </select>
            <button type="submit" id="start">Upload</button>
          </form>
          <div id="limits-msg" role="alert"></div>
          <ul id="queue" class="queue" aria-live="polite"></ul>
        </AppLayout>,
      ),
    ),
  );

  // Without JavaScript the upload form posts here: each image goes through POST /upload/form in-process,
  // so the API's checks, quota and rate limits apply exactly as for scripts.
  app.post("/app/upload", async (c) => {
    if (!sameOrigin(c)) return c.text("Cross-site form posts are refused", 403);
    const s = await pageSession(c);
    if (!s) return c.redirect("/app/login", 303);
    let form: FormData;
    try {
      form = await c.req.formData(); // read (and size-checked) once by pageFormPosts
    } catch {
      return c.text("Send the upload form as multipart/form-data", 400);
    }
    if (!(await csrfValid(c.env, s.sessionId, form.get("_csrf")))) return c.text("Invalid or missing CSRF token: reload the page and try again", 403);
    const csrf = await csrfToken(c.env, s.sessionId);
    const images = form.getAll("files").filter((f): f is File => typeof f !== "string" && f.size > 0);
    const results: UploadOutcome[] = [];
    for (const image of images) {
      const one = new FormData();
      one.set("file", image);
      for (const [field, from] of [["title", "title"], ["description", "description"], ["visibility", "visibility"], ["expiresIn", "expiry"]]) {
        const value = form.get(from);
        if (typeof value === "string" && value !== "") one.set(field, value);
      }
      const r = await apiForm(c, "/upload/form", one, s.access);
      results.push(r.ok ? { name: image.name, ok: true, answer: r.body as UploadAnswer } : { name: image.name, ok: false, text: apiMessage(r) });
    }
    const failed = results.some((r) => !r.ok) || results.length === 0;
    return c.html(
      <AppLayout title="Upload" signedIn csrf={csrf}>
        <h1>Upload results</h1>
        {results.length === 0 ? <Notice kind="error">Choose at least one image.</Notice> : null}
        <UploadResults siteUrl={c.env.SITE_URL} results={results} />
        <p><a href="/app/upload">Upload more</a> · <a href="/app/files">My files</a></p>
      </AppLayout>,
      failed ? 400 : 200,
    );
  });

  // ---------- my files ----------
  app.get("/app/files", (c) =>
    withSession(c, async (s, csrf) => {
      const q = c.req.query();
      const params = new URLSearchParams();
      const limit = 24;
      const page = Math.max(1, Number.parseInt(q.page ?? "1", 10) || 1);
      params.set("limit", String(limit));
      params.set("offset", String((page - 1) * limit));
      if (["created", "views", "size"].includes(q.sort ?? "")) params.set("sort", q.sort!);
      if (["asc", "desc"].includes(q.order ?? "")) params.set("order", q.order!);
      if (["public", "unlisted", "private"].includes(q.visibility ?? "")) params.set("visibility", q.visibility!);
      params.set("excludeNsfw", q.nsfw === "show" ? "false" : "true");
      const r = await apiCall(c, "GET", `/files?${params}`, { token: s.access });
      const files = (r.ok ? r.body.files : []) as Array<{ id: string; url: string; thumbnailUrl: string | null; title: string | null; mime: string; bytes: number; viewCount: number; createdAt: string }>;
      // Safe-mode blur: list items do not carry ageRestricted, so look the flags up for this page's ids.
      const restricted = new Set<string>();
      if (files.length > 0) {
        const db = c.get("db");
        const [me, rows] = await Promise.all([
          db.select({ safeMode: users.safeMode }).from(users).where(eq(users.id, s.userId)).get(),
          db
            .select({ id: filesTable.id })
            .from(filesTable)
            .where(and(inArray(filesTable.id, files.map((f) => f.id)), eq(filesTable.ageRestricted, true))),
        ]);
        if (me?.safeMode !== false) for (const row of rows) restricted.add(row.id);
      }
      const total = r.ok ? (r.body.pagination?.total as number | undefined) : undefined;
      const hasMore = r.ok ? Boolean(r.body.pagination?.hasMore ?? (total !== undefined ? page * limit < total : files.length === limit)) : false;
      const link = (p: number) => {
        const u = new URLSearchParams(q as Record<string, string>);
        u.set("page", String(p));
        return `/app/files?${u}`;
      };
      return c.html(
        <AppLayout title="My files" signedIn csrf={csrf} script>
          <h1>My files</h1>
          {q.deleted ? <Notice kind="ok">The file was deleted.</Notice> : null}
          {q.saved ? <Notice kind="ok">Saved.</Notice> : null}
          {!r.ok ? <Notice kind="error">{apiMessage(r)}</Notice> : null}
          <form method="get" action="/app/files" class="filters">
            <label for="sort">Sort</label>
            <select id="sort" name="sort">
              {["created", "views", "size"].map((v) => (
                <option value={v} selected={q.sort === v}>{v}</option>
              ))}
            </select>
            <label for="order">Order</label>
            <select id="order" name="order">
              <option value="desc" selected={q.order !== "asc"}>descending</option>
              <option value="asc" selected={q.order === "asc"}>ascending</option>
            </select>
            <label for="fvis">Visibility</label>
            <select id="fvis" name="visibility">
              <option value="">any</option>
              {["public", "unlisted", "private"].map((v) => (
                <option value={v} selected={q.visibility === v}>{v}</option>
              ))}
            </select>
            <label>
              <input type="checkbox" name="nsfw" value="show" checked={q.nsfw === "show"} /> include age-restricted
            </label>
            <button type="submit">Apply</button>
          </form>
          {files.length === 0 ? <p>No files yet. <a href="/app/upload">Upload some.</a></p> : null}
          <ul class="grid">
            {files.map((f) => (
              <li class={restricted.has(f.id) ? "card restricted" : "card"}>
                <a href={`/f/${f.id}`} class="thumb">
                  {f.thumbnailUrl ? <img src={f.thumbnailUrl} alt={f.title ?? f.id} loading="lazy" /> : <span class="pending">processing…</span>}
                </a>
                <div class="meta">
                  <a href={`/f/${f.id}`}>{f.title || f.id}</a>
                  {restricted.has(f.id) ? <span class="badge">18+ (blurred: safe mode)</span> : null}
                  <span class="muted">
                    {formatBytes(f.bytes)} · {f.viewCount} views
                  </span>
                  <span>
                    <a href={`/app/files/${f.id}/edit`}>Edit</a> · <a href={`/app/files/${f.id}/delete`}>Delete</a>
                  </span>
                </div>
              </li>
            ))}
          </ul>
          <nav class="pager" aria-label="Pages">
            {page > 1 ? <a href={link(page - 1)} rel="prev">Previous</a> : null}
            <span>Page {page}</span>
            {hasMore ? <a href={link(page + 1)} rel="next">Next</a> : null}
          </nav>
        </AppLayout>,
      );
    }),
  );

  app.get("/app/files/:id/delete", (c) =>
    withSession(c, async (s, csrf) => {
      const id = c.req.param("id");
      const r = await apiCall(c, "GET", `/files/${encodeURIComponent(id)}`, { token: s.access });
      if (!r.ok) return c.html(<AppLayout title="Delete file" signedIn csrf={csrf}><Notice kind="error">{apiMessage(r)}</Notice></AppLayout>, 404);
      return c.html(
        <AppLayout title="Delete file" signedIn csrf={csrf}>
          <h1>Delete “{r.body.title || id}”?</h1>
          <p>The file and its links stop working at once. This cannot be undone.</p>
          <form method="post" action={`/app/files/${id}/delete`}>
            <Csrf token={csrf} />
            <button type="submit" class="danger">Delete permanently</button> <a href="/app/files">Cancel</a>
          </form>
        </AppLayout>,
      );
    }),
  );
  app.post("/app/files/:id/delete", (c) =>
    withPost(c, async (s, _f, csrf) => {
      const r = await apiCall(c, "DELETE", `/files/${encodeURIComponent(c.req.param("id"))}`, { token: s.access });
      if (!r.ok) return c.html(<AppLayout title="Delete file" signedIn csrf={csrf}><Notice kind="error">{apiMessage(r)}</Notice></AppLayout>, r.status as 400);
      return c.redirect("/app/files?deleted=1", 303);
    }),
  );

  function EditPage(props: { csrf: string; file: Record<string, any>; error?: string }) {
    const f = props.file;
    return (
      <AppLayout title="Edit file" signedIn csrf={props.csrf}>
        <h1>Edit “{f.title || f.id}”</h1>
        {props.error ? <Notice kind="error">{props.error}</Notice> : null}
        <p>
          <a href={`/f/${f.id}`}>Open the file's page</a>
        </p>
        <form method="post" action={`/app/files/${f.id}/edit`} class="stack">
          <Csrf token={props.csrf} />
          <label for="title">Title</label>
          <input id="title" name="title" maxlength={200} value={f.title ?? ""} />
          <label for="description">Description</label>
          <textarea id="description" name="description" rows={3} maxlength={2000}>{f.description ?? ""}</textarea>
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
        {Array.isArray(f.duplicates) && f.duplicates.length > 0 ? (
          <section aria-labelledby="dups">
            <h2 id="dups">Duplicates among your files</h2>
            <ul>
              {(f.duplicates as Array<{ fileId: string; distance: number; match: string; signal?: string }>).map((d) => (
                <li>
                  <a href={`/f/${d.fileId}`}>{d.fileId}</a> ({d.match === "exact" ? "identical" : d.signal === "embedding" ? "similar: cropped or turned" : `similar, distance ${d.distance}`}) · <a href={`/app/files/${d.fileId}/edit`}>edit</a>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </AppLayout>
    );
  }
  app.get("/app/files/:id/edit", (c) =>
    withSession(c, async (s, csrf) => {
      const r = await apiCall(c, "GET", `/files/${encodeURIComponent(c.req.param("id"))}`, { token: s.access });
      if (!r.ok) return c.html(<AppLayout title="Edit file" signedIn csrf={csrf}><Notice kind="error">{apiMessage(r)}</Notice></AppLayout>, 404);
      return c.html(<EditPage csrf={csrf} file={r.body} />);
    }),
  );
  app.post("/app/files/:id/edit", (c) =>
    withPost(c, async (s, form, csrf) => {
      const id = c.req.param("id");
      const tags = str(form, "tags").split(",").map((t) => t.trim()).filter(Boolean);
      const body = { title: str(form, "title"), description: str(form, "description"), visibility: str(form, "visibility"), tags };
      const r = await apiCall(c, "PATCH", `/files/${encodeURIComponent(id)}`, { token: s.access, body });
      if (!r.ok) return c.html(<EditPage csrf={csrf} file={{ id, ...body }} error={apiMessage(r)} />, 400);
      return c.redirect("/app/files?saved=1", 303);
    }),
  );

  // ---------- API keys ----------
  /** A ShareX custom uploader (https://getsharex.com/docs/custom-uploader) for POST /upload/form. */
  function sharexUploader(env: Env, key: string) {
    return {
      Version: "15.0.0",
      Name: new URL(env.SITE_URL).host,
      DestinationType: "ImageUploader",
      RequestMethod: "POST",
      RequestURL: `${env.BASE_URL}/upload/form`,
      Headers: { Authorization: `Bearer ${key}` },
      Body: "MultipartFormData",
      FileFormName: "file",
      URL: "{json:url}",
      ThumbnailURL: "{json:url}/thumb",
      ErrorMessage: "{json:message}",
    };
  }
  type Key = { id: string; name: string; prefix: string; permissions: string[]; expiresAt: string | null; lastUsedAt: string | null; revokedAt: string | null; createdAt: string };
  async function KeysPage(c: Context<AppEnv>, s: PageSession, csrf: string, extra: { created?: { key: string; name: string; permissions: string[] }; error?: string; revoked?: boolean }) {
    const r = await apiCall(c, "GET", "/keys?limit=100", { token: s.access });
    const keys = (r.ok ? r.body.keys : []) as Key[];
    const origin = new URL(c.req.url).origin;
    return c.html(
      <AppLayout title="API keys" signedIn csrf={csrf} script>
        <h1>API keys</h1>
        {extra.error ? <Notice kind="error">{extra.error}</Notice> : null}
        {extra.revoked ? <Notice kind="ok">The key was revoked.</Notice> : null}
        {extra.created ? (
          <section class="created" aria-labelledby="new-key">
            <h2 id="new-key">Your new key “{extra.created.name}”</h2>
            <Notice kind="error">Copy it now: it is shown only once and cannot be recovered.</Notice>
            <p>
              <code id="new-key-value">{extra.created.key}</code> <button type="button" data-copy="#new-key-value">Copy</button>
            </p>
            <p>Try it (lists your files):</p>
            <pre>{`curl -H "Authorization: Bearer ${extra.created.key}" ${origin}/api/v1/files`}</pre>
            <p>Upload in one request (as ShareX does):</p>
            <pre>{`curl -F file=@photo.jpg -H "Authorization: Bearer ${extra.created.key}" ${c.env.BASE_URL}/upload/form`}</pre>
            <p>
              Large files and your own code: the direct and multipart flows in the <a href="/docs">API reference</a>.
            </p>
            {extra.created.permissions.includes("upload") ? (
              <form method="post" action="/app/keys/sharex" class="inline">
                <Csrf token={csrf} />
                <input type="hidden" name="key" value={extra.created.key} />
                <button type="submit">Download ShareX uploader (.sxcu)</button>
              </form>
            ) : null}
          </section>
        ) : null}
        <h2>Create a key</h2>
        <form method="post" action="/app/keys" class="stack">
          <Csrf token={csrf} />
          <label for="kname">Name</label>
          <input id="kname" name="name" required maxlength={100} />
          <fieldset>
            <legend>Permissions</legend>
            <label><input type="checkbox" name="permissions" value="read" checked /> read</label>
            <label><input type="checkbox" name="permissions" value="upload" checked /> upload</label>
            <label><input type="checkbox" name="permissions" value="manage" /> manage</label>
          </fieldset>
          <label for="kexp">Expires</label>
          <select id="kexp" name="expires">
            <option value="">Never</option>
            <option value="7">In 7 days</option>
            <option value="30">In 30 days</option>
            <option value="365">In a year</option>
          </select>
          <button type="submit">Create key</button>
        </form>
        <h2>Your keys</h2>
        {keys.length === 0 ? <p>No keys yet.</p> : null}
        <table class="keys">
          <thead>
            <tr><th>Name</th><th>Prefix</th><th>Permissions</th><th>Last used</th><th>Expires</th><th><span class="sr">Actions</span></th></tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr>
                <td>{k.name}</td>
                <td><code>{k.prefix}…</code></td>
                <td>{k.permissions.join(", ")}</td>
                <td>{k.lastUsedAt ? new Date(k.lastUsedAt).toISOString().slice(0, 16).replace("T", " ") : "never"}</td>
                <td>{k.revokedAt ? "revoked" : k.expiresAt ? k.expiresAt.slice(0, 10) : "never"}</td>
                <td>
                  {k.revokedAt ? null : (
                    <form method="post" action={`/app/keys/${k.id}/revoke`} class="inline">
                      <Csrf token={csrf} />
                      <button type="submit" class="danger" aria-label={`Revoke ${k.name}`}>Revoke</button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </AppLayout>,
      extra.error ? 400 : 200,
    );
  }
  app.get("/app/keys", (c) => withSession(c, (s, csrf) => KeysPage(c, s, csrf, { revoked: c.req.query("revoked") === "1" })));
  app.post("/app/keys", (c) =>
    withPost(c, async (s, _form, csrf) => {
      const all = await c.req.parseBody({ all: true });
      const perms = ([] as unknown[]).concat(all.permissions ?? []).filter((p): p is string => typeof p === "string");
      const days = Number.parseInt(typeof all.expires === "string" ? all.expires : "", 10);
      const body: Record<string, unknown> = { name: typeof all.name === "string" ? all.name : "", permissions: perms };
      if (days > 0) body.expiresAt = new Date(Date.now() + days * 86_400_000).toISOString();
      const r = await apiCall(c, "POST", "/keys", { token: s.access, body });
      if (!r.ok) return KeysPage(c, s, csrf, { error: apiMessage(r) });
      return KeysPage(c, s, csrf, { created: { key: r.body.key, name: r.body.name, permissions: r.body.permissions } });
    }),
  );
  // The .sxcu embeds the key, which the service no longer knows after creation: the creation page posts it
  // back, and it is accepted only if it is a live key of this user with the upload permission.
  app.post("/app/keys/sharex", (c) =>
    withPost(c, async (s, form, csrf) => {
      const key = typeof form.key === "string" ? form.key : "";
      let owner: Awaited<ReturnType<typeof authenticateApiKey>> | null = null;
      try {
        owner = await authenticateApiKey(c.get("db"), key, { waitUntil: () => undefined });
      } catch {
        owner = null;
      }
      if (!owner || owner.user.id !== s.userId || !owner.permissions.includes("upload")) {
        return KeysPage(c, s, csrf, { error: "That is not one of your live API keys with the upload permission." });
      }
      c.header("Content-Disposition", 'attachment; filename="imghost.sxcu"');
      c.header("Cache-Control", "no-store");
      return c.body(JSON.stringify(sharexUploader(c.env, key), null, 2), 200, { "Content-Type": "application/json; charset=utf-8" });
    }),
  );
  app.post("/app/keys/:id/revoke", (c) =>
    withPost(c, async (s, _f, csrf) => {
      const r = await apiCall(c, "DELETE", `/keys/${encodeURIComponent(c.req.param("id"))}`, { token: s.access });
      if (!r.ok) return KeysPage(c, s, csrf, { error: apiMessage(r) });
      return c.redirect("/app/keys?revoked=1", 303);
    }),
  );

  // ---------- account ----------
  app.get("/app/account", (c) =>
    withSession(c, async (s, csrf) => {
      const [acc, lim] = await Promise.all([apiCall(c, "GET", "/account", { token: s.access }), apiCall(c, "GET", "/account/limits", { token: s.access })]);
      const q = c.req.query();
      const a = (acc.ok ? acc.body.user ?? acc.body : {}) as Record<string, any>;
      const l = (lim.ok ? lim.body : null) as { plan: string; maxFileBytes: number; quota: { used: number; total: number; remaining: number } } | null;
      return c.html(
        <AppLayout title="Account" signedIn csrf={csrf}>
          <h1>Account</h1>
          {q.welcome ? <Notice kind="ok">Welcome! We sent you an e-mail with a verification link.</Notice> : null}
          {q.saved ? <Notice kind="ok">Saved.</Notice> : null}
          {q.resent ? <Notice kind="ok">A new verification e-mail is on its way.</Notice> : null}
          {q.error ? <Notice kind="error">{q.error}</Notice> : null}
          {!acc.ok ? <Notice kind="error">{apiMessage(acc)}</Notice> : null}
          <p>
            Signed in as <strong>{a.username}</strong> ({a.email}).{" "}
            {a.emailVerified ? <span id="verified">E-mail verified.</span> : <span id="unverified">E-mail not verified yet.</span>}
          </p>
          {a.role === "moderator" || a.role === "admin" ? (
            <p>
              <a href="/app/moderation">Moderation queue</a>
            </p>
          ) : null}
          {a.emailVerified ? null : (
            <form method="post" action="/app/resend-verification">
              <Csrf token={csrf} />
              <button type="submit">Resend the verification e-mail</button>
            </form>
          )}
          <h2>Profile and safe mode</h2>
          <form method="post" action="/app/account" class="stack">
            <Csrf token={csrf} />
            <label for="username">Username</label>
            <input id="username" name="username" value={a.username ?? ""} minlength={3} maxlength={32} />
            <label><input type="checkbox" name="ageConfirmed" value="1" checked={Boolean(a.ageConfirmed)} /> I confirm I am 18 or older</label>
            <label><input type="checkbox" name="safeMode" value="1" checked={a.safeMode !== false} /> Safe mode (hide age-restricted images)</label>
            <button type="submit">Save</button>
          </form>
          <h2>Plan and usage</h2>
          {l ? (
            <dl class="usage">
              <dt>Plan</dt><dd id="plan">{l.plan}</dd>
              <dt>Largest file</dt><dd>{formatBytes(l.maxFileBytes)}</dd>
              <dt>Storage</dt>
              <dd>
                <meter min={0} max={l.quota.total} value={l.quota.used} aria-label="Storage used"></meter> {formatBytes(l.quota.used)} of {formatBytes(l.quota.total)} used,{" "}
                {formatBytes(l.quota.remaining)} left
              </dd>
            </dl>
          ) : (
            <p class="muted">Limits unavailable.</p>
          )}
          <h2>Your data</h2>
          <p><a href="/app/account/export" download>Download all my data (JSON)</a></p>
          <h2>Delete account</h2>
          <form method="post" action="/app/account/delete" class="stack">
            <Csrf token={csrf} />
            <label for="delpw">Password</label>
            <input id="delpw" name="password" type="password" autocomplete="current-password" required />
            <label><input type="checkbox" name="confirm" value="1" required /> I understand my files and keys are deleted</label>
            <button type="submit" class="danger">Delete my account</button>
          </form>
        </AppLayout>,
      );
    }),
  );
  app.post("/app/account", (c) =>
    withPost(c, async (s, form) => {
      const body: Record<string, unknown> = { ageConfirmed: str(form, "ageConfirmed") === "1", safeMode: str(form, "safeMode") === "1" };
      if (str(form, "username")) body.username = str(form, "username");
      const r = await apiCall(c, "PATCH", "/account", { token: s.access, body });
      return c.redirect(`/app/account?${r.ok ? "saved=1" : `error=${encodeURIComponent(apiMessage(r))}`}`, 303);
    }),
  );
  app.get("/app/account/export", (c) =>
    withSession(c, async (s) => {
      const r = await apiCall(c, "GET", "/account/export", { token: s.access });
      if (!r.ok) return c.redirect(`/app/account?error=${encodeURIComponent(apiMessage(r))}`, 303);
      const text = typeof r.body === "string" ? r.body : JSON.stringify(r.body, null, 2);
      return c.body(text, 200, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="imghost-export-${new Date().toISOString().slice(0, 10)}.json"`,
      });
    }),
  );
  app.post("/app/account/delete", (c) =>
    withPost(c, async (s, form) => {
      const r = await apiCall(c, "DELETE", "/account", { token: s.access, body: { password: str(form, "password") } });
      if (!r.ok) return c.redirect(`/app/account?error=${encodeURIComponent(apiMessage(r))}`, 303);
      clearSessionCookie(c);
      return c.redirect("/app/signup?deleted=1", 303);
    }),
  );

  app.route("/", albumAppPages({ withSession, withPost }));
  app.route("/", moderationAppPages({ withSession, withPost }));

  return app;
}
