// The edge-record layer on the real local cache: the codec keeps Dates, a record of another version is a
// miss, the write-then-verify guard keeps what the check backs and drops the rest (all of it when the check
// fails), and forget deletes here.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { decodeRecord, dropHere, EDGE_KINDS, edgeKey, encodeRecord, forget, namespace, readRecord, recordSeconds, writeRecord, writeThenVerify } from "../../src/platform/edge/edge-records";

const things = namespace<{ name: string; at: Date; gone: Date | null; nested: { when: Date }[] }>("fileAccess");
const cache = () => (caches as unknown as { default: Cache }).default;

describe("the codec", () => {
  it("keeps Dates, nulls and nesting; an object with $date beside other keys is left alone", () => {
    const value = { at: new Date(1_700_000_000_123), gone: null, list: [{ when: new Date(5) }], n: 3, s: "x", fake: { $date: 1, other: 2 } };
    expect(decodeRecord(encodeRecord(value))).toEqual(value);
  });

  it("an Invalid Date is written as null (not set), as the per-kind codecs did", () => {
    expect(decodeRecord(encodeRecord({ at: new Date(NaN) }))).toEqual({ at: null });
  });

  it("a text decoded before is answered from memory, as the same value", () => {
    const text = encodeRecord({ at: new Date(7), id: "memo" });
    const first = decodeRecord(text);
    expect(decodeRecord(text)).toBe(first);
    expect(first).toEqual({ at: new Date(7), id: "memo" });
  });

  it("a record of another version, or unreadable text, is a miss", () => {
    expect(decodeRecord(JSON.stringify({ v: 1, value: { a: 1 } }))).toBeUndefined();
    expect(decodeRecord("{not json")).toBeUndefined();
  });

  it("ACCESS_RECORD_SECONDS: 30 by default, at most 300, 0 turns records off, nonsense is refused by name", () => {
    expect(recordSeconds({ ...env, ACCESS_RECORD_SECONDS: undefined } as unknown as Env)).toBe(30);
    expect(recordSeconds({ ...env, ACCESS_RECORD_SECONDS: "0" })).toBe(0);
    expect(() => recordSeconds({ ...env, ACCESS_RECORD_SECONDS: "900" })).toThrow(/ACCESS_RECORD_SECONDS: expected at most 300/);
    expect(() => recordSeconds({ ...env, ACCESS_RECORD_SECONDS: "soon" })).toThrow(/ACCESS_RECORD_SECONDS/);
  });
});

describe("namespaces", () => {
  it("every kind has its own prefix, none inside another's, and every key is built through the table", () => {
    const prefixes = Object.values(EDGE_KINDS);
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(a.startsWith(`${b}/`)).toBe(false);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect(edgeKey(env, "fileBytes", "f_1/original")).toBe(`${new URL(env.CDN_URL).origin}/__edge-cache/files/f_1/original`);
  });

  it("write and read a typed record under the CDN origin, Dates kept", async () => {
    const value = { name: "a", at: new Date(1000), gone: null, nested: [{ when: new Date(2000) }] };
    await things.write(env, "1", value, 30);
    expect(things.key(env, "1")).toBe(`${new URL(env.CDN_URL).origin}/__edge-cache/access/files/1`);
    expect(await things.read(env, "1")).toEqual(value);
    await forget(env, [things.key(env, "1")]);
    expect(await things.read(env, "1")).toBeUndefined();
  });
});

describe("write then verify", () => {
  const keys = ["a", "b"].map((id) => things.key(env, id));
  const writeBoth = () => Promise.all(keys.map((k) => writeRecord(k, { k }, 30)));

  it("keeps what the check backs and deletes what it names", async () => {
    await writeThenVerify(keys, writeBoth, async () => [keys[1]]);
    expect(await readRecord(keys[0])).toEqual({ k: keys[0] });
    expect(await cache().match(keys[1])).toBeUndefined();
    await dropHere(keys);
  });

  it("keeps none when the check itself fails (not verified: not kept)", async () => {
    await writeThenVerify(keys, writeBoth, async () => {
      throw new Error("D1 unreachable");
    });
    for (const k of keys) expect(await cache().match(k)).toBeUndefined();
  });
});
