// The file page /f/<id> for its signed-in owner (pages/file-owner.tsx): their private and age-restricted files
// show, drawn from owner links that load (also with {image_url} on a host of its own), the page `private,
// no-store`; Download goes through the web app with the session. Strangers, signed in or not, get what they got
// before: 404 for the private file, a notice without the image for the age-restricted one, never an owner link.
import { describe, expect, it } from "vitest";
import { IMAGE, seedFile } from "../support/files";
import { everyPath, refusedWith } from "../support/byte-paths";
import { OTHER_HOSTS, imageUrls, ownerLinksOf, pageUser, sitePage } from "../support/owner-pages";
import { fixture } from "../analysis/fixtures";
import { OWNER_SIG } from "../../src/serving/signed-links";

const jpeg = { content: fixture("wood.jpg"), thumb: fixture("wood.jpg"), mime: "image/jpeg", filename: "wood.jpg", width: 400, height: 400 };

const loads = (v: { status: number; headers: Headers }, path: string) => {
  expect(v.status, path).toBe(200);
  expect(v.headers.get("content-type"), path).toMatch(/^image\//);
  expect(v.headers.get("cache-control"), path).toBe("private, no-cache");
};

describe("the file page of the owner's own file", () => {
  for (const [name, vars, imageBase] of [["site host", {}, IMAGE], ["own host", OTHER_HOSTS, OTHER_HOSTS.IMAGE_URL!]] as const) {
    it(`a private file: the owner's page shows it through owner links (${name}); anyone else gets 404`, async () => {
      const [owner, stranger] = [await pageUser("fp"), await pageUser("other")];
      const f = await seedFile(owner.id, { ...jpeg, title: "only mine", visibility: "private" });
      const mine = await sitePage(`/f/${f.id}`, { cookie: owner.cookie, vars });
      expect(mine.status).toBe(200);
      expect(mine.headers.get("cache-control")).toBe("private, no-store");
      expect(mine.text).toContain("only mine");
      expect(mine.text).toContain("Private: only you see this page");
      expect(mine.text).toContain(`href="/app/files/${f.id}/download"`);
      expect(mine.text).not.toContain('property="og:image"');
      const links = ownerLinksOf(mine.text, imageBase, f.id);
      expect(links.length).toBeGreaterThanOrEqual(3); // src (640 px step), srcset, and the link to the original
      for (const url of new Set(links)) await everyPath(url, loads, { vars });

      for (const cookie of [undefined, stranger.cookie]) {
        const theirs = await sitePage(`/f/${f.id}`, { cookie, vars });
        expect(theirs.status).toBe(404);
        expect(theirs.text).not.toContain(OWNER_SIG);
      }
      await everyPath(`${imageBase}/${f.id}`, refusedWith(404, "file_not_found"), { vars });
      await everyPath(`${imageBase}/${f.id}?w=320`, refusedWith(404, "file_not_found"), { vars });
    });
  }

  it("an age-restricted file: its owner sees the image with the badge; a visitor the notice, with Vary: Cookie", async () => {
    const [owner, stranger] = [await pageUser("fa"), await pageUser("other")];
    const f = await seedFile(owner.id, { ...jpeg, title: "flagged", visibility: "public", ageRestricted: true });
    const mine = await sitePage(`/f/${f.id}`, { cookie: owner.cookie });
    expect(mine.headers.get("cache-control")).toBe("private, no-store");
    expect(mine.text).toContain("flagged 18+");
    expect(mine.text).not.toContain("so it is not shown here");
    for (const url of new Set(ownerLinksOf(mine.text, IMAGE, f.id))) await everyPath(url, loads);
    for (const cookie of [undefined, stranger.cookie]) {
      const theirs = await sitePage(`/f/${f.id}`, { cookie });
      expect(theirs.status).toBe(200);
      expect(theirs.headers.get("cache-control")).toBe("public, max-age=60");
      expect(theirs.headers.get("vary")).toContain("Cookie");
      expect(theirs.text).toContain("so it is not shown here");
      expect(theirs.text).not.toContain(OWNER_SIG);
      // No image: only the notice's plain "Open the image" link.
      expect(imageUrls(theirs.text, IMAGE).filter((u) => u.includes(f.id))).toEqual([`${IMAGE}/${f.id}`]);
    }
  });

  it("a public file's page stays one cached answer for everyone, its owner included (no session read)", async () => {
    const owner = await pageUser("fpub");
    const f = await seedFile(owner.id, { ...jpeg, visibility: "public" });
    const mine = await sitePage(`/f/${f.id}`, { cookie: owner.cookie });
    expect(mine.headers.get("cache-control")).toBe("public, max-age=60");
    expect(mine.headers.get("vary")).toBeNull();
    expect(mine.headers.getSetCookie()).toEqual([]);
    expect(mine.text).not.toContain(OWNER_SIG);
  });

  it("Download: the owner's goes through the web app with the session; a stranger is sent back with a code", async () => {
    const [owner, stranger] = [await pageUser("fd"), await pageUser("other")];
    const f = await seedFile(owner.id, { ...jpeg, visibility: "private" });
    const got = await sitePage(`/app/files/${f.id}/download`, { cookie: owner.cookie });
    expect(got.status).toBe(200);
    expect(got.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(got.headers.get("content-type")).toBe("image/jpeg");
    const refused = await sitePage(`/app/files/${f.id}/download`, { cookie: stranger.cookie });
    expect(refused.status).toBe(303);
    expect(refused.headers.get("location")).toBe("/app/files?error=file_not_found");
    expect((await sitePage(`/app/files/${f.id}/download`)).status).toBe(303); // signed out: to the login page
  });
});
