// The frame of every page: head (stylesheet, script and icon from the hashed static assets), one navigation
// bar with the current page marked (behind a Menu button on phones), and the main region.
import type { Child } from "hono/jsx";
import { ASSET_PATHS } from "./assets.gen";

export const asset = (name: keyof typeof ASSET_PATHS) => ASSET_PATHS[name];

/** Who the navigation is for: a signed-in person (with the CSRF token for Log out), a signed-out one, or
 *  a public page that does not look at the session (it may be cached for everyone). */
export type NavState = { kind: "signed-in"; csrf: string } | { kind: "signed-out" } | { kind: "public" };

/** The signed-in person's links; a signed-out one gets the first and the last only. */
const MAIN: [string, string, "in" | "all"][] = [
  ["/app/upload", "Upload", "all"],
  ["/app/files", "My files", "in"],
  ["/app/albums", "Albums", "in"],
  ["/app/keys", "API keys", "in"],
  ["/docs", "API", "all"],
];

/**
 * One header on every page. Public pages are one cached answer for everyone and read no session, so they carry both
 * link sets and client/nav-state.ts swaps them; their Log out links to a page with the form (no CSRF token in a cached
 * page). The companion cookie, the phone Menu (<details>) and client/menu.ts: docs/web-app.md § Design.
 */
function Nav(props: { state: NavState; current?: string }) {
  const { state, current } = props;
  const mark = (href: string) => (current && (current === href || current.startsWith(`${href}/`)) ? "page" : undefined);
  const signedIn = state.kind === "signed-in";
  const pub = state.kind === "public";
  // On a public page the signed-in parts are drawn hidden, the signed-out ones marked for the swap.
  const when = (who: "in" | "out") => (pub ? { "data-nav-when": who, hidden: who === "in" } : {});
  const shown = (who: "in" | "out" | "all") => who === "all" || pub || (who === "in") === signedIn;
  return (
    <nav class="main" aria-label="Main" data-nav={state.kind}>
      <details class="menu">
        <summary>Menu</summary>
        <div class="menu-links">
          {MAIN.filter(([, , who]) => shown(who)).map(([href, text, who]) => (
            <a href={href} aria-current={mark(href)} {...(who === "in" ? when("in") : {})}>{text}</a>
          ))}
          <span class="end">
            {shown("in") ? (
              <span class="who" {...when("in")}>
                <a href="/app/account" aria-current={mark("/app/account")}>Account</a>
                {state.kind === "signed-in" ? (
                  <form method="post" action="/app/logout" class="inline">
                    <input type="hidden" name="_csrf" value={state.csrf} />
                    <button type="submit" class="small">Log out</button>
                  </form>
                ) : (
                  <a href="/app/logout">Log out</a>
                )}
              </span>
            ) : null}
            {shown("out") ? (
              <span class="who" {...when("out")}>
                <a href="/app/login" aria-current={mark("/app/login")}>Log in</a>
                <a href="/app/signup" aria-current={mark("/app/signup")}>Sign up</a>
              </span>
            ) : null}
          </span>
        </div>
      </details>
    </nav>
  );
}

/**
 * The signed-in person's search box, atop every page of theirs: a plain GET to /app/search, and as they type the
 * client script (client/typeahead.ts) lists the first matches under it, as links (the arrow keys move among them).
 */
function SiteSearch() {
  return (
    <form class="site-search" method="get" action="/app/search" role="search" data-typeahead="">
      <label for="site-q" class="sr-only">Search your images</label>
      <input id="site-q" name="q" type="search" maxlength={200} placeholder="Search your images" autocomplete="off" aria-controls="site-q-list" />
      <ul id="site-q-list" class="typeahead" aria-label="Matches" aria-live="polite" hidden></ul>
    </form>
  );
}

/** `head`: extra elements for <head> (OpenGraph tags). `current`: the path whose nav link is marked. */
export function Layout(props: { title: string; children: Child; description?: string; head?: Child; nav?: NavState; current?: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        {props.description ? <meta name="description" content={props.description} /> : null}
        <link rel="icon" href={asset("favicon.svg")} type="image/svg+xml" />
        <link rel="stylesheet" href={asset("site.css")} />
        <link rel="stylesheet" href={asset("ui.css")} />
        <script src={asset("app.js")} data-thumbhash={asset("thumbhash.js")} data-webauthn={asset("webauthn.js")} data-api={asset("api.js")} defer></script>
        {props.head ?? null}
      </head>
      <body>
        <a class="skip" href="#content">Skip to content</a>
        <header class="top">
          <div class="bar">
            <a class="brand" href="/">
              <img src={asset("favicon.svg")} alt="" width={28} height={28} />
              imghost
            </a>
            <Nav state={props.nav ?? { kind: "public" }} current={props.current} />
          </div>
        </header>
        <main id="content">
          {/* Above the page's own content, not in the header: the header stays one row on a phone. */}
          {props.nav?.kind === "signed-in" ? <SiteSearch /> : null}
          {props.children}
        </main>
      </body>
    </html>
  );
}
