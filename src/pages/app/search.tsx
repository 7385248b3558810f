// /app/search (the header's search box without JavaScript, and where its type-ahead leads) and "More like this"
// (/app/files/:id/similar): the caller's files and albums through the API, the matches highlighted.
import { Hono } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, AgeBadge, Notice, plural } from "./ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage } from "./api";
import { requireSession, session } from "./context";
import type { Child } from "hono/jsx";
import { GridImage, type LinkOf } from "../picture";
import { ownerThumbLinks } from "../owner-images";

/** A snippet's marks (\u0002…\u0003, extensions.md § 9) as <mark>; the text stays text (never HTML). */
export function Snippet(props: { text: string }) {
  const parts = props.text.split(/[\u0002\u0003]/);
  return <span class="snippet">{parts.map((p, i) => (i % 2 === 1 ? <mark>{p}</mark> : p))}</span>;
}

type Card = { id: string; title: string; placeholder: string | null; dominantColor: string | null; ageRestricted: boolean };

export const searchPages = new Hono<AppEnv>();
searchPages.use("/app/search", requireSession);

searchPages.get("/app/search", async (c) => {
  const q = (c.req.query("q") ?? "").trim().slice(0, 200);
  const r = q ? await result(call(apiOf(c), "search.query", { params: { query: { q, limit: 48 } } })) : undefined;
  const files = r?.ok ? r.body.files : [];
  const albums = r?.ok ? r.body.albums : [];
  const link = await ownerThumbLinks(c.env, session(c).userId, files.map((f) => f.id));
  return c.html(
    <AppLayout c={c} title={q ? `“${q}”` : "Search"}>
      <h1>Search</h1>
      <form method="get" action="/app/search" class="toolbar" role="search">
        <div class="field grow">
          <label for="search-page-q">Words</label>
          <input id="search-page-q" name="q" type="search" value={q} maxlength={200} placeholder='harbour, "red fox"…' />
        </div>
        <button type="submit">Search</button>
      </form>
      {r && !r.ok ? <Notice kind="error">{apiMessage(r)}</Notice> : null}
      {q && r?.ok ? <p class="muted" id="search-count">{r.body.pagination.total === 0 ? "Nothing matches: try other words." : plural(r.body.pagination.total, "match", "matches")}</p> : null}
      {albums.length > 0 ? (
        <section aria-labelledby="search-albums">
          <h2 id="search-albums">Albums</h2>
          <ul class="search-albums">
            {albums.map((a) => (
              <li>
                <a href={`/app/albums/${a.id}`}><Snippet text={a.snippet} /></a> <span class="muted">{plural(a.fileCount, "image")}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {files.length > 0 ? (
        <ul class="grid" aria-label="Files">
          {files.map((f) => (
            <ResultCard c={c.env} f={f} link={link} note={<Snippet text={f.snippet} />} />
          ))}
        </ul>
      ) : null}
    </AppLayout>,
  );
});

function ResultCard(props: { c: Env; f: Card; link: LinkOf; note: Child }) {
  const { f } = props;
  return (
    <li class="card">
      <a href={`/f/${f.id}`} class="thumb" aria-label={`${f.title || "Untitled image"}: open its page`}>
        <GridImage env={props.c} file={f} alt="" link={props.link} />
      </a>
      <div class="meta">
        <span class="title">{props.note}</span>
        {f.ageRestricted ? <span class="badges"><AgeBadge /></span> : null}
        <a class="button small" href={`/app/files/${f.id}/similar`}>More like this</a>
      </div>
    </li>
  );
}

searchPages.get("/app/files/:id/similar", async (c) => {
  const id = c.req.param("id");
  const [file, r] = await Promise.all([
    result(call(apiOf(c), "files.get", { params: { path: { id } } })),
    result(call(apiOf(c), "files.similar", { params: { path: { id } } })),
  ]);
  const failed = !file.ok ? apiMessage(file) : !r.ok ? apiMessage(r) : null;
  if (failed !== null || !file.ok || !r.ok) {
    return c.html(<AppLayout c={c} title="More like this"><h1>More like this</h1><Notice kind="error">{failed}</Notice></AppLayout>, 404);
  }
  const link = await ownerThumbLinks(c.env, session(c).userId, [id, ...r.body.files.map((f) => f.id)]);
  const title = file.body.title || "Untitled image";
  return c.html(
    <AppLayout c={c} title={`Like “${title}”`}>
      <h1>More like “{title}”</h1>
      <p class="muted" id="similar-count">
        {r.body.files.length === 0 ? "None of your other images looks like this one." : `${plural(r.body.files.length, "image")} of yours, nearest first.`}{" "}
        <a href={`/app/files/${id}/edit`}>Back to the image</a>
      </p>
      <ul class="grid" aria-label="Similar images">
        {r.body.files.map((f) => (
          <ResultCard c={c.env} f={f} link={link} note={f.title || "Untitled image"} />
        ))}
      </ul>
    </AppLayout>,
  );
});
