// Owner links (serving/signed-links.ts): the pages' signed links to the signed-in owner's own images. They serve
// what the owner may see, to whoever holds them, `Cache-Control: private`; the plain link stays 404 for a private
// file, also after an owner link filled the edge records and byte entries; a link minted for anyone but the
// file's owner, changed, expired or of a gone file is refused. Every rule on the uncached path, the cached path
// and from the records alone (no D1).
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { OWNER_SIG, ownerLinkExp, signLink, signOwnerLink } from "../../src/serving/signed-links";
import type { Variant } from "../../src/serving/edge-cache";
import { accessChanged } from "../../src/serving/access-changed";
import { shardDb } from "../../src/platform/data/db";
import { shardOfIdIn } from "../../src/platform/data/shards";
import { files, type FileRow } from "../../src/db/schema";
import { SIGNED_LINKS } from "../../src/config";
import { call, verifiedUser, type TestUser } from "../support/api";
import { IMAGE, pngLikeBytes, seedFile } from "../support/files";
import { everyPath, refusedWith, viewOn } from "../support/byte-paths";
import { fixture } from "../analysis/fixtures";

let owner: TestUser;
let stranger: TestUser;
beforeAll(async () => {
  [owner, stranger] = await Promise.all([verifiedUser(), verifiedUser()]);
});

/** An owner link as the pages mint it: `userId`'s view of the file's `variant` with `params`. */
async function ownerLink(userId: string, fileId: string, variant: Variant = "original", params: Record<string, string> = {}, exp = ownerLinkExp(Date.now())) {
  const q = new URLSearchParams(params);
  const sig = await signOwnerLink(env.SIGNED_URL_SECRET, userId, fileId, variant, q, exp);
  q.set("exp", String(exp));
  q.set(OWNER_SIG, sig);
  return `${IMAGE}/${fileId}${variant === "thumb" ? "/thumb" : ""}?${q}`;
}

const served = (content?: Uint8Array) => (v: { status: number; bytes: Uint8Array; headers: Headers }, path: string) => {
  expect(v.status, path).toBe(200);
  if (content) expect(v.bytes, path).toEqual(content);
  expect(v.headers.get("cache-control"), path).toBe("private, no-cache");
};

const jpeg = (extra: Parameters<typeof seedFile>[1] = {}) =>
  seedFile(owner.id, { content: fixture("wood.jpg"), mime: "image/jpeg", filename: "wood.jpg", width: 400, height: 400, thumb: fixture("wood.jpg"), ...extra });

describe("an owner link", () => {
  it("serves the owner's private, unlisted and age-restricted files, private, on every path; the plain link of the private one stays 404", async () => {
    for (const extra of [{ visibility: "private" }, { visibility: "unlisted" }, { visibility: "public", ageRestricted: true }] as const) {
      const content = pngLikeBytes(20_000, 7);
      const f = await seedFile(owner.id, { content, ...extra });
      await everyPath(await ownerLink(owner.id, f.id), served(content));
    }
    const priv = await seedFile(owner.id, { visibility: "private" });
    await everyPath(await ownerLink(owner.id, priv.id), served());
    // The owner link's answer went into the edge records and byte entries: the plain link still decides for itself.
    await everyPath(`${IMAGE}/${priv.id}`, refusedWith(404, "file_not_found"));
  });

  it("the thumbnail family the grids name (/thumb and ?w=160) is served, private, and 304s", async () => {
    const f = await jpeg({ visibility: "private" });
    for (const url of [await ownerLink(owner.id, f.id, "thumb"), await ownerLink(owner.id, f.id, "thumb", { w: "160" })]) {
      await everyPath(url, served());
      const etag = (await viewOn(url)).headers.get("etag")!;
      await everyPath(url, (v, path) => expect(v.status, path).toBe(304), { headers: { "if-none-match": etag } });
    }
    await everyPath(`${IMAGE}/${f.id}/thumb?w=160`, refusedWith(404, "file_not_found"));
  });

  it("minted for anybody but the file's owner, for an anonymous upload, or with a share link's signature: 403", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    const pub = await seedFile(owner.id, { visibility: "public" });
    const anonymous = await seedFile(null, { visibility: "public" });
    await everyPath(await ownerLink(stranger.id, f.id), refusedWith(403, "invalid_signature"));
    // Even for a public file whose plain link anyone may open: the signature is what is refused.
    await everyPath(await ownerLink(stranger.id, pub.id), refusedWith(403, "invalid_signature"));
    for (const records of [false, true]) expect((await viewOn(await ownerLink(stranger.id, anonymous.id), { records })).code).toBe("invalid_signature");
    // A share link's signature (the file's salt) in the owner link's place, and the other way round.
    expect((await call(`/files/${f.id}/signed-url`, { token: owner.access, body: { expiresIn: 3600 } })).status).toBe(200);
    const [row] = await shardDb(env, shardOfIdIn(env, "file", f.id)).select().from(files).where(eq(files.id, f.id));
    const exp = ownerLinkExp(Date.now());
    const shareSig = await signLink(env.SIGNED_URL_SECRET, row.signingSalt!, f.id, "original", new URLSearchParams(), exp);
    await everyPath(`${IMAGE}/${f.id}?exp=${exp}&${OWNER_SIG}=${shareSig}`, refusedWith(403, "invalid_signature"));
    const ownerSig = new URL(await ownerLink(owner.id, f.id)).searchParams.get(OWNER_SIG)!;
    await everyPath(`${IMAGE}/${f.id}?exp=${exp}&sig=${ownerSig}`, refusedWith(403, "invalid_signature"));
  });

  it("changed, doubled, expired: refused", async () => {
    const f = await jpeg({ visibility: "private" });
    const url = await ownerLink(owner.id, f.id, "original", { w: "160" });
    const u = new URL(url);
    const set = (name: string, value: string) => {
      const copy = new URL(url);
      copy.searchParams.set(name, value);
      return copy.toString();
    };
    for (const bad of [set("w", "320"), set("format", "png"), set("exp", String(Number(u.searchParams.get("exp")) + 3600)), set("sig", u.searchParams.get(OWNER_SIG)!), url.replace("/" + f.id, `/${f.id}/thumb`)]) {
      await everyPath(bad, refusedWith(403, "invalid_signature"));
    }
    const past = Math.floor(Date.now() / 1000) - 1;
    await everyPath(await ownerLink(owner.id, f.id, "original", {}, past), refusedWith(403, "signed_url_expired"));
  });

  it("a deleted or moderation-hidden file: 410, as its owner's Bearer view answers", async () => {
    const deleted = await seedFile(owner.id, { visibility: "private" });
    const url = await ownerLink(owner.id, deleted.id);
    expect((await viewOn(url, { records: true })).status).toBe(200); // records and entries filled
    expect((await call(`/files/${deleted.id}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    await everyPath(url, refusedWith(410, "file_deleted"));

    const hidden: FileRow = await seedFile(owner.id, { visibility: "private" });
    const hiddenUrl = await ownerLink(owner.id, hidden.id);
    expect((await viewOn(hiddenUrl, { records: true })).status).toBe(200);
    await shardDb(env, shardOfIdIn(env, "file", hidden.id)).update(files).set({ hiddenAt: new Date() }).where(eq(files.id, hidden.id));
    await accessChanged(env, { fileIds: [hidden.id] });
    await everyPath(hiddenUrl, refusedWith(410, "file_unavailable"));
  });

  it("lives one to two buckets, the same URL all bucket long", () => {
    const bucket = SIGNED_LINKS.ownerBucketSeconds;
    const start = 1_800_000_000 - (1_800_000_000 % bucket);
    for (const at of [start, start + 1, start + bucket - 1]) {
      const exp = ownerLinkExp(at * 1000);
      expect(exp).toBe(start + 2 * bucket);
      expect(exp - at).toBeGreaterThan(bucket);
      expect(exp - at).toBeLessThanOrEqual(2 * bucket);
    }
  });
});
