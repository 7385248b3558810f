// Albums management: list + create, one album's page (cover, add/remove images, settings, delete). The public
// page stays /a/<id> (pages/album.tsx).
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Notice } from "./ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage, type ApiResult } from "./api";
import { requireFormToken, requireSession, session, str, type Form } from "./context";
import { ownerThumbLinks } from "../owner-images";
import { AlbumList, AlbumManage } from "./album-views";
import { coversOf } from "./album-covers";
import { fieldErrors, type FieldErrors } from "./form-errors";
import { errorCodeOf, errorQuery } from "./error-param";

export const albumPages = new Hono<AppEnv>();
albumPages.use("/app/albums", requireSession, requireFormToken);
albumPages.use("/app/albums/*", requireSession, requireFormToken);

/** The list and the create form (`form`, `errors`: a refused create shown again as typed). */
async function renderList(c: Context<AppEnv>, refused?: { form: Form; errors: FieldErrors }) {
  const r = await result(call(apiOf(c), "albums.list", { params: { query: { limit: 100 } } }));
  const albums = r.ok ? r.body.albums : [];
  const covers = await coversOf(c, albums);
  const link = await ownerThumbLinks(c.env, session(c).userId, [...covers.values()].filter((id): id is string => id !== null));
  const page = <AlbumList c={c} albums={albums} covers={covers} link={link} error={r.ok ? undefined : apiMessage(r)} form={refused?.form} errors={refused?.errors} />;
  return c.html(page, refused ? 400 : 200);
}

albumPages.get("/app/albums", (c) => renderList(c));

albumPages.post("/app/albums", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const visibility = (str(form, "visibility") || "public") as "public";
  const r = await result(call(apiOf(c), "albums.create", { body: {
    title: str(form, "title"),
    description: str(form, "description"),
    visibility,
    ...(str(form, "password") ? { password: str(form, "password") } : {}),
  } }));
  if (!r.ok) return renderList(c, { form, errors: fieldErrors(r, { paths: { title: "title", description: "description", visibility: "visibility", password: "password" } }) });
  return c.redirect(`/app/albums/${r.body.id}?created=1`, 303);
});

albumPages.get("/app/albums/:id", async (c) => {
  const [ar, fr] = await Promise.all([result(call(apiOf(c), "albums.get", { params: { path: { id: c.req.param("id") }, query: { limit: 100 } } })), result(call(apiOf(c), "files.list", { params: { query: { limit: 100, excludeNsfw: "false" } } }))]);
  if (!ar.ok) {
    return c.html(
      <AppLayout c={c} title="Album">
        <h1>Album</h1>
        <Notice kind="error">{apiMessage(ar)}</Notice>
      </AppLayout>,
      ar.status === 404 ? 404 : 400,
    );
  }
  const inAlbum = new Set(ar.body.files.map((f) => f.id));
  const mine = (fr.ok ? fr.body.files : []).filter((f) => !inAlbum.has(f.id));
  const link = await ownerThumbLinks(c.env, session(c).userId, [...inAlbum, ...mine.map((f) => f.id)]);
  return c.html(<AlbumManage c={c} a={ar.body} mine={mine} link={link} />);
});

const back = (c: Context<AppEnv>, r: ApiResult<unknown>) =>
  c.redirect(`/app/albums/${encodeURIComponent(c.req.param("id") ?? "")}?${r.ok ? "saved=1" : errorQuery(errorCodeOf(r))}`, 303);

albumPages.post("/app/albums/:id", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const visibility = str(form, "visibility") as "public";
  const password = str(form, "removePassword") === "1" ? { password: null } : str(form, "password") ? { password: str(form, "password") } : {};
  return back(c, await result(call(apiOf(c), "albums.update", { params: { path: { id: c.req.param("id") } }, body: { title: str(form, "title"), description: str(form, "description"), visibility, ...password } })));
});
albumPages.post("/app/albums/:id/cover", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  return back(c, await result(call(apiOf(c), "albums.update", { params: { path: { id: c.req.param("id") } }, body: { coverImageId: str(form, "fileId") } })));
});
albumPages.post("/app/albums/:id/add", async (c) => {
  const all = await c.req.parseBody({ all: true });
  const fileIds = ([] as unknown[]).concat(all.fileIds ?? []).filter((v): v is string => typeof v === "string");
  if (fileIds.length === 0) return c.redirect(`/app/albums/${encodeURIComponent(c.req.param("id"))}?${errorQuery("no_images")}`, 303);
  return back(c, await result(call(apiOf(c), "albums.addFiles", { params: { path: { id: c.req.param("id") } }, body: { fileIds } })));
});
albumPages.post("/app/albums/:id/files/:fileId/remove", async (c) => back(c, await result(call(apiOf(c), "albums.removeFile", { params: { path: { id: c.req.param("id"), fileId: c.req.param("fileId") } } }))));
albumPages.post("/app/albums/:id/delete", async (c) => {
  const r = await result(call(apiOf(c), "albums.delete", { params: { path: { id: c.req.param("id") } } }));
  if (!r.ok) return back(c, r);
  return c.redirect("/app/albums?deleted=1", 303);
});
