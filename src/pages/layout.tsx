import type { Child } from "hono/jsx";

/** `head`: extra elements for <head> (OpenGraph tags, page-specific stylesheets and scripts). */
export function Layout(props: { title: string; children: Child; description?: string; head?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        {props.description ? <meta name="description" content={props.description} /> : null}
        <link rel="stylesheet" href="/assets/site.css" />
        {props.head ?? null}
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">imghost</a>
          <nav>
            <a href="/docs">API reference</a>{" "}
            <a href="/app/upload">Upload</a>{" "}
            <a href="/app/files">My files</a>
          </nav>
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
}
