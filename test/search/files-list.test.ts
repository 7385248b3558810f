// GET /files?q= through the search index, sort=relevance, and color=#RRGGBB (nearest first by ΔE in CIELAB).
import { beforeAll, describe, expect, it } from "vitest";
import { call, createKey, verifiedUser, type TestUser } from "../support/api";
import { seedFile } from "../support/files";
import { deltaE, hexToLab } from "../../src/files/colour";

let owner: TestUser;
let stranger: TestUser;
const ids: Record<string, string> = {};
const list = async (query: string, token = owner.access) => call(`/files?${query}`, { token });
const listed = async (query: string, token = owner.access) => ((await list(query, token)).body.files as { id: string }[]).map((f) => f.id);

beforeAll(async () => {
  owner = await verifiedUser();
  stranger = await verifiedUser();
  // Created oldest first: the default sort (newest first) puts the description match first, relevance the title's.
  ids.title = (await seedFile(owner.id, { title: "Lighthouse keeper", dominantColor: "#1e40af" })).id;
  ids.both = (await seedFile(owner.id, { title: "Lighthouse", description: "a lighthouse at night", dominantColor: "#dc2626" })).id;
  ids.description = (await seedFile(owner.id, { title: "Coast", description: "a lighthouse far away", dominantColor: "#f97316" })).id;
  ids.none = (await seedFile(owner.id, { title: "Meadow", dominantColor: null })).id;
  ids.green = (await seedFile(owner.id, { title: "Fern", dominantColor: "#16a34a" })).id;
  await seedFile(stranger.id, { title: "Lighthouse of a stranger", dominantColor: "#dc2626" });
});

describe("GET /files?q=", () => {
  it("matches every word in any indexed field, newest first by default", async () => {
    expect(await listed("q=lighthouse")).toEqual([ids.description, ids.both, ids.title]);
    expect(await listed("q=lighthouse%20keep")).toEqual([ids.title]);
    expect((await list("q=lighthouse")).body.pagination.total).toBe(3);
  });

  it("sort=relevance ranks by bm25: title matches first, more matches higher", async () => {
    expect(await listed("q=lighthouse&sort=relevance")).toEqual([ids.both, ids.title, ids.description]);
    expect(await listed("q=lighthouse&sort=relevance&limit=1&offset=1")).toEqual([ids.title]);
  });

  it("sort=relevance without q, and color with sort, are 400 validation_error", async () => {
    for (const query of ["sort=relevance", "color=%23ff0000&sort=created", "color=red", "color=%23ff00", "color=ff0000ff"]) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
  });

  it("never shows a stranger's files, and keys need read", async () => {
    expect(await listed("q=lighthouse", stranger.access)).toHaveLength(1);
    const upload = await createKey(owner, { permissions: ["upload"] });
    expect((await list("q=lighthouse", upload.key)).status).toBe(403);
    const read = await createKey(owner, { permissions: ["read"] });
    expect(await listed("q=lighthouse&sort=relevance", read.key)).toEqual([ids.both, ids.title, ids.description]);
  });
});

describe("GET /files?color=", () => {
  it("orders by ΔE in CIELAB, nearest first; files without a colour last", async () => {
    expect(await listed("color=%23ff0000")).toEqual([ids.both, ids.description, ids.green, ids.title, ids.none]); // green is nearer red than this blue (ΔE 134 vs 142)
    expect((await listed("color=%230000FF"))[0]).toBe(ids.title);
    expect((await listed("color=%2322c55e"))[0]).toBe(ids.green);
    const page = await list("color=%23ff0000&limit=2&offset=1");
    expect(page.body.files.map((f: { id: string }) => f.id)).toEqual([ids.description, ids.green]);
    expect(page.body.pagination).toEqual({ total: 5, limit: 2, offset: 1, hasMore: true });
  });

  it("combines with q", async () => {
    expect(await listed("color=%23ff0000&q=lighthouse")).toEqual([ids.both, ids.description, ids.title]);
  });

  it("CIELAB: white and black are 100 apart; ΔE is a distance", () => {
    expect(hexToLab("#ffffff")![0]).toBeCloseTo(100, 1);
    expect(deltaE(hexToLab("#000000")!, hexToLab("#ffffff")!)).toBeCloseTo(100, 1);
    expect(deltaE(hexToLab("#123456")!, hexToLab("#123456")!)).toBe(0);
    expect(hexToLab("nope")).toBeNull();
  });
});
