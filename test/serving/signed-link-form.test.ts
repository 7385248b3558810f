// A signed link has one spelling (extensions.md § 3: any parameter changed or added is 403 invalid_signature): the
// API's `?<variant params>&exp=<exp>&sig=<sig>`, each once, exp without leading zeros, nothing else. Every other
// spelling is refused on the uncached path, the cached path and from the records alone, as serving/signed-links.ts
// (signedQuery) decides it before the file is looked up.
import { beforeAll, describe, expect, it } from "vitest";
import { call, verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { fixture } from "../analysis/fixtures";
import { expectEverywhere, refused } from "./signed-link-support";

let owner: TestUser;
beforeAll(async () => {
  owner = await verifiedUser();
});

const jpeg = () => seedFile(owner.id, { content: fixture("wood.jpg"), mime: "image/jpeg", filename: "wood.jpg", width: 400, height: 400, visibility: "private" });

async function signedUrl(fileId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call(`/files/${fileId}/signed-url`, { token: owner.access, body: { expiresIn: 3600, ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body.url;
}

describe("the one spelling of a signed link", () => {
  it("the link as the API writes it works, with every variant parameter it signs", async () => {
    const f = await jpeg();
    const plain = await signedUrl(f.id);
    expect(new URL(plain).search).toMatch(/^\?exp=[1-9]\d*&sig=[A-Za-z0-9_-]{43}$/);
    await expectEverywhere(plain, (v, path) => expect(v.status, path).toBe(200));
    const variant = await signedUrl(f.id, { w: 160, h: 120, fit: "cover", format: "webp" });
    expect(new URL(variant).search).toMatch(/^\?w=160&h=120&fit=cover&format=webp&exp=\d+&sig=[A-Za-z0-9_-]{43}$/);
    await expectEverywhere(variant, (v, path) => expect(v.status, path).toBe(200));
  });

  it("refuses leading zeros, repeats, added parameters and any other order or spelling: 403 invalid_signature", async () => {
    const f = await jpeg();
    const url = await signedUrl(f.id, { w: 160, format: "webp" });
    const { search } = new URL(url);
    const base = url.slice(0, url.length - search.length);
    const exp = new URL(url).searchParams.get("exp")!;
    const sig = new URL(url).searchParams.get("sig")!;
    const other = new URL(await signedUrl(f.id, { w: 160, format: "webp", expiresIn: 7200 })).searchParams.get("sig")!;
    const spellings = [
      `${base}?w=160&format=webp&exp=0${exp}&sig=${sig}`, // a leading zero: the same number, another spelling
      `${base}?w=160&format=webp&exp=00${exp}&sig=${sig}`,
      `${base}?w=160&format=webp&exp=${exp}&exp=${Number(exp) + 999}&sig=${sig}`, // exp repeated
      `${base}?w=160&format=webp&exp=${exp}&sig=${sig}&sig=${other}`, // sig repeated, with another
      `${base}?w=160&format=webp&exp=${exp}&sig=${sig}&sig=${sig}`, // sig repeated, the same
      `${base}?w=160&w=160&format=webp&exp=${exp}&sig=${sig}`, // a variant parameter repeated
      `${url}&foo=1`, // an added parameter, after or before
      `${base}?foo=1&w=160&format=webp&exp=${exp}&sig=${sig}`,
      `${url}&`, // an empty one
      `${base}?w=160&format=webp&sig=${sig}&exp=${exp}`, // another order
      `${base}?format=webp&w=160&exp=${exp}&sig=${sig}`,
      `${base}?w=160&format=webp&exp=%3${exp.slice(0, 1)}${exp.slice(1)}&sig=${sig}`, // a percent-encoded digit
      `${base}?w=%3160&format=webp&exp=${exp}&sig=${sig}`,
    ];
    for (const bad of spellings) await expectEverywhere(bad, (v, path) => refused(403, "invalid_signature")(v, `${bad} ${path}`));
    // The link itself still works after all that.
    await expectEverywhere(url, (v, path) => expect(v.status, path).toBe(200));
  });
});
