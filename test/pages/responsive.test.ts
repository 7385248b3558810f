// Responsive markup (issue 16 item 2): every image the pages render names the width ladder in srcset, grids use
// the thumbnail's family, link previews get a variant of a sensible size, and placeholders ride along as data
// attributes for app.js (the CSP allows no inline style).
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { VARIANTS } from "../../src/config";
import { call, signup, type TestUser } from "../support/api";
import { SITE, fetchRaw, seedFile } from "../support/files";
import { ASSET_PATHS } from "../../src/pages/assets.gen";

let owner: TestUser;
beforeAll(async () => {
  owner = await signup();
});

const big = { width: 4000, height: 3000, placeholder: "HBkSHYSIeHiPiHh8eJd4eTN0EEQG", dominantColor: "#7a5c3e" };
const srcsetOf = (html: string, marker: string) => new RegExp(`<img[^>]*${marker}[^>]*>`).exec(html)?.[0] ?? "";

describe("the file page", () => {
  it("asks for a ladder variant, lists the ladder below the original in srcset, and carries the placeholder", async () => {
    const f = await seedFile(owner.id, { title: "Wide", ...big });
    const html = (await fetchRaw(`${SITE}/f/${f.id}`)).text;
    const img = srcsetOf(html, 'alt="Wide"');
    const base = `${env.IMAGE_URL}/${f.id}`;
    expect(img).toContain(`src="${base}?w=1024"`);
    for (const w of VARIANTS.ladder) expect(img).toContain(`${base}?w=${w} ${w}w`);
    expect(img).toContain(`${base} 4000w`);
    expect(img).toContain('sizes="');
    expect(img).toContain('width="4000" height="3000"');
    expect(img).toContain(`data-placeholder="${big.placeholder}"`);
    expect(img).toContain(`data-color="${big.dominantColor}"`);
    // Link previews: the 1600 px variant with its own size, its format pinned (test/pages/link-previews.test.ts).
    expect(html).toContain(`property="og:image" content="${base}?w=1600&amp;format=png"`);
    expect(html).toContain('property="og:image:width" content="1600"');
    expect(html).toContain('property="og:image:height" content="1200"');
  });

  it("a small image lists only the steps below it, then itself, and previews use the original", async () => {
    const f = await seedFile(owner.id, { title: "Small", width: 500, height: 400 });
    const html = (await fetchRaw(`${SITE}/f/${f.id}`)).text;
    const img = srcsetOf(html, 'alt="Small"');
    const base = `${env.IMAGE_URL}/${f.id}`;
    expect(img).toContain(`srcset="${base}?w=160 160w, ${base}?w=320 320w, ${base} 500w"`);
    expect(img).toContain(`src="${base}"`);
    expect(img).not.toContain("data-placeholder");
    expect(html).toContain(`property="og:image" content="${base}"`);
  });

  it("the page's script names the thumbhash library it paints with", async () => {
    const f = await seedFile(owner.id, { title: "Script" });
    const html = (await fetchRaw(`${SITE}/f/${f.id}`)).text;
    expect(html).toContain(`data-thumbhash="${ASSET_PATHS["thumbhash.js"]}"`);
  });
});

describe("grids", () => {
  it("the public album asks for the thumbnail family (160 and 320), never the original, and the lightbox for 1600", async () => {
    const a1 = await seedFile(owner.id, { title: "Grid one", ...big });
    const hidden = await seedFile(owner.id, { title: "Grid private", visibility: "private" });
    const album = await call("/albums", { token: owner.access, body: { title: "Grid", visibility: "public" } });
    await call(`/albums/${album.body.id}/files`, { token: owner.access, body: { fileIds: [a1.id, hidden.id] } });
    const html = (await fetchRaw(`${SITE}/a/${album.body.id}`)).text;
    const thumb = `${env.IMAGE_URL}/${a1.id}/thumb`;
    const img = srcsetOf(html, 'alt="Grid one"');
    expect(img).toContain(`src="${thumb}"`);
    expect(img).toContain(`srcset="${thumb}?w=160 160w, ${thumb} 320w"`);
    expect(img).toContain('sizes="(max-width: 480px) 45vw, 180px"');
    expect(img).toContain(`data-color="${big.dominantColor}"`);
    expect(html).toContain(`data-full="${env.IMAGE_URL}/${a1.id}?w=1600"`);
    expect(html).not.toContain(hidden.id);
    expect(html).toContain(`property="og:image" content="${env.IMAGE_URL}/${a1.id}?w=1600&amp;format=png"`);
  });
});

describe("oEmbed", () => {
  it("a photo's url is the variant that fits: 1600 by default, the step within maxwidth when given", async () => {
    const f = await seedFile(owner.id, { title: "Embed", ...big });
    const page = encodeURIComponent(`${env.SITE_URL}/f/${f.id}`);
    const plain = (await fetchRaw(`${SITE}/oembed?url=${page}`)).json;
    expect(plain).toMatchObject({ type: "photo", url: `${env.IMAGE_URL}/${f.id}?w=1600&format=png`, width: 1600, height: 1200 });
    const fitted = (await fetchRaw(`${SITE}/oembed?maxwidth=500&url=${page}`)).json;
    expect(fitted).toMatchObject({ url: `${env.IMAGE_URL}/${f.id}?w=320&format=png`, width: 320, height: 240 });
  });
});
