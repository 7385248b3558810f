// Small shared pieces of the web-app pages.
import type { Child } from "hono/jsx";
import { Layout } from "../layout";

export function AppLayout(props: { title: string; children: Child; signedIn: boolean; csrf?: string; script?: boolean }) {
  return (
    <Layout title={`${props.title} · imghost`} head={
        <>
          <link rel="stylesheet" href="/assets/app.css" />
          {props.script ? <script src="/assets/app.js" defer></script> : null}
        </>
      }
    >
      <nav class="appnav" aria-label="Account">
        {props.signedIn ? (
          <>
            <a href="/app/upload">Upload</a>
            <a href="/app/files">My files</a>
            <a href="/app/albums">Albums</a>
            <a href="/app/keys">API keys</a>
            <a href="/app/account">Account</a>
            <form method="post" action="/app/logout" class="inline">
              <input type="hidden" name="_csrf" value={props.csrf ?? ""} />
              <button type="submit">Log out</button>
            </form>
          </>
        ) : (
          <>
            <a href="/app/login">Log in</a>
            <a href="/app/signup">Sign up</a>
          </>
        )}
      </nav>
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

export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
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
