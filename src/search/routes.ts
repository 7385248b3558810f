// GET /search and GET /files/:id/similar (extensions.md § 9): the caller's own files and albums only.
import { defineRoute } from "../platform/http/route-errors";
import { callerUser, requirePermission } from "../middleware/guards";
import { bearer, errors, json } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { FileIdParam } from "../files/schemas";
import { fileListItem } from "../files/resource";
import { matchExpression, parseTerms } from "../files/text-match";
import { assertReadable, fileNotFound, isOwner, loadFile, viewerOf, FILE_LOOKUP_ERRORS } from "../serving/access";
import { SearchQuery, SearchResults, SimilarFiles } from "./schemas";
import { searchOwner } from "./queries";
import { snippet } from "./snippet";
import { similarFiles } from "./similar";

export const searchRoutes = apiRouter();
export const searchMount = mountAt("/", searchRoutes);
const tags = ["Search"];

searchRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/search",
    operationId: "search.query",
    tags,
    summary: "Search your files and albums",
    description:
      "The caller's own files and albums (age-restricted files included, marked), ranked by relevance (bm25), each with a highlighted snippet. " +
      "Every word must match; the last one also as a prefix (type-ahead); \"quoted phrases\" as phrases. API keys need read.",
    security: bearer,
    middleware: [requirePermission("read")] as const,
    request: { query: SearchQuery },
    responses: { 200: json(SearchResults, "The hits"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const user = callerUser(c.get("principal"));
    const terms = parseTerms(q.q);
    const match = matchExpression(user.id, terms);
    const page = { limit: q.limit, offset: q.offset };
    const found = match
      ? await searchOwner(c.get("dbs").shard(user.shard), user.id, match, q.type, page, Date.now())
      : { fileRows: [], fileTotal: 0, albumRows: [], albumTotal: 0 };
    const files = found.fileRows.map((r) => ({
      ...fileListItem(c.env, r),
      snippet: snippet([r.title, r.alt, r.tags.join(", "), r.description, r.filename, r.albumTitles], terms),
    }));
    const albums = found.albumRows.map((a) => ({ id: a.id, title: a.title, fileCount: a.fileCount, snippet: snippet([a.title, a.description], terms) }));
    const hasMore = q.offset + files.length < found.fileTotal || q.offset + albums.length < found.albumTotal;
    return c.json({ files, albums, pagination: { total: found.fileTotal + found.albumTotal, limit: q.limit, offset: q.offset, hasMore } }, 200);
  },
);

searchRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/files/{id}/similar",
    operationId: "files.similar",
    tags: ["Files"],
    summary: "More like this",
    description:
      "The owner's other live files nearest to this one on the near-duplicate signals (perceptual hash, image features), nearest first, at most 50, " +
      "with a looser bound than duplicates. The owner's only: anyone else gets 404. API keys need read.",
    security: bearer,
    middleware: [requirePermission("read")] as const,
    request: { params: FileIdParam },
    errors: [...FILE_LOOKUP_ERRORS],
    responses: { 200: json(SimilarFiles, "The nearest files"), ...errors(401, 403, 404, 410, 429) },
  }),
  async (c) => {
    const now = Date.now();
    const id = c.req.valid("param").id;
    const viewer = viewerOf(c.get("principal"));
    const db = c.get("dbs").shardOf("file", id);
    const loaded = await loadFile(db, id);
    if (!loaded || !isOwner(loaded.file, viewer)) throw fileNotFound();
    assertReadable(loaded, viewer, now, { safeMode: false });
    const near = await similarFiles(c.env, db, loaded.file, now);
    return c.json({ files: near.map(({ row, distance }) => ({ ...fileListItem(c.env, row), distance })) }, 200);
  },
);
