// Bulk actions on selected files (from My files): visibility, add to album, delete (after a confirmation page
// that lists what goes). Each change is an API call, so the API's checks apply file by file.
import { Hono } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Csrf, Notice } from "./ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage } from "./api";
import { errorCodeOf, errorQuery } from "./error-param";
import { requireFormToken } from "./context";

const MAX_SELECTED = 100;
const backTo = (v: unknown) => (typeof v === "string" && /^\/app\/files(\?[^\s]*)?$/.test(v) ? v : "/app/files");
const withParam = (back: string, param: string) => `${back}${back.includes("?") ? "&" : "?"}${param}`;

export const bulkPages = new Hono<AppEnv>();

bulkPages.post("/app/files", requireFormToken, async (c) => {
  const all = await c.req.parseBody({ all: true });
  const ids = ([] as unknown[]).concat(all.ids ?? []).filter((v): v is string => typeof v === "string" && v.length <= 64).slice(0, MAX_SELECTED);
  const action = typeof all.action === "string" ? all.action : "";
  const back = backTo(all.back);
  if (ids.length === 0) return c.redirect(withParam(back, errorQuery("no_selection")), 303);

  if (action === "public" || action === "unlisted" || action === "private") {
    const results = await Promise.all(ids.map((id) => result(call(apiOf(c), "files.update", { params: { path: { id } }, body: { visibility: action } }))));
    const failed = results.find((r) => !r.ok);
    return c.redirect(withParam(back, failed && !failed.ok ? errorQuery(errorCodeOf(failed)) : "saved=1"), 303);
  }
  if (action === "album") {
    const albumId = typeof all.albumId === "string" ? all.albumId : "";
    if (!albumId) return c.redirect(withParam(back, errorQuery("no_album")), 303);
    const r = await result(call(apiOf(c), "albums.addFiles", { params: { path: { id: albumId } }, body: { fileIds: ids } }));
    return c.redirect(withParam(back, r.ok ? "saved=1" : errorQuery(errorCodeOf(r))), 303);
  }
  if (action === "delete") {
    if (all.confirm !== "1") {
      // Ask first, naming what goes.
      const files = await Promise.all(ids.map((id) => result(call(apiOf(c), "files.get", { params: { path: { id } } }))));
      return c.html(
        <AppLayout c={c} title="Delete files">
          <h1>Delete {ids.length === 1 ? "this file" : `these ${ids.length} files`}?</h1>
          <p>Their links stop working at once. This cannot be undone.</p>
          <ul>
            {files.map((r, i) => (
              <li>{r.ok ? r.body.title || "Untitled image" : ids[i]}</li>
            ))}
          </ul>
          <form method="post" action="/app/files" class="row">
            <Csrf c={c} />
            <input type="hidden" name="action" value="delete" />
            <input type="hidden" name="confirm" value="1" />
            <input type="hidden" name="back" value={back} />
            {ids.map((id) => (
              <input type="hidden" name="ids" value={id} />
            ))}
            <button type="submit" class="danger">Delete {ids.length === 1 ? "it" : `${ids.length} files`} permanently</button>
            <a href={back}>Cancel</a>
          </form>
        </AppLayout>,
      );
    }
    const results = await Promise.all(ids.map((id) => result(call(apiOf(c), "files.delete", { params: { path: { id } } }))));
    const failed = results.find((r) => !r.ok);
    if (failed && !failed.ok) return c.redirect(withParam("/app/files", errorQuery(errorCodeOf(failed))), 303);
    return c.redirect(`/app/files?deleted=${ids.length}`, 303);
  }
  return c.html(<AppLayout c={c} title="My files"><Notice kind="error">Unknown action.</Notice></AppLayout>, 400);
});
