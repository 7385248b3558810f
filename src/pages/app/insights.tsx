// Insights on the pages (extensions.md § 10): a file's 30 days on its edit page, the account's on the account page,
// the service's on /app/admin. The charts are the server's SVG (insights/chart.tsx); the numbers are the API's.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { Chart, DataTable, Referrers } from "../../insights/chart";
import { AppLayout, Notice, formatBytes } from "./ui";
import { call } from "@imghost/client";
import { apiOf, apiMessage, result, type Schemas } from "./api";
import { requireSession } from "./context";

const pick = <T extends { date: string }>(days: T[], key: keyof T) => days.map((d) => ({ date: d.date, value: Number(d[key]) }));

/** The owner's file: views a day and the top referring hosts, from GET /files/:id/stats. */
export async function FileInsights(props: { c: Context<AppEnv>; id: string }) {
  const r = await result(call(apiOf(props.c), "files.stats", { params: { path: { id: props.id } } }));
  if (!r.ok) return null;
  const s: Schemas["FileStats"] = r.body;
  return (
    <section aria-labelledby="insights" class="insights">
      <h2 id="insights">Views, last 30 days</h2>
      <p>
        {s.totals.views.toLocaleString("en-US")} views and {s.totals.downloads.toLocaleString("en-US")} downloads.
      </p>
      <Chart id="file-views" title="Views a day" unit="views" points={pick(s.days, "views")} />
      <h3>Where the views come from</h3>
      <Referrers id="file-referrers" referrers={s.referrers} />
      <p class="muted">Only the referring site's host is kept: never the page, the query or anything about the viewer.</p>
    </section>
  );
}

/** The account's days, top files and referrers, from GET /account/stats. */
export async function AccountInsights(props: { c: Context<AppEnv> }) {
  const r = await result(call(apiOf(props.c), "account.stats"));
  if (!r.ok) return null;
  const s: Schemas["AccountStats"] = r.body;
  return (
    <section aria-labelledby="insights" class="insights">
      <h2 id="insights">Insights, last 30 days</h2>
      <div class="chart-grid">
        <Chart id="account-views" title="Views a day" unit="views" points={pick(s.days, "views")} />
        <Chart id="account-uploads" title="Uploads a day" unit="uploads" points={pick(s.days, "uploads")} />
        <Chart id="account-storage" title="Storage used" unit="stored" kind="line" format={formatBytes} points={pick(s.days, "storageBytes")} />
      </div>
      <h3>Top files</h3>
      {s.topFiles.length === 0 ? (
        <p class="muted">No views in these days yet.</p>
      ) : (
        <ol class="top-files" id="top-files">
          {s.topFiles.map((f) => (
            <li>
              <a href={`/app/files/${f.id}/edit`}>{f.title || "Untitled image"}</a> <span class="muted">{f.views.toLocaleString("en-US")} views</span>
            </li>
          ))}
        </ol>
      )}
      <h3>Where the views come from</h3>
      <Referrers id="account-referrers" referrers={s.referrers} />
    </section>
  );
}

export const insightsPages = new Hono<AppEnv>();
insightsPages.use("/app/admin", requireSession);

insightsPages.get("/app/admin", async (c) => {
  const r = await result(call(apiOf(c), "admin.stats"));
  if (!r.ok) {
    return c.html(
      <AppLayout c={c} title="Service insights">
        <h1>Service insights</h1>
        <Notice kind="error">{apiMessage(r)}</Notice>
      </AppLayout>,
      r.status === 403 ? 403 : 400,
    );
  }
  const days: Schemas["AdminStats"]["days"] = r.body.days;
  return c.html(
    <AppLayout c={c} title="Service insights">
      <h1>Service insights</h1>
      <p class="muted">The last 30 days, every shard summed by the cron (today's figures are at most one cron period old).</p>
      <div class="chart-grid">
        <Chart id="admin-signups" title="Sign-ups a day" unit="sign-ups" points={pick(days, "signups")} />
        <Chart id="admin-uploads" title="Uploads a day" unit="uploads" points={pick(days, "uploads")} />
        <Chart id="admin-reports" title="Reports a day" unit="reports" points={pick(days, "reports")} />
        <Chart id="admin-storage" title="Storage used" unit="stored" kind="line" format={formatBytes} points={pick(days, "storageBytes")} />
      </div>
      <DataTable
        caption="Every figure by day"
        summary="Show every figure"
        rows={days}
        columns={[
          ["Date", (d) => d.date],
          ["Sign-ups", (d) => d.signups],
          ["Uploads", (d) => d.uploads],
          ["Uploaded", (d) => formatBytes(d.uploadBytes)],
          ["Views", (d) => d.views],
          ["Reports", (d) => d.reports],
          ["Storage", (d) => formatBytes(d.storageBytes)],
        ]}
      />
    </AppLayout>,
  );
});
