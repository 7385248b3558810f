// Two doors of the web app to the signed-in owner's own bytes, for what cannot name an owner link drawn at render
// time (owner-images.ts): the upload script's result rows, and the file page's Download, which needs the session
// (the API reads no cookie). Behind files.tsx's requireSession.
import { Hono } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { isId } from "../../platform/data/ids";
import { ownerThumbLinks } from "../owner-images";
import { call } from "@imghost/client";
import { apiOf, result } from "./api";
import { session } from "./context";
import { errorCodeOf, errorQuery } from "./error-param";

export const ownerFilePages = new Hono<AppEnv>();

// The script knows only the new file's id: it is sent on to the owner link of the thumbnail. No lookup here: the
// link is signed for the session's user, and the byte link checks it against the file's owner (anybody else's
// id ends in its 403).
ownerFilePages.get("/app/files/:id/preview", async (c) => {
  const id = c.req.param("id");
  if (!isId("file", id)) return c.text("Not found", 404);
  const link = await ownerThumbLinks(c.env, session(c).userId, [id]);
  return c.redirect(link(id, "thumb", null), 302);
});

// The API's download with the page's session, its body passed through unread (a large original never sits in memory).
ownerFilePages.get("/app/files/:id/download", async (c) => {
  const answer = await call(apiOf(c), "files.download", { params: { path: { id: c.req.param("id") } }, parseAs: "stream" });
  const r = await result(answer);
  if (!r.ok) return c.redirect(`/app/files?${errorQuery(errorCodeOf(r))}`, 303);
  const res = answer.response;
  const passed: Record<string, string> = {};
  for (const name of ["content-type", "content-disposition", "content-length", "etag", "content-security-policy"]) {
    const value = res.headers.get(name);
    if (value !== null) passed[name] = value;
  }
  return c.body(r.body, 200, passed);
});
