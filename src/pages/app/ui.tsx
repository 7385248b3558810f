// Small shared pieces of the web-app pages.
import type { Child } from "hono/jsx";
import { Layout } from "../layout";

/** A page of the web app: the site layout with the app's navigation (signed in or out) and this page marked. */
export function AppLayout(props: { title: string; children: Child; signedIn: boolean; csrf?: string; script?: boolean; current?: string }) {
  return (
    <Layout
      title={`${props.title} · imghost`}
      nav={props.signedIn ? { kind: "signed-in", csrf: props.csrf ?? "" } : { kind: "signed-out" }}
      current={props.current}
    >
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
