// tus's headers read one rule at a time (src/uploads/tus/protocol.ts), and the byte regrouping of the assembly.
import { describe, expect, it } from "vitest";
import { assertTusResumable, parseChecksum, parseMetadata, readSize } from "../../../src/uploads/tus/protocol";
import { concat, rowsOf } from "../../../src/uploads/tus/bytes";
import { ApiError } from "../../../src/platform/errors/errors";

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? err.details.code : String(err);
  }
  return "no error";
};

describe("tus headers", () => {
  it("Tus-Resumable is exactly 1.0.0", () => {
    expect(codeOf(() => assertTusResumable("1.0.0"))).toBe("no error");
    for (const v of [undefined, "", "1.0", "0.2.2"]) expect(codeOf(() => assertTusResumable(v))).toBe("tus_version_unsupported");
  });

  it("sizes are plain non-negative integers", () => {
    expect(readSize("Upload-Offset", "0")).toBe(0);
    expect(readSize("Upload-Length", " 123 ")).toBe(123);
    for (const v of [undefined, "", "-1", "1.5", "1e3", "0x10", "99999999999999999"]) expect(codeOf(() => readSize("Upload-Length", v))).toBe("invalid_tus_header");
  });

  it("Upload-Metadata: base64 UTF-8 values, keys alone, no duplicates", () => {
    const m = parseMetadata(`filename ${btoa("photo.png")},is_confidential,title ${btoa(String.fromCharCode(...new TextEncoder().encode("Été")))}`);
    expect(Object.fromEntries(m)).toEqual({ filename: "photo.png", is_confidential: "", title: "Été" });
    expect(parseMetadata(undefined).size).toBe(0);
    for (const bad of ["filename a b", "filename !!!", `a ${btoa("x")},a ${btoa("y")}`, `t ${btoa("\xff")}`]) expect(codeOf(() => parseMetadata(bad))).toBe("invalid_tus_header");
  });

  it("Upload-Checksum: sha1 or sha256 with a digest of the right length", () => {
    const sha1 = btoa("x".repeat(20));
    expect(parseChecksum(`sha1 ${sha1}`)?.algorithm).toBe("SHA-1");
    expect(parseChecksum(`SHA256 ${btoa("y".repeat(32))}`)?.algorithm).toBe("SHA-256");
    expect(parseChecksum(undefined)).toBeNull();
    for (const bad of ["md5 AAAA", `sha1 ${btoa("short")}`, "sha256", `sha1 ${sha1} extra`]) expect(codeOf(() => parseChecksum(bad))).toBe("invalid_tus_header");
  });
});

describe("held bytes", () => {
  it("are regrouped into rows of at most the row size, in order", () => {
    const chunks = [new Uint8Array([1, 2, 3]), new Uint8Array([4]), new Uint8Array([5, 6, 7, 8, 9])];
    const rows = rowsOf(chunks, 4);
    expect(rows.map((r) => [...r])).toEqual([[1, 2, 3, 4], [5, 6, 7, 8], [9]]);
    expect([...concat(rows, 9)]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(rowsOf([], 4)).toEqual([]);
  });
});
