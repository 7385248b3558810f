// Upload: drop, paste or pick images, or give a link the server fetches; the client script (src/pages/client/upload.ts)
// uploads each with its progress into a preview grid and shows its share links. Without JavaScript the form posts the
// images (and the link) here in one request.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Csrf, DropOverlay, Notice } from "./ui";
import { UploadResults, type UploadOutcome } from "./upload-result";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage, uploadForm } from "./api";
import { requireFormToken, requireSession, session } from "./context";
import { ownerThumbLinks } from "../owner-images";
import { UPLOADS } from "../../config/uploads";

const ACCEPT = UPLOADS.mimeTypes.join(",");

function UploadPage(props: { c: Context<AppEnv> }) {
  const { c } = props;
  return (
    <AppLayout c={c} title="Upload">
      <h1>Upload images</h1>
      <noscript>
        <Notice kind="ok">Without JavaScript the form posts the images in one request (no progress bar; up to your plan's file size).</Notice>
      </noscript>
      <form id="upload-form" method="post" action="/app/upload" enctype="multipart/form-data">
        <Csrf c={c} />
        <div id="drop" class="drop">
          <p class="big" id="drop-help">Drop images anywhere on this page, or paste them</p>
          <p class="muted">Dropped and pasted images start at once, with the options below; picked ones wait for Upload.</p>
          <p class="muted">JPEG, PNG, GIF, WebP, AVIF or BMP</p>
          <label for="files" class="button primary">Choose images</label>
          <input id="files" name="files" type="file" accept={ACCEPT} multiple class="sr-only" aria-describedby="drop-help" />
        </div>
        <div class="stack link-upload">
          <label for="link">Or paste a link to an image</label>
          <input id="link" name="link" type="url" inputmode="url" autocomplete="off" placeholder="https://example.com/photo.jpg" aria-describedby="link-help" />
          <p class="muted" id="link-help">
            Our server fetches it (http or https, up to 15 seconds) and uploads it like a picked file.
          </p>
        </div>
        <details class="options">
          <summary>Title, tags, visibility and expiry</summary>
          <div class="stack">
            <label for="title">Title (default: the file's name)</label>
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
          </div>
        </details>
        <div class="row">
          <button type="submit" id="start" class="primary">Upload</button>
          <span class="muted" id="picked" aria-live="polite"></span>
        </div>
      </form>
      <div id="limits-msg" role="alert"></div>
      <ul id="queue" class="queue" aria-label="This session's uploads"></ul>
      <DropOverlay />
    </AppLayout>
  );
}

export const uploadPages = new Hono<AppEnv>();
uploadPages.use("/app/upload", requireSession);

uploadPages.get("/app/upload", (c) => c.html(<UploadPage c={c} />));

/** The form's link through POST /upload/url in-process, with the form's title, tags, visibility and expiry. */
async function uploadLink(c: Context<AppEnv>, url: string, form: FormData): Promise<UploadOutcome> {
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  };
  const visibility = text("visibility");
  const expiry = text("expiry");
  const tags = text("tags")?.split(",").map((t) => t.trim()).filter(Boolean);
  const r = await result(call(apiOf(c), "uploads.fromUrl", { body: {
    url,
    title: text("title"),
    description: text("description"),
    visibility: visibility === "public" || visibility === "unlisted" || visibility === "private" ? visibility : undefined,
    expiresIn: expiry ? Number(expiry) : undefined,
    tags: tags?.length ? tags : undefined,
  } }));
  return r.ok ? { name: url, ok: true, answer: r.body } : { name: url, ok: false, text: apiMessage(r) };
}

// Without JavaScript the upload form posts here: each image goes through POST /upload/form in-process (a link through
// POST /upload/url), so the API's checks, quota and rate limits apply exactly as for scripts.
uploadPages.post("/app/upload", requireFormToken, async (c) => {
  let form: FormData;
  try {
    form = await c.req.formData(); // read (and size-checked) once by pageFormPosts
  } catch {
    return c.text("Send the upload form as multipart/form-data", 400);
  }
  const images = form.getAll("files").filter((f): f is File => typeof f !== "string" && f.size > 0);
  const results: UploadOutcome[] = [];
  const link = form.get("link");
  if (typeof link === "string" && link.trim() !== "") results.push(await uploadLink(c, link.trim(), form));
  for (const image of images) {
    const one = new FormData();
    one.set("file", image);
    for (const [field, from] of [["title", "title"], ["description", "description"], ["visibility", "visibility"], ["expiresIn", "expiry"]]) {
      const value = form.get(from);
      if (typeof value === "string" && value !== "") one.set(field, value);
    }
    const r = await uploadForm(c, one);
    results.push(r.ok ? { name: image.name, ok: true, answer: r.body } : { name: image.name, ok: false, text: apiMessage(r) });
  }
  const failed = results.some((r) => !r.ok) || results.length === 0;
  return c.html(
    <AppLayout c={c} title="Upload">
      <h1>Upload results</h1>
      {results.length === 0 ? <Notice kind="error">Choose at least one image, or give a link to one.</Notice> : null}
      <UploadResults env={c.env} results={results} link={await ownerThumbLinks(c.env, session(c).userId, results.flatMap((r) => (r.ok ? [r.answer.fileId] : [])))} />
      <p>
        <a href="/app/upload">Upload more</a> · <a href="/app/files">My files</a>
      </p>
    </AppLayout>,
    failed ? 400 : 200,
  );
});
