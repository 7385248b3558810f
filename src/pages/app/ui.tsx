// Small shared pieces of the web-app pages.
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { AppEnv } from "../../platform/http/env";
import { Layout } from "../layout";

/** A page of the web app: the site layout with the navigation of this request's session, this page marked. */
export function AppLayout(props: { c: Context<AppEnv>; title: string; children: Child }) {
  const { c } = props;
  const signedIn = Boolean(c.get("pageSession"));
  return (
    <Layout title={`${props.title} · imghost`} nav={signedIn ? { kind: "signed-in", csrf: c.get("csrf") } : { kind: "signed-out" }} current={c.req.path}>
      {props.children}
    </Layout>
  );
}

export function Notice(props: { kind: "error" | "ok"; children: Child }) {
  return (
    <p class={`notice ${props.kind}`} role={props.kind === "error" ? "alert" : "status"}>
      {props.children}
    </p>
  );
}

/** Shown by the script (body.dragging) while files are dragged over a page that takes them anywhere. */
export function DropOverlay() {
  return (
    <div class="drop-overlay" aria-hidden="true">
      <p>Drop the images to upload them</p>
    </div>
  );
}

/** Who sees a file: private and unlisted stand out on a card, public is quiet. */
export function VisibilityBadge(props: { visibility: "public" | "unlisted" | "private" }) {
  return <span class={`badge vis-${props.visibility}`}>{props.visibility}</span>;
}

/** An owner's own age-restricted file, shown to them (safe mode guards other people's files) and marked so. */
export function AgeBadge() {
  return (
    <span class="badge warn" title="Others see it only signed in, with their age confirmed and safe mode off">
      flagged 18+
    </span>
  );
}

/** The session's form token (context.ts checks it on every signed-in POST). */
export function Csrf(props: { c: Context<AppEnv> }) {
  return <input type="hidden" name="_csrf" value={props.c.get("csrf")} />;
}

/** Numbered pages: first, last, and two either side of the current one. */
export function Pager(props: { page: number; pages: number; href: (page: number) => string; label?: string }) {
  const { page, pages, href } = props;
  if (pages <= 1) return null;
  const shown = [...new Set([1, pages, ...[-2, -1, 0, 1, 2].map((d) => page + d)])].filter((p) => p >= 1 && p <= pages).sort((a, b) => a - b);
  const items: Child[] = [];
  shown.forEach((p, i) => {
    if (i > 0 && p - shown[i - 1] > 1) items.push(<span aria-hidden="true">…</span>);
    items.push(
      <a href={href(p)} aria-current={p === page ? "page" : undefined} aria-label={`Page ${p}`}>
        {p}
      </a>,
    );
  });
  return (
    <nav class="pager" aria-label={props.label ?? "Pages"}>
      {page > 1 ? <a href={href(page - 1)} rel="prev">Previous</a> : null}
      {items}
      {page < pages ? <a href={href(page + 1)} rel="next">Next</a> : null}
    </nav>
  );
}

export function formatBytes(n: number): string {
  // Decimal units, like the plan limits (20 MB = 20 000 000 bytes).
  if (n < 1000) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n;
  let i = -1;
  do {
    v /= 1000;
    i++;
  } while (v >= 1000 && i < units.length - 1);
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** "1 view", "2 views". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

/** A date people read ("25 Nov 2026"), in a <time> element with the exact instant. */
export function When(props: { iso: string }) {
  const d = new Date(props.iso);
  const text = Number.isNaN(d.getTime()) ? props.iso : d.toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  return <time datetime={props.iso}>{text}</time>;
}
