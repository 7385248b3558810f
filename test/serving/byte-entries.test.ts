// Byte entries (src/serving/byte-entries.ts): a cached original or thumbnail carries its file's access record,
// so an anonymous hit looks up only the entry and the owner's record. Records are on in this file (the suite
// runs with them off); access-records.test.ts checks every rule and every invalidation on the cached path.
import { decodeRecord } from "../../src/platform/edge/edge-records";
import type { EntryRecord } from "../../src/serving/records";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createExecutionContext, env } from "cloudflare:test";
import worker from "../../src/index";
import { edgeCacheKey, fileAccessKey } from "../../src/serving/edge-cache";
import { accessChanged } from "../../src/serving/access-changed";
import { fillByteEntry, readByteEntry, storeByteEntry } from "../../src/serving/records";
import { refreshByteEntry } from "../../src/serving/lookups";
import { claimRefresh, refreshClaimed } from "../../src/serving/byte-path";
import type { FileRow } from "../../src/db/schema";
import { verifiedUser, type TestUser } from "../support/api";
import { IMAGE, pngLikeBytes, seedFile } from "../support/files";
import { recordsOn, view } from "../support/records";
import { unreachableBindings, isD1Call } from "../support/unreachable";
import { ownerDb } from "../support/shard-db";

const cache = () => (caches as unknown as { default: Cache }).default;
const short = (f: FileRow) => `${IMAGE}/${f.id}`;
/** The record an entry carries, as the layer decodes it. */
const carried = (entry: Response | undefined) => decodeRecord<EntryRecord>(decodeURIComponent(entry!.headers.get("x-edge-record")!))!;
const entryOf = (f: FileRow, variant: "original" | "thumb" = "original") => cache().match(edgeCacheKey(env, f.id, variant));
/** What the file's own access record would say is gone: only the entry can decide now. */
const dropFileRecord = (f: FileRow) => cache().delete(fileAccessKey(env, f.id));
const setRow = (f: FileRow, sql: string, ...values: unknown[]) => ownerDb.prepare(`UPDATE files SET ${sql} WHERE id = ?`).bind(...values, f.id).run();

/** The D1 calls a request attempts with D1 unreachable (whatever it then answers). */
async function d1CallsOf(url: string): Promise<string[]> {
  const probe = unreachableBindings(env);
  const res = await worker.fetch(new Request(url) as Request<unknown, IncomingRequestCfProperties>, { ...recordsOn, ...probe.bindings }, createExecutionContext());
  await res.body?.cancel();
  return probe.calls.filter((c) => isD1Call(c));
}

let owner: TestUser;
beforeAll(async () => {
  owner = await verifiedUser();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("an entry decides with its own record", () => {
  it("an anonymous fill stores the bytes with the record (no secret in it); a hit needs neither D1 nor the file's record", async () => {
    const content = pngLikeBytes(40_000, 3);
    const f = await seedFile(owner.id, { content, thumb: pngLikeBytes(700, 4), deleteTokenHash: "b".repeat(64) });
    await view(short(f));
    await view(`${short(f)}/thumb`);
    const entry = await entryOf(f);
    expect(entry?.headers.get("x-edge-object")).toBe(encodeURIComponent(f.storeKey));
    const record = decodeURIComponent(entry!.headers.get("x-edge-record") ?? "");
    expect(decodeRecord(record)).toMatchObject({ file: { id: f.id, visibility: "public", storeKey: f.storeKey } });
    expect(record).not.toContain("b".repeat(64));
    await entry!.body?.cancel();

    await dropFileRecord(f);
    const hit = await view(short(f), {}, true); // D1 throws, Durable Objects never answer
    expect(hit.status).toBe(200);
    expect(hit.bytes).toEqual(content);
    expect((await view(`${short(f)}/thumb`, {}, true)).bytes).toEqual(pngLikeBytes(700, 4));
    // (HEAD and conditional GETs are decided from the small records, not the entry: access-records.test.ts.)
  });

  it("a hit opens no D1 session at all (byte links are mounted ahead of the db handle)", async () => {
    const f = await seedFile(owner.id);
    await view(short(f));
    const touched: string[] = [];
    const DB = new Proxy({}, { get: (_t, prop) => (touched.push(String(prop)), () => { throw new Error("no D1 here"); }) }) as unknown as D1Database;
    const probe = unreachableBindings(env);
    const res = await worker.fetch(new Request(short(f)) as Request<unknown, IncomingRequestCfProperties>, { ...recordsOn, ...probe.bindings, DB }, createExecutionContext());
    expect(res.status).toBe(200);
    await res.body?.cancel();
    expect(touched).toEqual([]);
  });

  it("the rules hold on it: a record that says private, or a hotlink policy, still decides", async () => {
    const blocked = await seedFile(owner.id, { hotlinkPolicy: "block" });
    await view(short(blocked));
    await dropFileRecord(blocked);
    expect((await view(short(blocked), { headers: { referer: "https://elsewhere.example/" } }, true)).status).toBe(403);
    expect((await view(short(blocked), {}, true)).status).toBe(200);
  });

  it("a record older than ACCESS_RECORD_SECONDS no longer decides: D1 does, and the entry is stored again", async () => {
    const f = await seedFile(owner.id);
    await view(short(f));
    const first = carried(await entryOf(f));

    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 31_000);
    await dropFileRecord(f); // (its own max-age would have ended it by now)
    expect(await d1CallsOf(short(f))).not.toEqual([]); // stale: it asks D1 (unreachable here)
    await setRow(f, "visibility = 'private'"); // a change that reached no cache
    expect((await view(short(f))).status).toBe(404);

    await setRow(f, "visibility = 'public'");
    await dropFileRecord(f);
    expect((await view(short(f))).status).toBe(200); // decided from D1, then the entry is stored again
    const again = carried(await entryOf(f));
    expect(again.at).toBeGreaterThan(first.at);
    await dropFileRecord(f);
    expect((await view(short(f), {}, true)).status).toBe(200); // the fresh record decides alone again
  });
});

describe("a busy entry is stored again before its record runs out", () => {
  it("a view after two thirds of ACCESS_RECORD_SECONDS is served from the entry, then a new record is read from the primary", async () => {
    const f = await seedFile(owner.id);
    await view(short(f));
    const first = carried(await entryOf(f));
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 21_000);
    await setRow(f, "visibility = 'private'"); // a change that reached no cache: the next record must see it
    expect((await view(short(f))).status).toBe(200); // still decided by the carried record (21 s < 30 s)
    const again = carried(await entryOf(f));
    expect(again.at).toBeGreaterThan(first.at);
    expect(again.file.visibility).toBe("private");
    expect((await view(short(f), {}, true)).status).toBe(404);
  });

  it("one write per entry at a time in an isolate", async () => {
    const f = await seedFile(owner.id);
    await view(short(f));
    const entry = await readByteEntry(env, f.id, "original");
    const later = entry!.record!.at + 25_000;
    expect(claimRefresh(f.id, "original", entry!, undefined, 30, entry!.record!.at + 1_000)).toBeUndefined(); // young
    expect(claimRefresh(f.id, "original", entry!, entry!.record, 30, later)).toEqual({}); // old: read a new record
    expect(claimRefresh(f.id, "original", entry!, undefined, 30, later)).toBeUndefined(); // claimed
    await entry!.response.body?.cancel();
    await refreshClaimed(env, f.id, "original", f.storeKey);
    const fresher = { ...entry!.record!, at: entry!.record!.at + 5_000 };
    expect(claimRefresh(f.id, "original", entry!, fresher, 30, entry!.record!.at + 6_000)).toEqual({ record: fresher }); // released; decided from a fresher one
    expect(claimRefresh(f.id, "thumb", entry!, undefined, 0, later)).toBeUndefined(); // records off
  });
});

describe("a write that lands after a change does not outlive it", () => {
  const meta = (f: FileRow) => ({ type: "image/png", size: f.bytes, etag: `"${f.storeEtag}"` });
  const bytesOf = async (f: FileRow) => (await env.BUCKET.get(f.storeKey))!.body;

  it("an entry whose record no longer matches the row (a change whose delete came before the write) is deleted once stored", async () => {
    const f = await seedFile(owner.id);
    const stale = { file: f, at: Date.now() };
    await setRow(f, "visibility = 'private'"); // the change, and its delete, before the write lands
    await fillByteEntry(env, f.id, "original", { body: await bytesOf(f), meta: meta(f), objectKey: f.storeKey, record: stale, decidedBy: f });
    expect(await entryOf(f)).toBeUndefined();
    expect((await view(short(f))).status).toBe(404);

    // Without a record too (a Bearer fill): bytes read before the analysis rewrote the original do not stay.
    const h = await seedFile(owner.id, { analysis: "pending" });
    await setRow(h, "analysis = 'done'");
    await fillByteEntry(env, h.id, "original", { body: await bytesOf(h), meta: meta(h), objectKey: h.storeKey, decidedBy: h });
    expect(await entryOf(h)).toBeUndefined();

    const g = await seedFile(owner.id);
    await fillByteEntry(env, g.id, "original", { body: await bytesOf(g), meta: meta(g), objectKey: g.storeKey, record: { file: g, at: Date.now() }, decidedBy: g });
    const kept = await entryOf(g);
    expect(kept).toBeDefined();
    await kept!.body?.cancel();
  });

  it("a refresh stores the object's bytes read from R2, not the ones in the cache (an object rewritten in place)", async () => {
    const f = await seedFile(owner.id, { content: pngLikeBytes(3000, 1) });
    await view(short(f));
    const scrubbed = pngLikeBytes(3000, 2); // same size, other bytes: what the analysis' metadata scrub does
    await env.BUCKET.put(f.storeKey, scrubbed, { httpMetadata: { contentType: "image/png" } });
    await refreshByteEntry(env, f.id, "original", f.storeKey);
    const entry = await entryOf(f);
    expect(new Uint8Array(await entry!.arrayBuffer())).toEqual(scrubbed);
  });

  it("a purge given a row read before the analysis landed (no thumbKey yet) still drops the thumbnail's entry", async () => {
    const f = await seedFile(owner.id, { thumb: pngLikeBytes(600, 5) });
    await view(`${short(f)}/thumb`);
    expect(await entryOf(f, "thumb")).toBeDefined();
    await accessChanged(env, { files: [{ ...f, thumbKey: null }] });
    expect(await entryOf(f, "thumb")).toBeUndefined();
  });
});

describe("entries without a record that may decide", () => {
  it("filled for the owner's Bearer request (a replica's answer): bytes only, anonymous viewers are decided elsewhere", async () => {
    const f = await seedFile(owner.id, { visibility: "private" });
    expect((await view(short(f), { headers: { authorization: `Bearer ${owner.access}` } })).status).toBe(200);
    const entry = await entryOf(f);
    expect(entry).toBeDefined();
    expect(entry!.headers.get("x-edge-record")).toBeNull();
    await entry!.body?.cancel();
    expect((await view(short(f))).status).toBe(404);
    expect((await view(short(f), {}, true)).status).toBe(404);
  });

  it("a record too long to carry (a long hotlink allow-list) stays out; the file's own record decides", async () => {
    const domains = Array.from({ length: 50 }, (_, i) => `${"d".repeat(180)}${i}.example`);
    const f = await seedFile(owner.id, { hotlinkPolicy: "whitelist", hotlinkDomains: domains });
    const friend = { headers: { referer: `https://${domains[7]}/post` } };
    expect((await view(short(f), friend)).status).toBe(200);
    const entry = await readByteEntry(env, f.id, "original");
    expect(entry!.record).toBeUndefined();
    expect(entry!.tooLong).toBe(true);
    // ... and is not stored again on every view for want of one.
    expect(claimRefresh(f.id, "original", entry!, { file: f, at: Date.now() }, 30, Date.now())).toBeUndefined();
    await entry!.response.body?.cancel();
    expect((await view(short(f), friend, true)).status).toBe(200);
    expect((await view(short(f), { headers: { referer: "https://elsewhere.example/" } }, true)).status).toBe(403);
  });

  it("an entry of another object (a thumbnail made again) is a miss: the current object is served", async () => {
    const f = await seedFile(owner.id, { thumb: pngLikeBytes(600, 8) });
    const old = pngLikeBytes(500, 1);
    const meta = { type: "image/webp", size: old.byteLength, etag: '"old"' };
    await storeByteEntry(env, f.id, "thumb", { body: new Blob([old]).stream(), meta, objectKey: `thumbs/${f.id}-old.webp` });
    const res = await view(`${short(f)}/thumb`);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(pngLikeBytes(600, 8));
    const entry = await entryOf(f, "thumb");
    expect(entry!.headers.get("x-edge-object")).toBe(encodeURIComponent(f.thumbKey!));
    await entry!.body?.cancel();
  });
});

describe("invalidation drops the entries with the records", () => {
  it("forgetting a file's access drops its original's and thumbnail's entries", async () => {
    const f = await seedFile(owner.id, { thumb: pngLikeBytes(600, 9) });
    await view(short(f));
    await view(`${short(f)}/thumb`);
    await accessChanged(env, { fileIds: [f.id] });
    expect(await entryOf(f)).toBeUndefined();
    expect(await entryOf(f, "thumb")).toBeUndefined();
  });
});
