// Insights on the pages: the account page's, the owner's file edit page's and /app/admin's server-drawn charts,
// each with a title and a "Show data" table of the API's numbers; no inline style or script (the CSP).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { page } from "../support/pages";
import { userWithRole } from "../admin/helpers";
import { viewCounterFor } from "../../src/serving/view-counter";
import { rollInsights } from "../../src/insights/rollup";

const cookieOf = (u: TestUser) => `__Host-session=${encodeURIComponent(`${u.access}~${u.refresh}`)}`;

/** The rows of one chart's "Show data" table, as [date, value]. */
function tableOf(html: string, id: string): string[][] {
  const figure = new RegExp(`<figure class="chart" id="${id}"[\\s\\S]*?</figure>`).exec(html)?.[0] ?? "";
  expect(figure).toContain("<summary>Show data</summary>");
  expect(figure).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="[^"]+"/);
  expect(figure).toMatch(/<title id="[^"]+">/);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(figure)?.[1] ?? "";
  return [...body.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g)].map((m) => [m[1], m[2]]);
}

async function viewedFile(owner: TestUser, n: number, host: string) {
  const f = await seedFile(owner.id, { title: `Seen ${n}` });
  const stub = viewCounterFor(env, f.id);
  await stub.add("file_view", f.id, n, host);
  await stub.drain();
  return f;
}

describe("insights on the pages", () => {
  it("the account page charts views, uploads and storage with the API's numbers, and lists the top files", async () => {
    const owner = await verifiedUser();
    const [a, b] = [await viewedFile(owner, 3, "x.example"), await viewedFile(owner, 8, "y.example")];
    const res = await page("/app/account", { cookie: cookieOf(owner) });
    expect(res.status).toBe(200);
    const api = (await call("/account/stats", { token: owner.access })).body;
    for (const [id, key] of [["account-views", "views"], ["account-uploads", "uploads"]] as const) {
      expect(tableOf(res.text, id)).toEqual(api.days.map((d: Record<string, number | string>) => [d.date, String(d[key])]));
    }
    expect(tableOf(res.text, "account-storage")).toHaveLength(30);
    const top = /<ol class="top-files" id="top-files">([\s\S]*?)<\/ol>/.exec(res.text)?.[1] ?? "";
    expect(top.indexOf(b.id)).toBeLessThan(top.indexOf(a.id));
    expect(res.text).toContain("y.example");
    expect(res.text).not.toMatch(/ style=|<script>/);
  });

  it("the owner's file edit page charts its 30 days and its referrers", async () => {
    const owner = await verifiedUser();
    const f = await viewedFile(owner, 5, "blog.example.com");
    const res = await page(`/app/files/${f.id}/edit`, { cookie: cookieOf(owner) });
    expect(res.status).toBe(200);
    const api = (await call(`/files/${f.id}/stats`, { token: owner.access })).body;
    expect(tableOf(res.text, "file-views")).toEqual(api.days.map((d: { date: string; views: number }) => [d.date, String(d.views)]));
    expect(res.text).toMatch(/<ol class="referrers" id="file-referrers">[\s\S]*blog\.example\.com/);
  });

  it("/app/admin shows the service's charts to admins only", async () => {
    const [admin, user] = [await userWithRole("admin"), await userWithRole("user")];
    await rollInsights(env, Date.now());
    const res = await page("/app/admin", { cookie: cookieOf(admin) });
    expect(res.status).toBe(200);
    for (const id of ["admin-signups", "admin-uploads", "admin-reports", "admin-storage"]) expect(tableOf(res.text, id)).toHaveLength(30);
    expect((await page("/app/admin", { cookie: cookieOf(user) })).status).toBe(403);
    expect((await page("/app/admin")).status).toBe(303);
  });
});
