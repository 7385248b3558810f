// GET /files/:id/stats (extensions.md § 10): the owner's days, zeros included, top referring hosts and totals;
// strangers get 404; an API key needs `read`; the range is checked.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey, signup, verifiedUser } from "../support/api";
import { seedFile } from "../support/files";
import { uploadKeys } from "../support/key-set";
import { viewCounterFor } from "../../src/serving/view-counter";
import { dateOf, dayOf } from "../../src/insights/range";

async function viewed() {
  const owner = await verifiedUser();
  const f = await seedFile(owner.id, { visibility: "private" });
  const stub = viewCounterFor(env, f.id);
  await stub.add("file_view", f.id, 3, "blog.example.com");
  await stub.add("file_view", f.id, 1);
  await stub.add("file_download", f.id, 2);
  await stub.drain();
  return { owner, f };
}

describe("GET /files/:id/stats", () => {
  it("answers the last 30 days, today last and live, with the top referring hosts and totals", async () => {
    const { owner, f } = await viewed();
    const res = await call(`/files/${f.id}/stats`, { token: owner.access });
    expect(res.status, res.text).toBe(200);
    const today = dateOf(dayOf(Date.now()));
    expect(res.body.days).toHaveLength(30);
    expect(res.body.days[29]).toEqual({ date: today, views: 4, downloads: 2 });
    expect(res.body.days[0]).toEqual({ date: dateOf(dayOf(Date.now()) - 29), views: 0, downloads: 0 });
    expect(res.body.referrers).toEqual([
      { host: "blog.example.com", views: 3 },
      { host: "(direct)", views: 1 },
    ]);
    expect(res.body.totals).toEqual({ views: 4, downloads: 2 });
  });

  it("takes an inclusive range within the kept 90 days", async () => {
    const { owner, f } = await viewed();
    const today = dayOf(Date.now());
    const ok = await call(`/files/${f.id}/stats?from=${dateOf(today - 89)}&to=${dateOf(today - 1)}`, { token: owner.access });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.days).toHaveLength(89);
    expect(ok.body.totals).toEqual({ views: 0, downloads: 0 });
    for (const q of [`from=${dateOf(today - 90)}`, `to=${dateOf(today + 1)}`, `from=${dateOf(today)}&to=${dateOf(today - 1)}`, "from=2026-13-01", "to=yesterday"]) {
      const bad = await call(`/files/${f.id}/stats?${q}`, { token: owner.access });
      expect(bad.status, q).toBe(400);
      expect(bad.body.details.code).toBe("validation_error");
    }
  });

  it("is 404 to everyone but the owner, and to the owner for an unknown file", async () => {
    const { f } = await viewed();
    const stranger = await signup();
    for (const token of [stranger.access, undefined]) {
      const res = await call(`/files/${f.id}/stats`, { token });
      expect(res.status).toBe(404);
      expect(res.body.details.code).toBe("file_not_found");
    }
    expect((await call(`/files/file_doesnotexist_________/stats`, { token: stranger.access })).status).toBe(404);
  });

  it("takes API keys with `read` only; revoked and expired keys are refused", async () => {
    const { owner, f } = await viewed();
    const read = (await createKey(owner, { permissions: ["read"] })).key;
    const keys = await uploadKeys(owner);
    expect((await call(`/files/${f.id}/stats`, { token: read })).status).toBe(200);
    expect((await call(`/files/${f.id}/stats`, { token: keys.withoutUpload })).status).toBe(200); // read + manage
    const noRead = await call(`/files/${f.id}/stats`, { token: keys.upload });
    expect(noRead.status).toBe(403);
    expect(noRead.body.details.code).toBe("missing_permission");
    expect((await call(`/files/${f.id}/stats`, { token: keys.revoked })).status).toBe(401);
    expect((await call(`/files/${f.id}/stats`, { token: keys.expired })).status).toBe(401);
    // Another user's read key is a stranger.
    const other = (await createKey(await verifiedUser(), { permissions: ["read"] })).key;
    expect((await call(`/files/${f.id}/stats`, { token: other })).status).toBe(404);
  });
});
