// The public pages' additions (issue 14): the file page's facts, download and report form; the album page's
// count, lightbox markup and zip download (a password album's only with its password).
import { beforeAll, describe, expect, it } from "vitest";
import { call, signup, type TestUser } from "../support/api";
import { SITE, fetchRaw, seedFile } from "../support/files";

let owner: TestUser;
beforeAll(async () => {
  owner = await signup();
});

const form = (fields: Record<string, string>, origin = SITE) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", origin },
  body: new URLSearchParams(fields).toString(),
});

describe("file page", () => {
  it("shows date, views, size, dimensions, a download link and a report link", async () => {
    const f = await seedFile(owner.id, { title: "Facts", width: 640, height: 480, viewCount: 1 });
    const html = (await fetchRaw(`${SITE}/f/${f.id}`)).text;
    expect(html).toContain("<dt>Uploaded</dt>");
    expect(html).toMatch(/<dt>Views<\/dt><dd id="views">1<\/dd>/);
    expect(html).toContain("640 × 480 px");
    expect(html).toContain(`/api/v1/files/${f.id}/download`);
    expect(html).toContain(`href="/f/${f.id}/report"`);
  });

  it("sends a report through the API, and refuses a foreign origin", async () => {
    const f = await seedFile(owner.id, { title: "Reported" });
    const page = await fetchRaw(`${SITE}/f/${f.id}/report`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="reason"');
    const sent = await fetchRaw(`${SITE}/f/${f.id}/report`, form({ reason: "spam", details: "ads" }));
    expect(sent.status).toBe(200);
    expect(sent.text).toContain("the report reached our moderators");
    const bad = await fetchRaw(`${SITE}/f/${f.id}/report`, form({ reason: "nonsense" }));
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('role="alert"');
    const foreign = await fetchRaw(`${SITE}/f/${f.id}/report`, form({ reason: "spam" }, "https://evil.example"));
    expect(foreign.status).toBe(403);
  });
});

describe("album page", () => {
  it("shows the count and the lightbox, and downloads the album as a zip of what a visitor sees", async () => {
    const a = await seedFile(owner.id, { title: "one", filename: "one.png" });
    const b = await seedFile(owner.id, { title: "two", filename: "two.png" });
    const hidden = await seedFile(owner.id, { title: "secret", visibility: "private" });
    const album = await call("/albums", { token: owner.access, body: { title: "Zip me", description: "Two and a secret" } });
    await call(`/albums/${album.body.id}/files`, { token: owner.access, body: { fileIds: [a.id, b.id, hidden.id] } });
    const html = (await fetchRaw(`${SITE}/a/${album.body.id}`)).text;
    expect(html).toContain('<span class="muted" id="album-count">2 images</span>');
    expect(html).toContain('<dialog id="lightbox"');
    expect(html).toContain(`href="/a/${album.body.id}/download"`);
    const zip = await fetchRaw(`${SITE}/a/${album.body.id}/download`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");
    expect(zip.headers.get("content-disposition")).toContain('filename="Zip me.zip"');
    const text = new TextDecoder("latin1").decode(zip.bytes);
    expect(text).toContain("one.png");
    expect(text).toContain("two.png");
    expect(text).not.toContain("secret");
  });

  it("a password album's zip needs the password", async () => {
    const a = await seedFile(owner.id, { title: "locked", filename: "locked.png" });
    const album = await call("/albums", { token: owner.access, body: { title: "Locked", password: "open sesame" } });
    await call(`/albums/${album.body.id}/files`, { token: owner.access, body: { fileIds: [a.id] } });
    const bare = await fetchRaw(`${SITE}/a/${album.body.id}/download`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get("content-type")).toContain("text/html");
    const wrong = await fetchRaw(`${SITE}/a/${album.body.id}/download`, form({ password: "nope" }));
    expect(wrong.status).toBe(403);
    const right = await fetchRaw(`${SITE}/a/${album.body.id}/download`, form({ password: "open sesame" }));
    expect(right.status).toBe(200);
    expect(right.headers.get("cache-control")).toContain("no-store");
    expect(new TextDecoder("latin1").decode(right.bytes)).toContain("locked.png");
  });

  it("the opened page carries a download grant, not the password; the grant dies with a password change", async () => {
    const a = await seedFile(owner.id, { title: "granted", filename: "granted.png" });
    const album = await call("/albums", { token: owner.access, body: { title: "Granted", password: "open sesame" } });
    await call(`/albums/${album.body.id}/files`, { token: owner.access, body: { fileIds: [a.id] } });
    const page = await fetchRaw(`${SITE}/a/${album.body.id}`, form({ password: "open sesame" }));
    const html = new TextDecoder().decode(page.bytes);
    expect(html).not.toContain("open sesame");
    const grant = /name="grant" value="([^"]+)"/.exec(html)?.[1];
    expect(grant).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    const zip = await fetchRaw(`${SITE}/a/${album.body.id}/download`, form({ grant: grant! }));
    expect(zip.status).toBe(200);
    expect(new TextDecoder("latin1").decode(zip.bytes)).toContain("granted.png");
    // A forged or altered grant is no password.
    const forged = grant!.slice(0, -2) + (grant!.endsWith("AA") ? "BB" : "AA");
    expect((await fetchRaw(`${SITE}/a/${album.body.id}/download`, form({ grant: forged }))).status).toBe(401);
    // Nor the same bytes spelt otherwise: the last character's two spare bits are not ignored.
    const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = B64URL.indexOf(grant!.at(-1)!);
    for (const k of [0, 1, 2, 3].filter((k) => ((last & ~3) | k) !== last)) {
      const respelt = grant!.slice(0, -1) + B64URL[(last & ~3) | k];
      expect((await fetchRaw(`${SITE}/a/${album.body.id}/download`, form({ grant: respelt }))).status, respelt).toBe(401);
    }
    // Another album's grant does not open this one.
    const other = await call("/albums", { token: owner.access, body: { title: "Other", password: "open sesame" } });
    expect((await fetchRaw(`${SITE}/a/${other.body.id}/download`, form({ grant: grant! }))).status).toBe(401);
    await call(`/albums/${album.body.id}`, { method: "PATCH", token: owner.access, body: { password: "changed it" } });
    expect((await fetchRaw(`${SITE}/a/${album.body.id}/download`, form({ grant: grant! }))).status).toBe(401);
  });
});

describe("addresses with a trailing slash", () => {
  it("a page asked with a trailing slash is redirected to its address (the README's {site_url}/app/ was a 404)", async () => {
    for (const [asked, to] of [["/app/", "/app"], ["/docs/", "/docs"], ["/docs/?tag=files", "/docs?tag=files"]]) {
      const res = await fetchRaw(`${SITE}${asked}`, { redirect: "manual" });
      expect(res.status, asked).toBe(301);
      expect(new URL(res.headers.get("location")!, SITE).pathname + new URL(res.headers.get("location")!, SITE).search, asked).toBe(to);
    }
    expect((await fetchRaw(`${SITE}/`)).status).toBe(200); // the root stays itself
    expect((await fetchRaw(`${SITE}/nowhere/`, { redirect: "manual" })).status).toBe(301); // then /nowhere's own 404
  });
});
