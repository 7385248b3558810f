// Moderation pages (moderators and admins): the report queue and a resolve form per report.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../env";
import { AppLayout, Csrf, Notice } from "./ui";
import { apiCall, apiMessage, type PageSession } from "./session";

type Form = Record<string, string | File | (string | File)[]>;
type Guards = {
  withSession: (c: Context<AppEnv>, fn: (s: PageSession, csrf: string) => Promise<Response> | Response) => Promise<Response>;
  withPost: (c: Context<AppEnv>, fn: (s: PageSession, form: Form, csrf: string) => Promise<Response> | Response) => Promise<Response>;
};
const str = (f: Form, k: string) => (typeof f[k] === "string" ? (f[k] as string) : "");

type Report = {
  reportId: string;
  fileId: string;
  reason: string;
  details: string;
  priority: string;
  status: string;
  reportCount: number;
  createdAt: string;
  action: string | null;
  file: { title: string; state: string; url: string } | null;
};

export function moderationAppPages(g: Guards) {
  const app = new Hono<AppEnv>();

  app.get("/app/moderation", (c) =>
    g.withSession(c, async (s, csrf) => {
      const status = ["pending", "resolved", "all"].includes(c.req.query("status") ?? "") ? c.req.query("status")! : "pending";
      const r = await apiCall(c, "GET", `/moderation/queue?status=${status}&limit=50`, { token: s.access });
      const q = c.req.query();
      if (!r.ok) {
        return c.html(
          <AppLayout title="Moderation" signedIn csrf={csrf}>
            <h1>Moderation</h1>
            <Notice kind="error">{r.status === 403 ? "Only moderators and admins can see the moderation queue." : apiMessage(r)}</Notice>
          </AppLayout>,
          r.status === 403 ? 403 : 400,
        );
      }
      const reports = r.body.reports as Report[];
      return c.html(
        <AppLayout title="Moderation" signedIn csrf={csrf}>
          <h1>Moderation queue</h1>
          {q.resolved ? <Notice kind="ok">Report resolved.</Notice> : null}
          {q.error ? <Notice kind="error">{q.error}</Notice> : null}
          <form method="get" action="/app/moderation" class="filters">
            <label for="mstatus">Status</label>
            <select id="mstatus" name="status">
              {["pending", "resolved", "all"].map((v) => (
                <option value={v} selected={status === v}>{v}</option>
              ))}
            </select>
            <button type="submit">Show</button>
          </form>
          {reports.length === 0 ? <p>Nothing to review.</p> : null}
          {reports.map((rep) => (
            <section class="report" aria-labelledby={`r-${rep.reportId}`}>
              <h2 id={`r-${rep.reportId}`}>
                {rep.reason} · {rep.priority} priority · {rep.reportCount} report(s)
              </h2>
              <p>
                File: <a href={`/f/${rep.fileId}`}>{rep.file?.title || rep.fileId}</a> ({rep.file?.state ?? "gone"}) · reported {rep.createdAt.slice(0, 16).replace("T", " ")}
              </p>
              {rep.details ? <blockquote>{rep.details}</blockquote> : null}
              {rep.status === "pending" ? (
                <form method="post" action={`/app/moderation/${rep.reportId}/resolve`} class="stack">
                  <Csrf token={csrf} />
                  <label for={`a-${rep.reportId}`}>Action</label>
                  <select id={`a-${rep.reportId}`} name="action">
                    <option value="dismiss">Dismiss (no action)</option>
                    <option value="remove_file">Remove the file</option>
                    <option value="ban_file">Ban the file (blocklist)</option>
                    <option value="ban_user">Ban the file and its owner</option>
                  </select>
                  <label for={`n-${rep.reportId}`}>Note</label>
                  <input id={`n-${rep.reportId}`} name="note" maxlength={1000} />
                  <button type="submit">Resolve</button>
                </form>
              ) : (
                <p class="muted">Resolved: {rep.action}</p>
              )}
            </section>
          ))}
        </AppLayout>,
      );
    }),
  );

  app.post("/app/moderation/:id/resolve", (c) =>
    g.withPost(c, async (s, form) => {
      const r = await apiCall(c, "POST", `/moderation/reports/${encodeURIComponent(c.req.param("id"))}/resolve`, {
        token: s.access,
        body: { action: str(form, "action"), note: str(form, "note") },
      });
      return c.redirect(`/app/moderation?${r.ok ? "resolved=1" : `error=${encodeURIComponent(apiMessage(r))}`}`, 303);
    }),
  );

  return app;
}
