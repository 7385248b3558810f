// {site_url}/a/<album_id>: the gallery page and its password form.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, signup, type TestUser } from "../support/api";
import { SITE, fetchRaw, seedFile, settledCount } from "../support/files";
import { clearOfWindowEdge } from "../support/clock";
import { ALBUMS } from "../../src/config";

let owner: TestUser;
beforeAll(async () => {
  owner = await signup();
});

async function album(body: Record<string, unknown>) {
  const res = await call("/albums", { token: owner.access, body: { title: "Alps", ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

const form = (password: string, ip = "192.0.2.10") => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": ip },
  body: `password=${encodeURIComponent(password)}`,
});

describe("GET {site_url}/a/<id>", () => {
  it("shows thumbnails linking to the images' pages, with card tags; private and age-restricted files left out", async () => {
    const a1 = await seedFile(owner.id, { title: "peak" });
    const a2 = await seedFile(owner.id, { title: "lake" });
    const priv = await seedFile(owner.id, { visibility: "private" });
    const nsfw = await seedFile(owner.id, { ageRestricted: true });
    const a = await album({ description: "Summer 2026", fileIds: [a1.id, a2.id, priv.id, nsfw.id] });
    const res = await fetchRaw(`${SITE}/a/${a.id}`);
    expect(res.status).toBe(200);
    const html = res.text;
    expect(html).toMatch(new RegExp(`<a href="${env.SITE_URL}/f/${a1.id}"[^>]*><img src="${env.IMAGE_URL}/${a1.id}/thumb"`));
    expect(html).toContain(`${env.IMAGE_URL}/${a2.id}/thumb`);
    expect(html).not.toContain(priv.id);
    expect(html).not.toContain(nsfw.id);
    expect(html).toContain('property="og:title" content="Alps"');
    // No cover chosen: the first image (files added in one request share a time, so either).
    expect(html).toMatch(new RegExp(`property="og:image" content="${env.IMAGE_URL}/(${a1.id}|${a2.id})"`));
    expect(html).toContain('property="og:description" content="Summer 2026"');
    expect(await settledCount("album_view", a.id, 1)).toBeGreaterThanOrEqual(1);
  });

  it("404 for private and unknown albums", async () => {
    const p = await album({ visibility: "private" });
    expect((await fetchRaw(`${SITE}/a/${p.id}`)).status).toBe(404);
    expect((await fetchRaw(`${SITE}/a/alb_AAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
  });

  it("pages through large albums", async () => {
    const files = await Promise.all(Array.from({ length: 61 }, () => seedFile(owner.id)));
    const a = await album({ fileIds: files.map((f) => f.id) });
    const p1 = await fetchRaw(`${SITE}/a/${a.id}`);
    expect(p1.text).toContain(`href="/a/${a.id}?page=2"`);
    const p2 = await fetchRaw(`${SITE}/a/${a.id}?page=2`);
    expect((p2.text.match(/<li>/g) ?? []).length).toBe(1);
  });
});

describe("password-protected album pages", () => {
  it("asks for the password with a form that posts to the same page, and shows nothing of the album", async () => {
    const f = await seedFile(owner.id);
    const a = await album({ title: "Secret trip", password: "letmein!", fileIds: [f.id] });
    const res = await fetchRaw(`${SITE}/a/${a.id}`);
    expect(res.status).toBe(401);
    expect(res.text).toContain(`<form class="password" method="post" action="/a/${a.id}">`);
    expect(res.text).toContain('type="password"');
    expect(res.text).not.toContain("Secret trip");
    expect(res.text).not.toContain(f.id);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
  });

  it("the right password shows the album; a wrong one the form again; repeated wrong ones are limited", async () => {
    clearOfWindowEdge(ALBUMS.passwordWindowSeconds);
    const f = await seedFile(owner.id);
    const a = await album({ password: "letmein!", fileIds: [f.id] });
    const ok = await fetchRaw(`${SITE}/a/${a.id}`, form("letmein!"));
    expect(ok.status).toBe(200);
    expect(ok.text).toContain(`${env.IMAGE_URL}/${f.id}/thumb`);
    expect(ok.text).not.toContain("letmein!");
    const wrong = await fetchRaw(`${SITE}/a/${a.id}`, form("nope", "192.0.2.55"));
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain("not right");
    for (let i = 0; i < 9; i++) await fetchRaw(`${SITE}/a/${a.id}`, form(`nope${i}`, "192.0.2.55"));
    const limited = await fetchRaw(`${SITE}/a/${a.id}`, form("letmein!", "192.0.2.55"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("a parallel burst of form posts cannot slip past the limit", async () => {
    clearOfWindowEdge(ALBUMS.passwordWindowSeconds);
    const a = await album({ password: "letmein!" });
    const guesses = Array.from({ length: 59 }, (_, i) => `nope ${i}`).concat("letmein!");
    const replies = await Promise.all(guesses.map((g) => fetchRaw(`${SITE}/a/${a.id}`, form(g, "192.0.2.77"))));
    expect(replies.filter((r) => r.status === 403).length).toBeLessThanOrEqual(10);
    expect(replies.at(-1)!.status).toBe(429);
  });

  it("refuses oversized form bodies", async () => {
    const a = await album({ password: "letmein!" });
    const res = await fetchRaw(`${SITE}/a/${a.id}`, { ...form("x".repeat(10_000)) });
    expect(res.status).toBe(413);
  });
});
