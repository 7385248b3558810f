// Metadata at upload time (extensions.md § 8, issue 37): every flow that creates a file takes its title,
// description, tags, visibility, album and expiry when the upload is made, with the `upload` permission alone; the
// file carries them from finalize on. Strangers' albums are 404, anonymous callers name no album, bad values are
// 400 before any byte is kept, and refused keys are 401.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, verifiedUser, type TestUser } from "../support/api";
import { uploadKeys } from "../support/key-set";
import { ownerDb } from "../support/shard-db";
import { finalize, makePng, putDirect, storage } from "./helpers";
import { FLOWS, fetchedUrls, type Flow, type Meta } from "./metadata-flows";

let owner: TestUser;
let stranger: TestUser;
/** The owner's keys: `upload` alone (no read, no manage), revoked, expired. */
let uploadOnly: string;
let revokedKey: string;
let expiredKey: string;
let album: string;
let strangersAlbums: string[];
let seed = 500;
/** A distinct small PNG each time. */
const png = () => makePng(9, 9, seed++);

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await verifiedUser();
  uploadOnly = (await createKey(owner, { permissions: ["upload"] })).key;
  ({ revoked: revokedKey, expired: expiredKey } = await uploadKeys(owner));
  album = (await call("/albums", { token: owner.access, body: { title: "Trip" } })).body.id;
  const theirs = async (visibility: string) => (await call("/albums", { token: stranger.access, body: { title: visibility, visibility } })).body.id;
  strangersAlbums = [await theirs("public"), await theirs("unlisted"), await theirs("private")];
});

/** The whole flow; fails the test on any refusal. */
async function upload(flow: Flow, caller: { token?: string }, meta: Meta): Promise<string> {
  const bytes = png();
  const started = await flow.start(caller, meta, bytes);
  expect(started.status, `${flow.name}: ${started.text}`).toBe(201);
  return flow.finish(caller, started, bytes);
}

const albumFiles = async (id: string) => (await call(`/albums/${id}`, { token: owner.access })).body.files.map((f: { id: string }) => f.id);
const uploadsOf = async (userId: string) => (await ownerDb.prepare("SELECT COUNT(*) AS n FROM uploads WHERE user_id = ?").bind(userId).first<{ n: number }>())!.n;

describe("an API key with `upload` alone sets the file's metadata in every flow", () => {
  it.each(FLOWS.map((f) => [f.name, f] as const))("%s: title, description, tags, visibility, expiry and album are the file's from finalize on", async (_name, flow) => {
    const meta = { title: `By ${flow.name}`, description: "line one\nline two", tags: ["sea", " Sun ", "sea"], visibility: "unlisted", albumId: album, expiresIn: 86_400 };
    const fileId = await upload(flow, { token: uploadOnly }, meta);
    const file = await call(`/files/${fileId}`, { token: owner.access });
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({ title: `By ${flow.name}`, description: "line one\nline two", tags: ["sea", "Sun"], visibility: "unlisted" });
    const expiresIn = (Date.parse(file.body.expiresAt) - Date.now()) / 1000;
    expect(expiresIn).toBeGreaterThan(86_000);
    expect(expiresIn).toBeLessThanOrEqual(86_400);
    expect(await albumFiles(album)).toContain(fileId);
  });

  it("presign: the file joins its album at finalize, not before; an album deleted in between is simply not joined", async () => {
    const [presign] = FLOWS;
    const bytes = png();
    const started = await presign.start({ token: uploadOnly }, { albumId: album, tags: ["later"] }, bytes);
    expect(started.status).toBe(201);
    const put = await putDirect(started.body.fileId, bytes, uploadOnly);
    expect(put.status).toBe(200);
    expect(await albumFiles(album)).not.toContain(started.body.fileId);
    expect((await finalize(started.body, put.headers.get("etag")!, uploadOnly)).status).toBe(200);
    expect(await albumFiles(album)).toContain(started.body.fileId);

    const gone = (await call("/albums", { token: owner.access, body: { title: "Short-lived" } })).body.id;
    const bytes2 = png();
    const second = await presign.start({ token: uploadOnly }, { albumId: gone }, bytes2);
    expect(second.status).toBe(201);
    expect((await call(`/albums/${gone}`, { method: "DELETE", token: owner.access })).status).toBe(200);
    const fileId = await presign.finish({ token: uploadOnly }, second, bytes2);
    expect((await call(`/files/${fileId}`, { token: owner.access })).status).toBe(200);
    const rows = await ownerDb.prepare("SELECT COUNT(*) AS n FROM album_files WHERE album_id = ?").bind(gone).first<{ n: number }>();
    expect(rows!.n).toBe(0);
  });
});

describe("strangers", () => {
  it.each(FLOWS.map((f) => [f.name, f] as const))("%s: another user's album (public, unlisted, private) or none at all is 404 album_not_found, and nothing is created", async (_name, flow) => {
    const before = { uploads: await uploadsOf(owner.id), quota: await storage(owner.id), fetched: fetchedUrls.length };
    for (const albumId of [...strangersAlbums, "alb_V1StGXR8_Z5jdHi6B-myT", "nonsense"]) {
      const res = await flow.start({ token: uploadOnly }, { title: "x", albumId }, png());
      expect(res.status, `${albumId}: ${res.text}`).toBe(404);
      expect(res.body).toMatchObject({ error: "Not Found", details: { code: "album_not_found" } });
    }
    expect(await uploadsOf(owner.id)).toBe(before.uploads);
    expect(await storage(owner.id)).toEqual(before.quota);
    expect(fetchedUrls.length).toBe(before.fetched);
  });

  it.each(FLOWS.map((f) => [f.name, f] as const))("%s: anonymous callers set everything but albumId; an album (even a public one) is 404", async (_name, flow) => {
    const refused = await flow.start({}, { albumId: strangersAlbums[0] }, png());
    expect(refused.status, refused.text).toBe(404);
    expect(refused.body.details.code).toBe("album_not_found");
    const fileId = await upload(flow, {}, { title: "Anon", description: "d", tags: ["a", "b"], visibility: "unlisted", expiresIn: 3600 });
    const file = await call(`/files/${fileId}`);
    expect(file.body).toMatchObject({ title: "Anon", description: "d", tags: ["a", "b"], visibility: "unlisted" });
    expect(file.body.expiresAt).not.toBeNull();
  });

  it.each(FLOWS.map((f) => [f.name, f] as const))("%s: revoked and expired keys are 401 with the contract's texts", async (_name, flow) => {
    for (const [key, error] of [
      [revokedKey, "API key has been revoked"],
      [expiredKey, "API key has expired"],
    ]) {
      const res = await flow.start({ token: key }, { title: "x", tags: ["t"], albumId: album }, png());
      expect(res.status).toBe(401);
      expect(res.body.error).toBe(error);
    }
  });
});

describe("bad values", () => {
  const BAD: [string, Meta][] = [
    ["tags: 31 of them", { tags: Array.from({ length: 31 }, (_, i) => `t${i}`) }],
    ["tags: one of 51 characters", { tags: ["ok", "x".repeat(51)] }],
    ["title: a control character", { title: "bell\u0007" }],
    ["title: 201 characters", { title: "t".repeat(201) }],
    ["description: 5001 characters", { description: "d".repeat(5001) }],
    ["visibility: unknown", { visibility: "secret" }],
    ["expiresIn: under a minute", { expiresIn: 10 }],
    ["albumId: 65 characters", { albumId: "a".repeat(65) }],
  ];

  it.each(FLOWS.map((f) => [f.name, f] as const))("%s: 400 validation_error naming the field, at creation, nothing kept or fetched", async (_name, flow) => {
    const before = { uploads: await uploadsOf(owner.id), quota: await storage(owner.id), fetched: fetchedUrls.length };
    for (const [what, meta] of BAD) {
      const res = await flow.start({ token: uploadOnly }, meta, png());
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expect(res.body.details.code, what).toBe("validation_error");
      // tus carries the fields in Upload-Metadata, capped at 4096 bytes (extensions.md § 1): a description longer than
      // that is refused by the cap, naming the header, before its own rule is read.
      const named = flow.name === "tus" && what.startsWith("description") ? "Upload-Metadata" : Object.keys(meta)[0];
      expect(res.body.details.fields.map((f: { path: string }) => f.path.split(".")[0]), what).toContain(named);
      expect(res.headers.get("location"), what).toBeNull();
    }
    expect(await uploadsOf(owner.id)).toBe(before.uploads);
    expect(await storage(owner.id)).toEqual(before.quota);
    expect(fetchedUrls.length).toBe(before.fetched);
  });
});
