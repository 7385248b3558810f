// Moderation pages (moderators and admins): the report queue and a resolve form per report.
import { Hono } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Csrf, Notice } from "./ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage } from "./api";
import { ErrorNotice, errorCodeOf, errorQuery } from "./error-param";
import { requireFormToken, requireSession, str, type Form } from "./context";

const ACTIONS = ["dismiss", "remove_file", "ban_file", "ban_user"] as const;

export const moderationPages = new Hono<AppEnv>();
moderationPages.use("/app/moderation", requireSession);
moderationPages.use("/app/moderation/*", requireSession, requireFormToken);

moderationPages.get("/app/moderation", async (c) => {
  const status = (["pending", "resolved", "all"] as const).find((s) => s === c.req.query("status")) ?? "pending";
  const r = await result(call(apiOf(c), "moderation.queue", { params: { query: { status, limit: 50 } } }));
  const q = c.req.query();
  if (!r.ok) {
    return c.html(
      <AppLayout title="Moderation" c={c}>
        <h1>Moderation</h1>
        <Notice kind="error">{r.status === 403 ? "Only moderators and admins can see the moderation queue." : apiMessage(r)}</Notice>
      </AppLayout>,
      r.status === 403 ? 403 : 400,
    );
  }
  const reports = r.body.reports;
  return c.html(
    <AppLayout title="Moderation" c={c}>
      <h1>Moderation queue</h1>
      {q.resolved ? <Notice kind="ok">Report resolved.</Notice> : null}
      <ErrorNotice param={q.error} />
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
              <Csrf c={c} />
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
});

moderationPages.post("/app/moderation/:id/resolve", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  // Passed on as given: the API refuses an unknown action (400), never a silent default.
  const action = str(form, "action") as (typeof ACTIONS)[number];
  const r = await result(call(apiOf(c), "moderation.resolve", { params: { path: { id: c.req.param("id") } }, body: { action, note: str(form, "note") } }));
  return c.redirect(`/app/moderation?${r.ok ? "resolved=1" : errorQuery(errorCodeOf(r))}`, 303);
});
