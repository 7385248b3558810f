// Alt text in the pages, oEmbed and the embed codes (falling back to the title), and the public album page's ?q=.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, verifiedUser, type TestUser } from "../support/api";
import { SITE, fetchRaw, seedFile } from "../support/files";

let owner: TestUser;
beforeAll(async () => {
  owner = await verifiedUser();
});

describe("alt text", () => {
  it("is the image's alt on its page, in the embed codes and in oEmbed; the title stands in without it", async () => {
    const f = await seedFile(owner.id, { title: "Pier", alt: "Wooden pier at low tide" });
    const html = (await fetchRaw(`${SITE}/f/${f.id}`)).text;
    expect(html).toContain('alt="Wooden pier at low tide"');
    expect(html).toContain("![Wooden pier at low tide](");
    expect(html).toContain("og:image:alt");
    const oembed = (await fetchRaw(`${SITE}/oembed?url=${encodeURIComponent(`${env.SITE_URL}/f/${f.id}`)}`)).json;
    expect(oembed).toMatchObject({ type: "photo", title: "Pier", alt: "Wooden pier at low tide" });
    const plain = await seedFile(owner.id, { title: "Dunes" });
    expect((await fetchRaw(`${SITE}/f/${plain.id}`)).text).toContain('alt="Dunes"');
    expect((await fetchRaw(`${SITE}/oembed?url=${encodeURIComponent(`${env.SITE_URL}/f/${plain.id}`)}`)).json.alt).toBe("Dunes");
  });
});

describe("the public album page's ?q=", () => {
  let album: string;
  let ids: string[];
  beforeAll(async () => {
    ids = [(await seedFile(owner.id, { title: "red kite", alt: "a kite over the hill" })).id, (await seedFile(owner.id, { title: "blue boat" })).id];
    await seedFile(owner.id, { title: "red kite not in the album" });
    const res = await call("/albums", { token: owner.access, body: { title: "Weekend", visibility: "public", fileIds: ids } });
    expect(res.status).toBe(201);
    album = res.body.id;
  });

  it("filters the album's own images by the same matching, for visitors too", async () => {
    const html = (await fetchRaw(`${SITE}/a/${album}?q=kit`)).text;
    const gallery = html.slice(html.indexOf('<ul class="gallery"')); // the head's preview is the album's cover, whatever q
    expect(gallery).toContain(ids[0]);
    expect(gallery).not.toContain(ids[1]);
    expect(html).toContain('alt="a kite over the hill"');
    expect(html).toMatch(/1 image\s*match/);
    expect(html).toContain('name="q"');
    const none = (await fetchRaw(`${SITE}/a/${album}?q=${encodeURIComponent('"" OR *')}`));
    expect(none.status).toBe(200);
    expect(none.text).toContain("No image in this album matches.");
    const all = (await fetchRaw(`${SITE}/a/${album}`)).text;
    for (const id of ids) expect(all).toContain(id);
  });

  it("offers no search on a password-protected album", async () => {
    const res = await call("/albums", { token: owner.access, body: { title: "Locked", visibility: "public", password: "open sesame", fileIds: ids } });
    expect(res.status).toBe(201);
    const page = await fetchRaw(`${SITE}/a/${res.body.id}?q=kite`);
    expect(page.status).toBe(401);
    expect(page.text).not.toContain(ids[0]);
  });
});
