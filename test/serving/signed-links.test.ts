// What a signed link grants (extensions.md § 3, src/serving/signed-links.ts): the bytes or the variant it names,
// whatever the visibility, until exp; never a deleted or moderation-hidden file; nothing once a parameter is
// changed or the links were revoked. Every rule on the uncached path (records off: D1 on every view) and on the
// cached path (records on, then D1 and the Durable Objects unreachable: decided from the records alone).
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { accessChanged } from "../../src/serving/access-changed";
import { signLink } from "../../src/serving/signed-links";
import { shardDb } from "../../src/platform/data/db";
import { shardOfIdIn } from "../../src/platform/data/shards";
import { files, type FileRow } from "../../src/db/schema";
import { eq } from "drizzle-orm";
import { call, verifiedUser, type TestUser } from "../support/api";
import { fileRow, IMAGE, pngLikeBytes, seedFile } from "../support/files";
import { expectEverywhere, refused, view, withParam } from "./signed-link-support";
import { fixture } from "../analysis/fixtures";

let owner: TestUser;
beforeAll(async () => {
  owner = await verifiedUser();
});

async function signedUrl(f: FileRow, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call(`/files/${f.id}/signed-url`, { token: owner.access, body: { expiresIn: 3600, ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body.url;
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** The three other spellings of a 43-character base64url value whose last character differs only in its spare bits. */
const sameBytesOtherSpellings = (sig: string) => {
  const last = B64URL.indexOf(sig.at(-1)!);
  return [0, 1, 2, 3].map((k) => B64URL[(last & ~3) | k]).filter((c) => c !== sig.at(-1)).map((c) => sig.slice(0, -1) + c);
};

const jpeg = (extra: Parameters<typeof seedFile>[1] = {}) =>
  seedFile(owner.id, { content: fixture("wood.jpg"), mime: "image/jpeg", filename: "wood.jpg", width: 400, height: 400, visibility: "private", ...extra });

describe("a signed link to a private file", () => {
  it("serves the bytes to anyone, Cache-Control private, on both paths; the plain link stays 404", async () => {
    const content = pngLikeBytes(40_000, 3);
    const f = await seedFile(owner.id, { visibility: "private", content });
    const url = await signedUrl(f);
    await expectEverywhere(url, (v, path) => {
      expect(v.status, path).toBe(200);
      expect(v.bytes, path).toEqual(content);
      expect(v.headers.get("cache-control"), path).toBe("private, no-cache");
    });
    await expectEverywhere(`${IMAGE}/${f.id}`, refused(404, "file_not_found"));
  });

  it("a public or unlisted file's signed answer is private too: never kept by a shared cache under the link", async () => {
    for (const visibility of ["public", "unlisted"] as const) {
      const f = await seedFile(owner.id, { visibility });
      await expectEverywhere(await signedUrl(f), (v, path) => {
        expect(v.status, path).toBe(200);
        expect(v.headers.get("cache-control"), path).toBe("private, no-cache");
      });
      expect((await view(`${IMAGE}/${f.id}`)).headers.get("cache-control")).toMatch(/^public/);
    }
  });

  it("304 and Range work as on any byte link", async () => {
    const content = pngLikeBytes(10_000, 5);
    const f = await seedFile(owner.id, { visibility: "private", content });
    const url = await signedUrl(f);
    await expectEverywhere(url, (v, path) => {
      expect(v.status, path).toBe(304);
      expect(v.headers.get("cache-control"), path).toBe("private, no-cache");
    }, { headers: { "if-none-match": `"${f.storeEtag}"` } });
    await expectEverywhere(url, (v, path) => {
      expect(v.status, path).toBe(206);
      expect(v.headers.get("content-range"), path).toBe(`bytes 10-19/${content.byteLength}`);
      expect(v.bytes, path).toEqual(content.slice(10, 20));
    }, { headers: { range: "bytes=10-19" } });
    await expectEverywhere(url, (v, path) => {
      expect(v.status, path).toBe(200);
      expect(v.headers.get("content-length"), path).toBe(String(content.byteLength));
    }, { method: "HEAD" });
  });

  it("a variant link serves the variant it names", async () => {
    const f = await jpeg();
    const url = await signedUrl(f, { w: 160, format: "webp" });
    expect(new URL(url).searchParams.get("w")).toBe("160");
    await expectEverywhere(url, (v, path) => {
      expect(v.status, path).toBe(200);
      expect(v.headers.get("content-type"), path).toBe("image/webp");
      expect(v.headers.get("x-variant"), path).toBe("w160.webp");
      expect(v.headers.get("cache-control"), path).toBe("private, no-cache");
    });
    const etag = (await view(url)).headers.get("etag")!;
    await expectEverywhere(url, (v, path) => expect(v.status, path).toBe(304), { headers: { "if-none-match": etag } });
    await expectEverywhere(`${IMAGE}/${f.id}?w=160&format=webp`, refused(404, "file_not_found"));
  });
});

describe("what a signed link never grants", () => {
  it("a deleted file: 410 at once", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const url = await signedUrl(f);
    expect((await view(url, { records: true })).status).toBe(200); // the records are filled
    expect((await call(`/files/${f.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    await expectEverywhere(url, refused(410, "file_deleted"));
  });

  it("a moderation-hidden or quarantined file: 410 file_unavailable, as the plain link answers its owner", async () => {
    for (const column of ["hiddenAt", "quarantinedAt"] as const) {
      const f = await jpeg();
      const url = await signedUrl(f, { w: 160 });
      expect((await view(url, { records: true })).status).toBe(200);
      await shardDb(env, shardOfIdIn(env, "file", f.id)).update(files).set({ [column]: new Date() }).where(eq(files.id, f.id));
      await accessChanged(env, { fileIds: [f.id] }); // what the hide does
      await expectEverywhere(url, refused(410, "file_unavailable"));
      const owners = await view(`${IMAGE}/${f.id}`, { headers: { authorization: `Bearer ${owner.access}` } });
      expect(owners.status).toBe(410);
    }
  });

  it("past exp: 403 signed_url_expired, decided before the file is looked up", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    await signedUrl(f); // gives the file its salt
    const salt = (await fileRow(f.id))!.signingSalt!;
    const exp = Math.floor(Date.now() / 1000) - 1;
    const sig = await signLink(env.SIGNED_URL_SECRET, salt, f.id, "original", new URLSearchParams(), exp);
    await expectEverywhere(`${IMAGE}/${f.id}?exp=${exp}&sig=${sig}`, refused(403, "signed_url_expired"));
  });

  it("both halves of the key count: another secret, or another file's salt, signs nothing", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const other = await seedFile(owner.id, { visibility: "private" });
    await signedUrl(f);
    await signedUrl(other);
    const salt = (await fileRow(f.id))!.signingSalt!;
    const otherSalt = (await fileRow(other.id))!.signingSalt!;
    expect(otherSalt).not.toBe(salt);
    const exp = Math.floor(Date.now() / 1000) + 600;
    const none = new URLSearchParams();
    const right = await signLink(env.SIGNED_URL_SECRET, salt, f.id, "original", none, exp);
    await expectEverywhere(`${IMAGE}/${f.id}?exp=${exp}&sig=${right}`, (v, path) => expect(v.status, path).toBe(200));
    for (const sig of [
      await signLink("another-secret-of-at-least-32-characters-0123", salt, f.id, "original", none, exp),
      await signLink(env.SIGNED_URL_SECRET, otherSalt, f.id, "original", none, exp),
    ]) {
      await expectEverywhere(`${IMAGE}/${f.id}?exp=${exp}&sig=${sig}`, refused(403, "invalid_signature"));
    }
  });

  it("any parameter changed, added or dropped, a wrong or missing signature: 403 invalid_signature", async () => {
    const f = await jpeg();
    const other = await jpeg();
    const url = await signedUrl(f, { w: 160, format: "webp" });
    const sig = new URL(url).searchParams.get("sig")!;
    const exp = Number(new URL(url).searchParams.get("exp"));
    const tampered = [
      withParam(url, "w", "320"),
      withParam(url, "w", null),
      withParam(url, "format", "png"),
      withParam(url, "q", "50"),
      withParam(url, "h", "160"),
      withParam(url, "exp", String(exp + 60)),
      withParam(url, "sig", (sig.startsWith("A") ? "B" : "A") + sig.slice(1)),
      // The last character's two spare bits: the same bytes, spelt otherwise, are not the signature either.
      ...sameBytesOtherSpellings(sig).map((s) => withParam(url, "sig", s)),
      withParam(url, "sig", "not-a-signature"),
      withParam(url, "sig", null),
      withParam(url, "exp", null),
      url.replace(f.id, other.id), // another file of the same owner
      `${IMAGE}/${f.id}/thumb${new URL(url).search}`, // the thumbnail is not the original
    ];
    for (const bad of tampered) await expectEverywhere(bad, (v, path) => refused(403, "invalid_signature")(v, `${bad} ${path}`));
    // An unknown id says no more than a wrong signature (it has no records to decide from offline).
    const unknown = url.replace(f.id, "file_doesnotexist000000000");
    for (const records of [false, true]) refused(403, "invalid_signature")(await view(unknown, { records }), `unknown, records ${records}`);
    // Nor is any other parameter taken (test/serving/signed-link-form.test.ts: one spelling only).
    await expectEverywhere(withParam(url, "v", "2"), refused(403, "invalid_signature"));
  });

  it("a revoke reaches the very next request on both paths; a link made afterwards works", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const old = await signedUrl(f);
    await expectEverywhere(old, (v, path) => expect(v.status, path).toBe(200));
    expect((await call(`/files/${f.id}/signed-url/revoke`, { method: "POST", token: owner.access })).status).toBe(200);
    await expectEverywhere(old, refused(403, "invalid_signature"));
    await expectEverywhere(await signedUrl(f), (v, path) => expect(v.status, path).toBe(200));
  });

  it("the first link of a file whose records were cached without a salt works at once", async () => {
    const f = await seedFile(owner.id);
    expect((await view(`${IMAGE}/${f.id}`, { records: true })).status).toBe(200); // records and bytes cached, no salt yet
    await expectEverywhere(await signedUrl(f), (v, path) => expect(v.status, path).toBe(200));
  });
});
