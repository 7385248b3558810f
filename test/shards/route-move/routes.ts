// Which routes move-routes.test.ts takes before and after a move, and how: read from docs/openapi.json, so a
// new route that takes a file, album or upload id is selected without anyone remembering it, and then fails
// until it has a recipe here.
//
// Selected: every operation with a path parameter, query parameter or JSON body property that names a file,
// album or upload (named fileId, albumId, uploadId, fileIds, coverImageId..., or an {id} right under /files or
// /albums, or whose example is such an id), or a report (a report id stands for its one file: the moderation
// routes act on it), and every operation whose description names such an id in backticks (tus's albumId,
// sent in Upload-Metadata).
//
// How each is compared (kind):
// - read: the same request on the same object before and after the move, from D1 and again from the edge
//   records (production's configuration): the answers must be equal.
// - replay: a write the object's state refuses or answers again unchanged (the uploads are finished: a PUT, a
//   PATCH or a DELETE of a finished upload is refused, finalize and complete answer their first body again), so
//   it changes nothing, and is compared as a read, on the same object (D1 only).
// - twin: a write that changes its object runs on twin a before the move and on twin b (prepared identically)
//   after it; ids are normalised to the twins' shared names, and the answers must be equal.
// Before the move the twin writes go first and the reads last, after it the reads first: so both reads see the
// same data (an upload made by a twin write is listed among the uploads' near duplicates once analysed).
import doc from "../../../docs/openapi.json";
import { BASE } from "../../support/api";
import { CDN, IMAGE, SITE } from "../../support/files";
import { makePng } from "../../uploads/helpers";
import { TUS, metadata } from "../../uploads/tus/support";
import type { Fixture, Twin } from "./fixture";
import type { Answer, Mode, Req } from "./harness";
import { finishMultipart, finishPresign, formInAlbum, formRequest, multipartRequest, presignRequest } from "./upload-recipes";

type Param = { name: string; in: string; schema?: { example?: unknown } };
type Schema = { $ref?: string; properties?: Record<string, unknown> };
type Operation = { description?: string; parameters?: Param[]; requestBody?: { content: Record<string, { schema?: Schema }> } };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
const DOC = doc as unknown as Document;

const ID_NAME = /^(\w*(file|album|upload|image)Ids?)$/i;
const ID_EXAMPLE = /^(file|alb|upl|rep)_/;
const ID_IN_TEXT = /`\w*(file|album|upload|image)Ids?`/i;
const HTTP_METHODS = ["get", "head", "put", "post", "patch", "delete", "options"];

function takesAnId(path: string, op: Operation): boolean {
  const params = op.parameters ?? [];
  const byParam = params.some(
    (p) => ID_NAME.test(p.name) || ID_EXAMPLE.test(String(p.schema?.example ?? "")) || (p.in === "path" && new RegExp(`/(files|albums)/\\{${p.name}\\}`).test(path)),
  );
  const bodies = Object.values(op.requestBody?.content ?? {}).map((c) => (c.schema?.$ref ? DOC.components.schemas[c.schema.$ref.split("/").pop()!] : c.schema));
  const byBody = bodies.some((s) => Object.keys(s?.properties ?? {}).some((k) => ID_NAME.test(k)));
  return byParam || byBody || ID_IN_TEXT.test(op.description ?? "");
}

/** "METHOD /path" of every operation of the document that takes a file, album, upload or report id. */
export function routesTakingIds(): string[] {
  return Object.entries(DOC.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method, op]) => HTTP_METHODS.includes(method) && takesAnId(path, op))
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );
}

export type Who = "owner" | "anonymous" | "moderator";
export type Recipe = {
  kind: "read" | "replay" | "twin";
  as: Who;
  /** What an owner who never moved gets: the answer before the move must be it (two equal 404s prove nothing). */
  status: number;
  variant?: string;
  /** POST /upload/url: the bytes the remote serves (test/uploads/remote.ts), per twin. */
  remote?: (t: Twin) => Uint8Array;
  request: (fx: Fixture, t: Twin) => Req;
  /** Run on the raw answer before it is kept: an upload the write started is finished here, as its client would. */
  after?: (answer: Answer, fx: Fixture, t: Twin) => Promise<void>;
};

const api = (method: string, path: string, extra: Partial<Req> = {}): Req => ({ method, url: BASE + path, ...extra });
const at = (method: string, url: string, extra: Partial<Req> = {}): Req => ({ method, url, ...extra });
const read = (as: Who, status: number, request: Recipe["request"], extra: Partial<Recipe> = {}): Recipe => ({ kind: "read", as, status, request, ...extra });
const replay = (status: number, request: Recipe["request"]): Recipe => ({ kind: "replay", as: "owner", status, request });
const twin = (as: Who, status: number, request: Recipe["request"], extra: Partial<Recipe> = {}): Recipe => ({ kind: "twin", as, status, request, ...extra });
const upload = (status: number, request: Recipe["request"]): Recipe => read("owner", status, request);
const octets = { "content-type": "application/octet-stream" };
const tusChunk = { ...TUS, "content-type": "application/offset+octet-stream" };
const resolve = (action: string, report: "dismissReport" | "removeReport" | "banReport") =>
  twin("moderator", 200, (_, t) => api("POST", `/moderation/reports/${t[report]}/resolve`, { body: { action, note: "after review" } }), { variant: action });

export const RECIPES: Record<string, Recipe[]> = {
  "GET /files/{id}": [read("owner", 200, (fx) => api("GET", `/files/${fx.read.file.id}`)), read("anonymous", 200, (fx) => api("GET", `/files/${fx.read.file.id}`))],
  "PATCH /files/{id}": [twin("owner", 200, (_, t) => api("PATCH", `/files/${t.patchFile}`, { body: { title: "Renamed", tags: ["moved"] } }))],
  "DELETE /files/{id}": [twin("owner", 200, (_, t) => api("DELETE", `/files/${t.deleteFile}`))],
  // The duplicate: no recipe views it, so its days are the same before and after (the read file's views go on).
  "GET /files/{id}/stats": [read("owner", 200, (fx) => api("GET", `/files/${fx.read.dup.id}/stats`))],
  "GET /files/{id}/download": [read("owner", 200, (fx) => api("GET", `/files/${fx.read.file.id}/download`))],
  "GET /files/{id}/similar": [read("owner", 200, (fx) => api("GET", `/files/${fx.read.file.id}/similar`))],
  "POST /files/{id}/signed-url": [twin("owner", 200, (_, t) => api("POST", `/files/${t.signFile}/signed-url`, { body: { expiresIn: 3600, w: 100 } }))],
  "POST /files/{id}/signed-url/revoke": [twin("owner", 200, (_, t) => api("POST", `/files/${t.revokeFile}/signed-url/revoke`))],
  "POST /albums": [twin("owner", 201, (_, t) => api("POST", "/albums", { body: { title: "New album", visibility: "public", fileIds: [t.newAlbumFile] } }))],
  "GET /albums/{id}": [read("owner", 200, (fx) => api("GET", `/albums/${fx.read.album}`)), read("anonymous", 200, (fx) => api("GET", `/albums/${fx.read.album}`))],
  "PATCH /albums/{id}": [twin("owner", 200, (_, t) => api("PATCH", `/albums/${t.patchAlbum}`, { body: { title: "Renamed album", coverImageId: t.coverFile } }))],
  "DELETE /albums/{id}": [twin("owner", 200, (_, t) => api("DELETE", `/albums/${t.deleteAlbum}`))],
  "POST /albums/{id}/files": [twin("owner", 200, (_, t) => api("POST", `/albums/${t.addAlbum}/files`, { body: { fileIds: [t.addFile] } }))],
  "DELETE /albums/{id}/files/{fileId}": [twin("owner", 200, (_, t) => api("DELETE", `/albums/${t.pullAlbum}/files/${t.pullFile}`))],
  "POST /moderation/report": [twin("anonymous", 201, (_, t) => api("POST", "/moderation/report", { body: { fileId: t.reportFile, reason: "spam", details: "spam" } }))],
  "GET /moderation/queue": [read("moderator", 200, (fx) => api("GET", `/moderation/queue?fileId=${fx.read.file.id}`))],
  // ban_user is left out: it bans the owner every other route reads (the moderation tests of issue 35 take it).
  "POST /moderation/reports/{id}/resolve": [resolve("dismiss", "dismissReport"), resolve("remove_file", "removeReport"), resolve("ban_file", "banReport")],
  "GET /moderation/reports/{id}/content": [read("moderator", 200, (fx) => api("GET", `/moderation/reports/${fx.read.report}/content`))],
  "POST /upload/url": [
    twin("owner", 201, (_, t) => api("POST", "/upload/url", { body: { url: `https://img.example.com/${t.side}/moved.png`, title: "From a URL", albumId: t.urlAlbum } }), {
      remote: (t) => makePng(8, 8, t.side === "a" ? 361 : 362),
    }),
  ],
  // Each names its twin's album (extensions.md § 8); `after` finishes the upload and checks the file is in it.
  "POST /upload/presign": [twin("owner", 201, (_, t) => presignRequest(t), { after: finishPresign })],
  "POST /upload/multipart/init": [twin("owner", 201, (_, t) => multipartRequest(t), { after: finishMultipart })],
  "POST /upload/form": [twin("owner", 201, (_, t) => formRequest(t), { after: formInAlbum })],
  "POST /upload/tus": [
    twin("owner", 201, (_, t) => {
      const bytes = makePng(8, 8, t.side === "a" ? 371 : 372);
      const meta = metadata({ filename: "tus-album.png", filetype: "image/png", albumId: t.tusAlbum });
      return api("POST", "/upload/tus", { raw: bytes, headers: { ...tusChunk, "upload-length": String(bytes.length), "upload-metadata": meta } });
    }),
  ],
  "GET /upload/tus/{uploadId}": [upload(200, (fx) => api("GET", fx.uploads.tus.path))],
  "HEAD /upload/tus/{uploadId}": [upload(200, (fx) => api("HEAD", fx.uploads.tus.path, { headers: TUS }))],
  // Bytes after completion: 413 upload_length_exceeded, as on an open upload (extensions.md § 1).
  "PATCH /upload/tus/{uploadId}": [replay(413, (fx) => api("PATCH", fx.uploads.tus.path, { raw: new Uint8Array([1]), headers: { ...tusChunk, "upload-offset": String(fx.uploads.tus.bytes.length) } }))],
  "DELETE /upload/tus/{uploadId}": [replay(409, (fx) => api("DELETE", fx.uploads.tus.path, { headers: TUS }))],
  "PUT /upload/direct/{fileId}": [replay(409, (fx) => api("PUT", `/upload/direct/${fx.uploads.direct.fileId}`, { raw: fx.uploads.direct.bytes, headers: { "content-type": "image/png" } }))],
  "POST /upload/finalize": [
    replay(200, (fx) => {
      const d = fx.uploads.direct;
      return api("POST", "/upload/finalize", { body: { uploadId: d.uploadId, fileId: d.fileId, storeKey: d.storeKey, storeEtag: d.storeEtag, width: 8, height: 8 } });
    }),
  ],
  "PUT /upload/multipart/{uploadId}/parts/{partNumber}": [replay(409, (fx) => api("PUT", `/upload/multipart/${fx.uploads.multipart.uploadId}/parts/1`, { raw: fx.uploads.multipart.bytes, headers: octets }))],
  // A finalized multipart upload answers 409 not_multipart on main, moved or not (finalize clears its R2 upload id);
  // the tus status above is the upload's status route that answers in full.
  "GET /upload/multipart/{uploadId}": [upload(409, (fx) => api("GET", `/upload/multipart/${fx.uploads.multipart.uploadId}`))],
  "DELETE /upload/multipart/{uploadId}": [replay(409, (fx) => api("DELETE", `/upload/multipart/${fx.uploads.multipart.uploadId}`))],
  "POST /upload/multipart/complete": [
    replay(409, (fx) => {
      const m = fx.uploads.multipart;
      return api("POST", "/upload/multipart/complete", { body: { uploadId: m.uploadId, fileId: m.fileId, storeKey: m.storeKey, parts: [{ partNumber: 1, etag: m.partEtag }] } });
    }),
  ],
};

/** The addresses outside /api/v1 (not in the document): byte links and share pages, each read anonymously. */
export const BYTE_LINKS: Record<string, Recipe[]> = {
  "GET {image_url}/{fileId}": [read("anonymous", 200, (fx) => at("GET", `${IMAGE}/${fx.read.file.id}`))],
  "GET {image_url}/{fileId}/thumb": [read("anonymous", 200, (fx) => at("GET", `${IMAGE}/${fx.read.file.id}/thumb`))],
  "GET {cdn_url}/{storeKey}": [read("anonymous", 200, (fx) => at("GET", `${CDN}/${fx.read.file.storeKey}`))],
  "GET {image_url}/{fileId}?exp&sig (signed before the move)": [read("anonymous", 200, (fx) => at("GET", fx.read.signedUrl))],
  "GET {site_url}/f/{fileId}": [read("anonymous", 200, (fx) => at("GET", `${SITE}/f/${fx.read.file.id}`))],
  "GET {site_url}/a/{albumId}": [read("anonymous", 200, (fx) => at("GET", `${SITE}/a/${fx.read.album}`))],
};

export type Case = { label: string; route: string; recipe?: Recipe; mode: Mode };

/** Every request of a run, labelled; a selected route with no recipe is a case of its own, which fails. */
export function cases(): Case[] {
  const out: Case[] = [];
  const add = (route: string, recipes: Recipe[] | undefined) => {
    if (!recipes) return out.push({ label: `${route}: no recipe`, route, mode: "d1" });
    for (const recipe of recipes) {
      for (const mode of recipe.kind === "read" ? (["d1", "records"] as const) : (["d1"] as const)) {
        const variant = recipe.variant ? ` ${recipe.variant}` : "";
        out.push({ label: `${route}${variant} as ${recipe.as}${mode === "records" ? ", from the edge records" : ""}`, route, recipe, mode });
      }
    }
  };
  for (const route of routesTakingIds()) add(route, RECIPES[route]);
  for (const [route, recipes] of Object.entries(BYTE_LINKS)) add(route, recipes);
  return out;
}
