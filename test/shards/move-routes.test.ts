// A moved owner loses nothing, route by route (issue 35): every route of docs/openapi.json that takes a file,
// album, upload or report id, and the byte links and share pages outside /api/v1, answer the same before and
// after the owner moves from shard 0 to shard 1. Which routes, and how each kind is compared (the same read
// twice, a replayed write on the same object, a write on twin objects): test/shards/route-move/routes.ts; what
// is compared of an answer and what is normalised: route-move/harness.ts; the owner's data: route-move/fixture.ts.
// Three ways: the owner moved with a report open; with uploads in flight; with ids from before shards that name
// shard 1 by chance. Each builds its owner, takes every answer, moves, takes them again (in beforeAll), and then
// each request is a test of its own, so one run names every route that differs. With uploads in flight, the
// move's copy waits for them (waitingFor); they are finished as their clients would, and the reads (the uploads'
// status routes among them) are taken then, while the move waits, and again after it.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestUser } from "../support/api";
import { IMAGE } from "../support/files";
import { userWithRole } from "../support/moderation";
import { fakeRemote, image } from "../uploads/remote";
import { moveOwner, type MoveProgress } from "../../src/admin/shard-move/move";
import { finishUploads, ownerFixture, type Fixture, type FixtureOptions } from "./route-move/fixture";
import { analysesLanded, moveToEnd, normalised, send, type Answer } from "./route-move/harness";
import { RECIPES, cases, routesTakingIds, type Case } from "./route-move/routes";

const CASES = cases();
const KIND_ORDER = { read: 0, replay: 1, twin: 2 } as const;

let moderator: TestUser;
beforeAll(async () => {
  moderator = await userWithRole("moderator");
});

/** The answers of `list`, reads first: twin a's objects before the move, twin b's after it. */
async function take(list: Case[], fx: Fixture, side: "a" | "b"): Promise<Map<string, Answer>> {
  const t = fx.twins[side];
  const out = new Map<string, Answer>();
  const ordered = list.filter((c) => c.recipe).sort((x, y) => KIND_ORDER[x.recipe!.kind] - KIND_ORDER[y.recipe!.kind]);
  for (const { label, recipe, mode } of ordered) {
    const req = recipe!.request(fx, t);
    req.token = { owner: fx.owner.access, moderator: fx.moderator.access, anonymous: undefined }[recipe!.as];
    const remote = recipe!.remote ? fakeRemote(() => image(recipe!.remote!(t))) : undefined;
    try {
      const answer = await send(req, mode);
      // A write that started an upload finishes it, as its client would: the move waits for uploads in flight.
      await recipe!.after?.(answer, fx, t);
      out.set(label, normalised(answer, fx.names));
    } finally {
      remote?.restore();
    }
  }
  return out;
}

type Run = { before: Map<string, Answer>; after: Map<string, Answer>; waited?: MoveProgress };

function compare(c: Case, run: Run) {
  if (!c.recipe) throw new Error(`${c.route} takes a file, album or upload id and has no recipe in test/shards/route-move/routes.ts`);
  const before = run.before.get(c.label);
  const after = run.after.get(c.label);
  expect.soft(before?.status, `before the move: what an owner who never moved gets (${JSON.stringify(before?.body)})`).toBe(c.recipe.status);
  expect(after, "after the move: the answer before it").toEqual(before);
}

/** Builds the owner, takes every answer, moves the owner to shard 1, takes them again; then one test per request. */
function movedOwner(title: string, opts: Omit<FixtureOptions, "moderator">, more: (run: Run) => void = () => {}) {
  describe(title, () => {
    const run: Run = { before: new Map(), after: new Map() };
    beforeAll(async () => {
      const fx = await ownerFixture({ moderator, ...opts });
      const twins = CASES.filter((c) => c.recipe?.kind === "twin");
      const others = CASES.filter((c) => c.recipe?.kind !== "twin");
      run.before = await take(twins, fx, "a");
      if (opts.uploadsInFlight) {
        // The fence goes up and the copy waits for the uploads; their clients finish them; reads go on meanwhile.
        run.waited = await moveOwner(env, fx.owner.id, 1);
        await finishUploads(fx.owner, fx.uploads);
      }
      await analysesLanded(env.DB, fx.owner.id, "before the reads");
      for (const [label, answer] of await take(others, fx, "a")) run.before.set(label, answer);
      await moveToEnd(fx.owner.id, 1);
      run.after = await take(others, fx, "b");
      for (const [label, answer] of await take(twins, fx, "b")) run.after.set(label, answer);
    }, 180_000);

    for (const c of CASES) it(c.label, () => compare(c, run));

    it("GET /files/<id> as the owner lists the near duplicate before and after (no bookmark: the edge record decides)", () => {
      const label = CASES.find((c) => c.route === "GET /files/{id}" && c.recipe?.as === "owner" && c.mode === "records")!.label;
      const duplicate = { fileId: "<duplicate>", url: `${IMAGE}/<duplicate>`, distance: 1, match: "similar", signal: "phash", distances: { phash: 1, embedding: null } };
      expect.soft((run.before.get(label)?.body as { duplicates?: unknown })?.duplicates, "before the move").toEqual([duplicate]);
      expect((run.after.get(label)?.body as { duplicates?: unknown })?.duplicates, "after the move").toEqual([duplicate]);
    });
    more(run);
  });
}

describe("the routes that take a file, album or upload id", () => {
  it("are read from docs/openapi.json, and each has a recipe (a new route fails here until it has one)", () => {
    const selected = routesTakingIds();
    expect(selected).toEqual(expect.arrayContaining(["GET /files/{id}", "GET /albums/{id}", "POST /moderation/report", "GET /upload/tus/{uploadId}"]));
    expect(selected.filter((r) => !RECIPES[r]), "selected routes without a recipe").toEqual([]);
    expect(Object.keys(RECIPES).filter((r) => !selected.includes(r)), "recipes of routes the document no longer selects").toEqual([]);
  });
});

movedOwner("an owner moved with a report open on one of their files", { legacy: false, uploadsInFlight: false });

movedOwner("an owner moved with uploads in flight (a presign not yet PUT, a multipart and a tus upload)", { legacy: false, uploadsInFlight: true }, (run) => {
  it("the copy waited for the three uploads, which were then finished as their clients would", () => {
    expect(run.waited).toMatchObject({ step: "copy", waitingFor: "3 uploads in flight" });
  });
});

movedOwner("an owner whose ids are from before shards and name shard 1 by chance (rows on shard 0)", { legacy: true, uploadsInFlight: false });
