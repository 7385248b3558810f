// The site surface ({site_url}): server-rendered pages. Later features add their pages here.
import { trimTrailingSlash } from "hono/trailing-slash";
import { Hono, type Context } from "hono";
import type { AppEnv } from "../platform/http/env";
import { Layout, asset } from "./layout";
import { DocsPage } from "./docs";
import { filePages } from "./file";
import { albumPages } from "./album";
import { oembed } from "./oembed";
import { reportPages } from "./report";
import { appPages } from "./app/routes";
import { pageFormPosts } from "./form-posts";
import type { InProcessApi } from "./app/api";

/** Pages load nothing but our own stylesheet and scripts; frames, plugins and foreign forms are refused. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data: blob: https: http:; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function pageHeaders(c: Context<AppEnv>) {
  c.header("Content-Security-Policy", PAGE_CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "strict-origin-when-cross-origin");
  c.header("X-Frame-Options", "DENY");
}

export function notFoundPage(c: Context<AppEnv>) {
  pageHeaders(c);
  return c.html(
    <Layout title="Not found">
      <h1>Not found</h1>
      <p>There is nothing at this address.</p>
    </Layout>,
    404,
  );
}

/** What the app lends the site: the OpenAPI document and its own fetch, through which pages call the API. */
export type SiteDeps = { openApi: (env: Env) => unknown; api: InProcessApi };

export function siteRoutes(deps: SiteDeps) {
  const site = new Hono<AppEnv>();
  site.use(async (c, next) => {
    c.set("inProcessApi", deps.api);
    await next();
  });
  site.use(pageFormPosts());
  // A page asked with a trailing slash (/app/, as people type it) is redirected to its address, not a 404.
  site.use(trimTrailingSlash());

  // Stylesheet, script and icons are Workers static assets (wrangler.toml [assets], scripts/build-assets.mjs)
  // served before the worker runs. Browsers that ask for /favicon.ico anyway are sent to the hashed icon.
  site.get("/favicon.ico", (c) => {
    c.header("Cache-Control", "public, max-age=86400");
    return c.redirect(asset("favicon.svg"), 301);
  });

  site.get("/", (c) => {
    pageHeaders(c);
    return c.html(
      <Layout title="imghost: image hosting at the edge" current="/">
        <section class="hero">
          <h1>Share images in a second</h1>
          <p>Drop, paste or pick images and get links for chats, forums and READMEs. Albums with a password, a cover and a zip download. An API and ShareX for the rest.</p>
          <p class="row">
            <a class="button primary" href="/app/upload">Upload images</a>
            <a class="button" href="/app/signup">Create an account</a>
            <a href="/docs">API reference</a>
          </p>
        </section>
      </Layout>,
    );
  });

  site.get("/docs", (c) => {
    pageHeaders(c);
    return c.html(<DocsPage doc={deps.openApi(c.env) as Parameters<typeof DocsPage>[0]["doc"]} />);
  });

  // File and album pages, oEmbed (pages/file.tsx, pages/album.tsx).
  const pageDeps = { headers: pageHeaders, notFound: notFoundPage };
  site.route("/", filePages(pageDeps));
  site.route("/", albumPages(pageDeps));
  site.get("/oembed", oembed);
  site.route("/", reportPages(pageDeps));
  // The web application: sign-in, upload, my files, API keys, account (pages/app/).
  site.route("/", appPages(pageDeps));

  return site;
}
