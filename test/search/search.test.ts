// GET /search: ranking, prefixes, accents, phrases, typed operators, snippets, albums, and who may search what.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, createKey, isErrorBody, signup, verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { shardDb } from "../../src/platform/data/db";
import { shardOfUser } from "../support/shard-db";

let owner: TestUser;
let stranger: TestUser;
let keys: { read: string; upload: string; revoked: string; expired: string };
const ids: Record<string, string> = {};

const search = (q: string, token = owner.access, extra = "") => call(`/search?q=${encodeURIComponent(q)}${extra}`, { token });
const fileIds = (body: any) => body.files.map((f: any) => f.id);

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await verifiedUser();
  const revoked = await createKey(owner, { permissions: ["read"] });
  await call(`/keys/${revoked.id}`, { method: "DELETE", token: owner.access });
  const expired = await createKey(owner, { permissions: ["read"] });
  await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, expired.id).run();
  keys = { read: (await createKey(owner, { permissions: ["read"] })).key, upload: (await createKey(owner, { permissions: ["upload"] })).key, revoked: revoked.key, expired: expired.key };
  ids.titled = (await seedFile(owner.id, { title: "Harbour at dawn", description: "boats" })).id;
  ids.described = (await seedFile(owner.id, { title: "IMG 1", description: "the old harbour wall in the fog" })).id;
  ids.cafe = (await seedFile(owner.id, { title: "Café de Flore", tags: ["paris"] })).id;
  ids.phrase = (await seedFile(owner.id, { title: "red fox in snow" })).id;
  ids.reversed = (await seedFile(owner.id, { title: "snow on the red roof fox" })).id;
  ids.alt = (await seedFile(owner.id, { title: "untitled", alt: "A lighthouse against a stormy sky" })).id;
  ids.file = (await seedFile(owner.id, { title: "x", filename: "wedding_2024-06.jpg" })).id;
  ids.restricted = (await seedFile(owner.id, { title: "restricted zebra", ageRestricted: true })).id;
  ids.deleted = (await seedFile(owner.id, { title: "deleted zebra", deletedAt: new Date() })).id;
  ids.strangers = (await seedFile(stranger.id, { title: "Harbour zebra of a stranger", visibility: "public" })).id;
});

describe("GET /search: matching", () => {
  it("ranks a title match above a description match", async () => {
    const res = await search("harbour");
    expect(res.status).toBe(200);
    expect(fileIds(res.body)).toEqual([ids.titled, ids.described]);
  });

  it("matches the last word as a prefix (type-ahead), and only the last", async () => {
    expect(fileIds((await search("harb")).body)).toEqual([ids.titled, ids.described]);
    expect(fileIds((await search("lig")).body)).toEqual([ids.alt]);
    expect(fileIds((await search("harbour daw")).body)).toEqual([ids.titled]);
    expect(fileIds((await search("harb dawn")).body)).toEqual([]);
  });

  it("ignores case and accents both ways", async () => {
    expect(fileIds((await search("CAFE")).body)).toEqual([ids.cafe]);
    expect(fileIds((await search("café flore")).body)).toEqual([ids.cafe]);
    expect(fileIds((await search("PARIS")).body)).toEqual([ids.cafe]);
  });

  it("matches quoted phrases as phrases, bare words anywhere", async () => {
    expect(fileIds((await search('"red fox"')).body)).toEqual([ids.phrase]);
    expect(new Set(fileIds((await search("red fox")).body))).toEqual(new Set([ids.phrase, ids.reversed]));
  });

  it("matches alt text, filenames and every word", async () => {
    expect(fileIds((await search("stormy lighthouse")).body)).toEqual([ids.alt]);
    expect(fileIds((await search("wedding 2024")).body)).toEqual([ids.file]);
    expect(fileIds((await search("harbour nothing")).body)).toEqual([]);
  });

  it("includes the caller's own age-restricted files, marked; never deleted ones nor a stranger's", async () => {
    const res = await search("zebra");
    expect(fileIds(res.body)).toEqual([ids.restricted]);
    expect(res.body.files[0].ageRestricted).toBe(true);
  });

  it("answers a snippet with the matches marked, plain text", async () => {
    const res = await search("harbour");
    expect(res.body.files[0].snippet).toBe("\u0002Harbour\u0003 at dawn");
    expect(res.body.files[1].snippet).toBe("the old \u0002harbour\u0003 wall in the fog");
    expect((await search("café")).body.files[0].snippet).toBe("\u0002Café\u0003 de Flore");
    expect(res.body.files[0]).toMatchObject({ id: ids.titled, title: "Harbour at dawn", url: `${env.IMAGE_URL}/${ids.titled}` });
  });

  it.each([
    ['"unclosed'],
    ["harbour OR zebra"],
    ["NOT harbour"],
    ["harbour AND"],
    ["title:harbour"],
    ["harb*"],
    ["^harbour"],
    ["NEAR(harbour dawn)"],
    ["(harbour"],
    ["'; DROP TABLE files; --"],
    ['"" "'],
    ["-harbour"],
    ["{title body}: x"],
    ["\u0000\u0002\u0003"],
    ["🙂"],
  ])("never lets typed syntax through: %j", async (q) => {
    const res = await search(q);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.files)).toBe(true);
  });

  it("reads typed operators as words", async () => {
    expect(fileIds((await search("harbour OR zebra")).body)).toEqual([]);
    expect(fileIds((await search("title:harbour")).body)).toEqual([]); // "title" is a word the file lacks
    expect(fileIds((await search("dawn:harbour")).body)).toEqual([ids.titled]);
  });
});

describe("GET /search: albums, types, pages", () => {
  let album: string;
  beforeAll(async () => {
    const res = await call("/albums", { token: owner.access, body: { title: "Summer in Lisbon", description: "tiles and trams" } });
    expect(res.status).toBe(201);
    album = res.body.id;
    expect((await call(`/albums/${album}/files`, { token: owner.access, body: { fileIds: [ids.file] } })).status).toBe(200);
  });

  it("finds albums by title and description, and files by the titles of their albums", async () => {
    const res = await search("lisbon");
    expect(res.body.albums).toEqual([{ id: album, title: "Summer in Lisbon", fileCount: 1, snippet: "Summer in \u0002Lisbon\u0003" }]);
    expect(fileIds(res.body)).toEqual([ids.file]);
    expect(res.body.files[0].snippet).toBe("Summer in \u0002Lisbon\u0003");
    expect((await search("trams")).body.albums.map((a: any) => a.id)).toEqual([album]);
  });

  it("type narrows the answer; pagination counts both lists", async () => {
    expect((await search("lisbon", owner.access, "&type=files")).body.albums).toEqual([]);
    const albumsOnly = await search("lisbon", owner.access, "&type=albums");
    expect(albumsOnly.body.files).toEqual([]);
    expect(albumsOnly.body.pagination).toEqual({ total: 1, limit: 20, offset: 0, hasMore: false });
    const all = await search("lisbon");
    expect(all.body.pagination.total).toBe(2);
    const first = await search("harbour", owner.access, "&limit=1");
    expect(first.body.pagination).toMatchObject({ total: 2, limit: 1, hasMore: true });
    expect(fileIds((await search("harbour", owner.access, "&limit=1&offset=1")).body)).toEqual([ids.described]);
  });

  it("answers 400 validation_error for bad input", async () => {
    for (const query of ["", "?q=", `?q=${"a".repeat(201)}`, "?q=a&type=photos", "?q=a&limit=0", "?q=a&limit=51", "?q=a&offset=-1"]) {
      const res = await call(`/search${query}`, { token: owner.access });
      expect(res.status, query).toBe(400);
      expect(isErrorBody(res.body)).toBe(true);
      expect(res.body.details.code).toBe("validation_error");
    }
  });
});

describe("GET /search: who may search", () => {
  it("a stranger finds only their own files, never the owner's", async () => {
    const res = await search("harbour", stranger.access);
    expect(fileIds(res.body)).toEqual([ids.strangers]);
    expect((await search("lisbon", stranger.access)).body).toMatchObject({ files: [], albums: [] });
  });

  it("anonymous callers get 401; API keys need read; revoked and expired keys get 401", async () => {
    expect((await call("/search?q=harbour")).status).toBe(401);
    const read = await search("harbour", keys.read);
    expect(read.status).toBe(200);
    expect(fileIds(read.body)).toEqual([ids.titled, ids.described]);
    const upload = await search("harbour", keys.upload);
    expect(upload.status).toBe(403);
    expect(upload.body.details).toMatchObject({ code: "missing_permission", permission: "read" });
    expect((await search("harbour", keys.revoked)).status).toBe(401);
    expect((await search("harbour", keys.expired)).status).toBe(401);
  });

  it("an owner key collision in the index never shows another owner's rows", async () => {
    // Index rows written under the owner's key for a stranger's file: the join on files.user_id still drops it.
    const db = shardDb(env, await shardOfUser(stranger.id));
    const key = (await import("../../src/files/text-match")).searchKey(owner.id);
    await db.$client.prepare("INSERT INTO files_fts (rowid, head, body) SELECT rowid, ?, '' FROM files WHERE id = ?").bind(`${key}harbour`, ids.strangers).run();
    if ((await shardOfUser(stranger.id)) === (await shardOfUser(owner.id))) expect(fileIds((await search("harbour")).body)).toEqual([ids.titled, ids.described]);
  });
});
