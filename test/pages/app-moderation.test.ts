// Moderation pages: moderators see the queue and resolve; users are refused.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { freshIp, report, reportRow, userWithRole } from "../support/moderation";

const SITE = "http://localhost:8787";
const cookieOf = (u: TestUser) => `__Host-session=${u.access}~${u.refresh}`;

async function page(path: string, cookie: string, form?: Record<string, string>) {
  const headers: Record<string, string> = { cookie, origin: SITE };
  let body: string | undefined;
  if (form) {
    body = new URLSearchParams(form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  }
  const res = await exports.default.fetch(`${SITE}${path}`, { method: body ? "POST" : "GET", headers, body, redirect: "manual" });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

describe("moderation pages", () => {
  it("lists pending reports for a moderator and resolves one with a form", async () => {
    const mod = await userWithRole("moderator");
    const owner = await verifiedUser();
    const f = await seedFile(owner.id, { title: "reported picture" });
    const rep = await report({ fileId: f.id, reason: "spam", details: "ads everywhere" }, { ip: freshIp() });
    expect(rep.status).toBe(201);
    const reportId = rep.body.reportId ?? rep.body.id;
    const cookie = cookieOf(mod);
    const q = await page("/app/moderation", cookie);
    expect(q.status).toBe(200);
    expect(q.text).toContain("reported picture");
    expect(q.text).toContain("ads everywhere");
    const done = await page(`/app/moderation/${reportId}/resolve`, cookie, { _csrf: csrfOf(q.text), action: "dismiss", note: "fine" });
    expect(done.headers.get("location")).toContain("resolved=1");
    expect((await reportRow(reportId))?.status).toBe("resolved");
  });

  it("refuses the queue to ordinary users", async () => {
    const user = await verifiedUser();
    const q = await page("/app/moderation", cookieOf(user));
    expect(q.status).toBe(403);
  });
});
