// The owner's state carried by the edge records of an owner's first files (src/serving/owner-state.ts): a view
// of one decides from one cache lookup, and every change of the owner's state forgets those records at once.
// access-records.test.ts runs every rule and every invalidation through them (seedFile numbers files as an
// upload does); this file pins the numbering, the single lookup, the bound and the checks after a write.
import { decodeRecord } from "../../src/platform/edge/edge-records";
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { edgeCacheKey, fileAccessKey } from "../../src/serving/edge-cache";
import { ownerStates } from "../../src/serving/records";
import { fillByteEntry, fillFileRecords } from "../../src/serving/records";
import { loadFile } from "../../src/serving/access";
import { shardDb } from "../../src/platform/data/db";
import { shardOfIdIn } from "../../src/platform/data/shards";
import { SERVING } from "../../src/config";
import type { FileRow } from "../../src/db/schema";
import { BASE, call, verifiedUser, type TestUser } from "../support/api";
import { IMAGE, pngLikeBytes, seedFile } from "../support/files";
import { userWithRole } from "../support/moderation";
import { expectCached, view } from "../support/records";
import { fileRow, presign } from "../uploads/helpers";
import { setOwnerBan } from "../support/owners";

const cache = () => (caches as unknown as { default: Cache }).default;
const short = (f: FileRow) => `${IMAGE}/${f.id}`;
const apiRead = (f: FileRow) => `${BASE}/files/${f.id}`;
const recordOf = async (key: string) => {
  const hit = await cache().match(key);
  return hit ? decodeRecord<{ owner?: { goneAt: Date | null } }>(await hit.text()) : undefined;
};
const entryOwner = async (f: FileRow, variant: "original" | "thumb" = "original") => {
  const entry = await cache().match(edgeCacheKey(env, f.id, variant));
  await entry?.body?.cancel();
  const header = entry?.headers.get("x-edge-record");
  return header ? decodeRecord<{ owner?: unknown }>(decodeURIComponent(header))?.owner : undefined;
};
const hasEntry = async (f: FileRow) => {
  const entry = await cache().match(edgeCacheKey(env, f.id, "original"));
  await entry?.body?.cancel();
  return entry !== undefined;
};
const setBan = (admin: TestUser, user: TestUser, banned: boolean) => call(`/admin/users/${user.id}`, { method: "PATCH", token: admin.access, body: { banned } });

let admin: TestUser;
beforeAll(async () => {
  admin = await userWithRole("admin");
});

describe("files are numbered per owner as they are created", () => {
  it("1, 2, 3 for an owner's uploads, none for anonymous ones", async () => {
    const user = await verifiedUser();
    const ordinals: (number | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const p = await presign({ token: user.access, bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, i]) });
      expect(p.status).toBe(201);
      ordinals.push((await fileRow(p.body.fileId))!.owner_ordinal);
    }
    expect(ordinals).toEqual([1, 2, 3]);
    const anonymous = await presign();
    expect((await fileRow(anonymous.body.fileId))!.owner_ordinal).toBeNull();
  });
});

describe("a carried owner state decides with one lookup", () => {
  it("byte links and the API read answer without the owner's record; a file past the bound still looks it up", async () => {
    const user = await verifiedUser();
    const first = await seedFile(user.id, { thumb: pngLikeBytes(600, 2) });
    expect(first.ownerOrdinal).toBe(1);
    await view(short(first));
    await view(`${short(first)}/thumb`);
    await view(apiRead(first));
    expect((await recordOf(fileAccessKey(env, first.id)))?.owner).toEqual({ goneAt: null });
    expect(await entryOwner(first)).toEqual({ goneAt: null });
    expect(await entryOwner(first, "thumb")).toEqual({ goneAt: null });

    // The owner's record gone: neither view looks for it (a lookup that misses would store it again).
    await cache().delete(ownerStates.key(env, user.id));
    expect((await view(short(first), {}, true)).status).toBe(200); // the entry alone, D1 unreachable
    expect((await view(`${short(first)}/thumb`, {}, true)).status).toBe(200);
    expect((await view(apiRead(first))).status).toBe(200);
    expect(await cache().match(ownerStates.key(env, user.id))).toBeUndefined();

    const later = await seedFile(user.id, { ownerOrdinal: SERVING.ownerStateCarriedFiles + 1 });
    await view(apiRead(later));
    expect((await recordOf(fileAccessKey(env, later.id)))?.owner).toBeUndefined();
    await view(short(later));
    expect(await entryOwner(later)).toBeUndefined();
    expect(await hasEntry(later)).toBe(true); // an entry, without the owner's state
    // A hit on its record looks the owner's record up: missing, it is read from D1 and stored again.
    await cache().delete(ownerStates.key(env, user.id));
    expect((await view(apiRead(later))).status).toBe(200);
    expect(await cache().match(ownerStates.key(env, user.id))).toBeDefined();
  });
});

describe("a change of the owner's state reaches the very next view", () => {
  it("a ban forgets the carried records and entries; the files past the bound go by the owner's record; unban likewise", async () => {
    const user = await verifiedUser();
    const first = await seedFile(user.id);
    const later = await seedFile(user.id, { ownerOrdinal: SERVING.ownerStateCarriedFiles + 1 });
    for (const f of [first, later]) {
      await expectCached(short(f), 200);
      await expectCached(apiRead(f), 200);
    }
    expect((await setBan(admin, user, true)).status).toBe(200);
    expect(await cache().match(fileAccessKey(env, first.id))).toBeUndefined();
    expect(await hasEntry(first)).toBe(false);
    for (const f of [first, later]) {
      await expectCached(short(f), 410);
      await expectCached(apiRead(f), 410);
    }
    expect((await recordOf(fileAccessKey(env, first.id)))?.owner?.goneAt).toBeInstanceOf(Date);
    expect((await setBan(admin, user, false)).status).toBe(200);
    for (const f of [first, later]) {
      await expectCached(short(f), 200);
      await expectCached(apiRead(f), 200);
    }
  });
});

describe("a write that lands after the owner's state changed does not outlive it", () => {
  it("a file record or an entry carrying the old state is deleted once written", async () => {
    const user = await verifiedUser();
    const f = await seedFile(user.id);
    const live = (await loadFile(shardDb(env, shardOfIdIn(env, "file", f.id)), f.id))!;
    await setOwnerBan(user.id); // straight in D1: its deletes ran already
    await fillFileRecords(env, live, Date.now(), 30);
    expect(await cache().match(fileAccessKey(env, f.id))).toBeUndefined();

    const object = (await env.BUCKET.get(f.storeKey))!;
    const meta = { type: "image/png", size: f.bytes, etag: object.httpEtag };
    const record = { file: f, at: Date.now(), owner: { goneAt: null } };
    await fillByteEntry(env, f.id, "original", { body: object.body, meta, objectKey: f.storeKey, record, decidedBy: f });
    expect(await cache().match(edgeCacheKey(env, f.id, "original"))).toBeUndefined();
    expect((await view(short(f))).status).toBe(410);
  });
});
