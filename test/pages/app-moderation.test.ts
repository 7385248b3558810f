// Moderation pages: moderators see the queue and resolve; users are refused.
import { describe, expect, it } from "vitest";
import { verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { freshIp, report, reportRow, userWithRole } from "../support/moderation";
import { SITE, csrfOf, page as sitePage } from "../support/pages";

const cookieOf = (u: TestUser) => `__Host-session=${u.access}~${u.refresh}`;
const page = (path: string, cookie: string, form?: Record<string, string>) => sitePage(path, { cookie, form, origin: SITE });


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
