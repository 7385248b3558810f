// The owner sees their own files in the web app (issue 37): My files, the album editor and the upload results
// name owner links for every image (serving/signed-links.ts), which load, `Cache-Control: private`, on every path
// (uncached, cached, from the records alone), with {image_url} on the site's host and on a host of its own.
// A stranger's render of the same pages names none of them, and the plain links of the private files are 404 to
// them on every path. The owner's 18+ files are listed, with a badge, and no "Include 18+" checkbox.
import { afterEach, describe, expect, it } from "vitest";
import { call } from "../support/api";
import { IMAGE, seedFile } from "../support/files";
import { everyPath, refusedWith, viewOn } from "../support/byte-paths";
import { OTHER_HOSTS, imageUrls, ownerLinksOf, pageUser, sitePage, type PageUser } from "../support/owner-pages";
import { fixture } from "../analysis/fixtures";
import { makePng } from "../uploads/helpers";
import { fakeRemote, image, type Remote } from "../uploads/remote";
import { OWNER_SIG } from "../../src/serving/signed-links";

let remote: Remote | null = null;
afterEach(() => {
  remote?.restore();
  remote = null;
});

const LAYOUTS = [
  { name: "{image_url} on the site's host", vars: {} as Partial<Env>, imageBase: IMAGE },
  { name: "{image_url} on a host of its own", vars: OTHER_HOSTS, imageBase: OTHER_HOSTS.IMAGE_URL! },
];

/** The owner's three kinds of files only they (or adults) fully see, with real JPEG bytes and thumbnails. */
async function ownersFiles(u: PageUser) {
  const jpeg = { content: fixture("wood.jpg"), thumb: fixture("wood.jpg"), mime: "image/jpeg", filename: "wood.jpg", width: 400, height: 400 };
  return {
    priv: await seedFile(u.id, { ...jpeg, title: "private one", visibility: "private" }),
    unlisted: await seedFile(u.id, { ...jpeg, title: "unlisted one", visibility: "unlisted" }),
    adult: await seedFile(u.id, { ...jpeg, title: "adult one", visibility: "public", ageRestricted: true, nsfwScore: 0.93 }),
  };
}

/** Each link loads for anybody holding it (no cookie), private, on the uncached path, the cached one and from the records. */
async function expectLoads(urls: string[], vars: Partial<Env>) {
  expect(urls.length).toBeGreaterThan(0);
  for (const url of urls) {
    await everyPath(url, (v, path) => {
      expect(v.status, path).toBe(200);
      expect(v.headers.get("content-type"), path).toMatch(/^image\//);
      // (A thumbnail still being made is the placeholder SVG, private for a minute.)
      expect(v.headers.get("cache-control"), path).toMatch(/^private, (no-cache|max-age=60)$/);
    }, { vars });
  }
}

/** The stranger's view of the same pages: none of the owner's links, and the private file's plain links are 404. */
async function expectStrangerSeesNothing(stranger: PageUser, paths: string[], fileIds: string[], privateId: string, layout: (typeof LAYOUTS)[number]) {
  for (const path of paths) {
    const p = await sitePage(path, { cookie: stranger.cookie, vars: layout.vars });
    expect(p.text, path).not.toContain(OWNER_SIG);
    for (const id of fileIds) expect(imageUrls(p.text, layout.imageBase).filter((u) => u.includes(id)), path).toEqual([]);
  }
  for (const plain of [`${layout.imageBase}/${privateId}/thumb`, `${layout.imageBase}/${privateId}/thumb?w=160`, `${layout.imageBase}/${privateId}`]) {
    await everyPath(plain, refusedWith(404, "file_not_found"), { vars: layout.vars });
  }
}

describe("the owner's own images in the web app", () => {
  for (const layout of LAYOUTS) {
    it(`My files lists the private, unlisted and 18+ files with owner links that load (${layout.name})`, async () => {
      const [owner, stranger] = [await pageUser("mine"), await pageUser("other")];
      const f = await ownersFiles(owner);
      const grid = await sitePage("/app/files", { cookie: owner.cookie, vars: layout.vars });
      expect(grid.status).toBe(200);
      expect(grid.text).toContain("3 files");
      expect(grid.text).not.toContain("Include 18+");
      const cards = grid.text.split('<li class="card"').slice(1);
      const adultCard = cards.find((c) => c.includes(f.adult.id))!;
      expect(adultCard).toContain("flagged 18+");
      expect(cards.find((c) => c.includes(f.priv.id))).not.toContain("flagged 18+");
      for (const file of Object.values(f)) {
        const links = ownerLinksOf(grid.text, layout.imageBase, file.id);
        expect(new Set(links).size).toBe(2); // the thumbnail (src and srcset) and its 160 px step
        await expectLoads(links, layout.vars);
      }
      await expectStrangerSeesNothing(stranger, ["/app/files"], Object.values(f).map((x) => x.id), f.priv.id, layout);
    });

    it(`the album editor and the albums list name owner links for the album's files, the picker and the cover (${layout.name})`, async () => {
      const [owner, stranger] = [await pageUser("alb"), await pageUser("other")];
      const f = await ownersFiles(owner);
      const spare = await seedFile(owner.id, { visibility: "private", title: "not in it", content: fixture("wood.jpg"), thumb: fixture("wood.jpg"), mime: "image/jpeg" });
      const album = await call("/albums", { token: owner.token, body: { title: "Mine", visibility: "private" } });
      expect((await call(`/albums/${album.body.id}/files`, { token: owner.token, body: { fileIds: [f.priv.id, f.unlisted.id, f.adult.id] } })).status).toBe(200);
      expect((await call(`/albums/${album.body.id}`, { method: "PATCH", token: owner.token, body: { coverImageId: f.priv.id } })).status).toBe(200);

      const editor = await sitePage(`/app/albums/${album.body.id}`, { cookie: owner.cookie, vars: layout.vars });
      expect(editor.status).toBe(200);
      for (const file of [...Object.values(f), spare]) await expectLoads(ownerLinksOf(editor.text, layout.imageBase, file.id), layout.vars);
      expect(editor.text.split('<li class="card').find((c) => c.includes(f.adult.id))).toContain("flagged 18+");
      const list = await sitePage("/app/albums", { cookie: owner.cookie, vars: layout.vars });
      await expectLoads(ownerLinksOf(list.text, layout.imageBase, f.priv.id), layout.vars);

      const theirs = await sitePage(`/app/albums/${album.body.id}`, { cookie: stranger.cookie, vars: layout.vars });
      expect(theirs.status).toBe(404);
      await expectStrangerSeesNothing(stranger, [`/app/albums/${album.body.id}`, "/app/albums"], [...Object.values(f), spare].map((x) => x.id), f.priv.id, layout);
    });

    it(`the upload results (no JavaScript) show the new private file's thumbnail through owner links (${layout.name})`, async () => {
      const [owner, stranger] = [await pageUser("up"), await pageUser("other")];
      remote = fakeRemote(() => image(makePng(24, 24, 5), "image/png"));
      const csrf = (await sitePage("/app/upload", { cookie: owner.cookie })).text.match(/name="_csrf" value="([^"]+)"/)![1];
      const done = await sitePage("/app/upload", { cookie: owner.cookie, vars: layout.vars, form: { _csrf: csrf, link: "https://img.example.com/mine.png", visibility: "private" } });
      expect(done.status, done.text).toBe(200);
      const fileId = /\/f\/(file_[A-Za-z0-9_-]+)/.exec(done.text)![1];
      expect(done.text).toContain("Private: its links answer “Not found” to everyone but you.");
      await expectLoads(ownerLinksOf(done.text, layout.imageBase, fileId), layout.vars);

      // The upload script's rows ask /app/files/<id>/preview, which sends the owner on to the owner link.
      const preview = await sitePage(`/app/files/${fileId}/preview`, { cookie: owner.cookie, vars: layout.vars });
      expect(preview.status).toBe(302);
      const location = preview.headers.get("location")!;
      expect(new URL(location).searchParams.get(OWNER_SIG)).toBeTruthy();
      await expectLoads([location], layout.vars);
      // A stranger asking the same door gets a link signed as them, which the byte link refuses.
      const theirs = (await sitePage(`/app/files/${fileId}/preview`, { cookie: stranger.cookie, vars: layout.vars })).headers.get("location")!;
      await everyPath(theirs, refusedWith(403, "invalid_signature"), { vars: layout.vars });
      expect((await viewOn(`${layout.imageBase}/${fileId}/thumb`, { vars: layout.vars })).status).toBe(404);
    });
  }

  it("a page rendered again within the hour names the very same links (the browser keeps its copy)", async () => {
    const owner = await pageUser("same");
    const f = await ownersFiles(owner);
    const first = ownerLinksOf((await sitePage("/app/files", { cookie: owner.cookie })).text, IMAGE, f.priv.id);
    const again = ownerLinksOf((await sitePage("/app/files", { cookie: owner.cookie })).text, IMAGE, f.priv.id);
    const exp = Number(new URL(first[0]).searchParams.get("exp"));
    // (Unless the hour turned between the two renders.)
    if (Number(new URL(again[0]).searchParams.get("exp")) === exp) expect(again).toEqual(first);
  });
});
