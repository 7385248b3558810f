import { describe, expect, it } from "vitest";
import { formatBookmarks, parseBookmarks } from "../../src/platform/data/bookmarks";

const A = "00000001-00000002-00004f6e-86c05b0a2c3f5e9a1d2a0f3b3d1c9c1e";
const B = "00000002-00000001-00004f6e-86c05b0a2c3f5e9a1d2a0f3b3d1c9c1e";

describe("x-d1-bookmark with one bookmark per database", () => {
  it("a bare bookmark (a client from before shards) is database 0's", () => {
    expect([...parseBookmarks(A, 2)]).toEqual([[0, A]]);
  });

  it("reads `n:bookmark` pairs, drops malformed ones and databases that do not exist", () => {
    expect([...parseBookmarks(`0:${A}, 1:${B}`, 2)]).toEqual([[0, A], [1, B]]);
    expect([...parseBookmarks(`1:${B},2:${A},x:${A},0:not a bookmark`, 2)]).toEqual([[1, B]]);
    expect(parseBookmarks("", 2).size).toBe(0);
    expect(parseBookmarks(undefined, 2).size).toBe(0);
    expect(parseBookmarks(`0:${"f".repeat(500)}`, 2).size).toBe(0);
  });

  it("a database named twice keeps the later bookmark", () => {
    expect(parseBookmarks(`0:${B},0:${A}`, 1).get(0)).toBe(B);
  });

  it("writes database 0 first and leaves out databases without a bookmark; round-trips", () => {
    const header = formatBookmarks(new Map([[1, B], [0, A], [2, undefined]]));
    expect(header).toBe(`0:${A},1:${B}`);
    expect([...parseBookmarks(header, 3)]).toEqual([[0, A], [1, B]]);
    expect(formatBookmarks(new Map())).toBeUndefined();
    expect(formatBookmarks(new Map([[1, B]]))).toBe(`1:${B}`);
  });

  it("database 0's alone is sent bare, as before shards", () => {
    expect(formatBookmarks(new Map([[0, A], [1, undefined]]))).toBe(A);
  });
});
