// GET /files/:id/similar: nearest first on the near-duplicate signals with a looser bound than `duplicates`, the
// owner's files only; the crops and rotations of a real photo through the real analysis job.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, verifiedUser, type TestUser } from "../support/api";
import { indexBands, pngLikeBytes, seedFile } from "../support/files";
import { photo } from "../analysis/fixtures";
import { seedFinalizedFile } from "../analysis/support";
import { analyzeFile } from "../../src/analysis/job";
import { loadNsfwModel } from "../../src/analysis/nsfw";
import { SEARCH } from "../../src/config";

let owner: TestUser;
let stranger: TestUser;
const similar = (id: string, token: string | undefined = owner.access) => call(`/files/${id}/similar`, { token });

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await verifiedUser();
  await loadNsfwModel();
}, 180_000);

describe("GET /files/:id/similar", () => {
  it("finds the crop and the rotation of a real photo, nearest first; not an unrelated photo nor a stranger's copy", async () => {
    const original = await seedFinalizedFile(owner.id, "ladybird.jpg", await photo("ladybird.jpg"));
    const cropped = await seedFinalizedFile(owner.id, "ladybird-crop8.jpg", await photo("variants/ladybird-crop8-tl.jpg"));
    const rotated = await seedFinalizedFile(owner.id, "ladybird-rot3.jpg", await photo("variants/ladybird-rot3.jpg"));
    const unrelated = await seedFinalizedFile(owner.id, "garden.jpg", await photo("garden.jpg"));
    const strangers = await seedFinalizedFile(stranger.id, "ladybird-rot3.jpg", await photo("variants/ladybird-rot3.jpg"));
    for (const f of [original, cropped, rotated, unrelated, strangers]) expect(await analyzeFile(env, f.id)).toMatchObject({ status: "done" });

    const res = await similar(original.id);
    expect(res.status).toBe(200);
    const found = res.body.files as { id: string; distance: number; url: string; title: string }[];
    expect(found.map((f) => f.id).sort()).toEqual([cropped.id, rotated.id].sort());
    expect(found[0].distance).toBeLessThanOrEqual(found[1].distance);
    for (const f of found) expect(f.distance).toBeLessThanOrEqual(SEARCH.similarEmbeddingDistance / 30);
    expect(found[0]).toMatchObject({ url: `${env.IMAGE_URL}/${found[0].id}` });
    expect((await similar(rotated.id)).body.files.map((f: { id: string }) => f.id)).toContain(original.id);
    expect((await similar(unrelated.id)).body.files).toEqual([]);
  }, 120_000);

  it("keeps phash neighbours beyond PHASH_DISTANCE up to its looser bound, nearest first", async () => {
    const u = await verifiedUser();
    const base = await seedFile(u.id, { phash: "ffff0000ffff0000", content: pngLikeBytes(3000, 61) });
    const near = await seedFile(u.id, { phash: "ffff0000ffff0001", content: pngLikeBytes(3000, 62) }); // 1 bit: a duplicate too
    const loose = await seedFile(u.id, { phash: "ffff0000ffff03ff", content: pngLikeBytes(3000, 63) }); // 10 bits: beyond duplicates (8), within 12
    const far = await seedFile(u.id, { phash: "ffff0000ffff3fff", content: pngLikeBytes(3000, 64) }); // 14 bits
    await indexBands(base, near, loose, far);
    const res = await similar(base.id, u.access);
    expect(res.body.files.map((f: { id: string }) => f.id)).toEqual([near.id, loose.id]);
    expect(res.body.files.map((f: { distance: number }) => f.distance)).toEqual([0.125, 1.25]);
    const dups = (await call(`/files/${base.id}`, { token: u.access })).body.duplicates.map((d: { fileId: string }) => d.fileId);
    expect(dups).toEqual([near.id]);
  });

  it("is the owner's alone: strangers get 404, anonymous 401, keys need read; gone files 410", async () => {
    const f = await seedFile(owner.id, { visibility: "public", phash: "0123456789abcdef" });
    expect((await similar(f.id, stranger.access)).status).toBe(404);
    expect((await similar(f.id, stranger.access)).body.details.code).toBe("file_not_found");
    expect((await call(`/files/${f.id}/similar`)).status).toBe(401);
    const upload = await createKey(owner, { permissions: ["upload"] });
    expect((await similar(f.id, upload.key)).status).toBe(403);
    const read = await createKey(owner, { permissions: ["read"] });
    expect((await similar(f.id, read.key)).status).toBe(200);
    expect((await similar("file_doesnotexist12345678", owner.access)).status).toBe(404);
    const gone = await seedFile(owner.id, { deletedAt: new Date() });
    expect((await similar(gone.id)).status).toBe(410);
    expect((await similar(f.id)).body).toEqual({ files: [] });
  });
});
