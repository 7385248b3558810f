// How typed words become the index's MATCH (files/text-match.ts) and how snippets mark them (search/snippet.ts);
// random input through GET /search never fails.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { call, verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { matchExpression, parseTerms, searchKey } from "../../src/files/text-match";
import { snippet } from "../../src/search/snippet";

describe("parseTerms and matchExpression", () => {
  it("splits words, keeps quoted phrases, and makes the last bare word a prefix", () => {
    expect(parseTerms('red "old fox" barn')).toEqual({ words: ["red"], phrases: [["old", "fox"]], prefix: "barn" });
    expect(parseTerms('"old fox"')).toEqual({ words: [], phrases: [["old", "fox"]], prefix: null });
    expect(parseTerms('"unclosed phrase')).toEqual({ words: ["unclosed"], phrases: [], prefix: "phrase" });
    expect(parseTerms("a-b_c.d")).toEqual({ words: ["a", "b", "c"], phrases: [], prefix: "d" });
    expect(parseTerms("!!! ***")).toEqual({ words: [], phrases: [], prefix: null });
  });

  it("quotes every token after the owner's key; nothing else reaches FTS5", () => {
    const key = searchKey("usr_abcdefghijklmnopqrstu");
    expect(key).toMatch(/^[0-9a-f]{24}z$/);
    expect(matchExpression("usr_abcdefghijklmnopqrstu", parseTerms('OR "a b" NEAR c'))).toBe(`"${key}OR" "${key}NEAR" "${key}a ${key}b" "${key}c"*`);
    expect(matchExpression("usr_x", parseTerms("&&&"))).toBeNull();
  });
});

describe("snippet", () => {
  const terms = parseTerms("fox bar");
  it("marks the matches of the first field that has one, the last word as a prefix, accents folded", () => {
    expect(snippet(["Sunset", "the quick brown fox by the barn"], terms)).toBe("the quick brown \u0002fox\u0003 by the \u0002barn\u0003");
    expect(snippet(["Fóx"], parseTerms("fox"))).toBe("\u0002Fóx\u0003");
    expect(snippet(["no match here", ""], terms)).toBe("no match here");
  });
  it("cuts long text around the first match", () => {
    const long = `${"word ".repeat(40)}fox ${"tail ".repeat(40)}`;
    const cut = snippet([long], terms);
    expect(cut.startsWith("…")).toBe(true);
    expect(cut.endsWith("…")).toBe(true);
    expect(cut).toContain("\u0002fox\u0003");
    expect(cut.length).toBeLessThan(120);
  });
});

describe("GET /search with random input", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await verifiedUser();
    await seedFile(user.id, { title: "a \"quoted\" title (with) * operators: OR NOT NEAR" });
  });
  it("always answers 200 for 1-200 characters of anything", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 200, unit: "binary" }), async (q) => {
        const res = await call(`/search?q=${encodeURIComponent(q)}`, { token: user.access });
        expect(res.status).toBe(200);
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});
