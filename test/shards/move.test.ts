// Moving an owner to another shard (admin/shard-move, docs/sharding.md § Moving an owner): the owner's rows are
// copied, verified, switched and deleted from the old shard; every link and read works after it; the owner's
// writes wait (503 owner_moving) while fenced; a move stopped after any step, run again, finishes with nothing
// lost and nothing twice; verify stops a move whose copy lacks a row.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, signup, type TestUser } from "../support/api";
import { IMAGE, fetchRaw } from "../support/files";
import { expectCached } from "../support/records";
import { SMALL_PNG, directUpload, finalize, presign, putDirect, sha256 } from "../uploads/helpers";
import { shardOfId } from "../../src/platform/data/shard-ids";
import { viewCounterFor } from "../../src/serving/view-counter";
import { SHARD_MOVE } from "../../src/config";
import { beginMove, moveOwner, runMoveStep, type MoveStep } from "../../src/admin/shard-move/move";

const shardDb = (n: number): D1Database => (n === 0 ? env.DB : env.SHARD_1);

type Owned = { user: TestUser; fileIds: string[]; uploadIds: string[]; albumId: string };

/** Waits (bounded) until the analysis of every file is no longer pending: its job writes the owner's bands. */
async function analysesLanded(db: D1Database, fileIds: string[]) {
  for (let i = 0; i < 400; i++) {
    const q = `SELECT COUNT(*) AS n FROM files WHERE analysis IN ('none', 'pending') AND id IN (${fileIds.map(() => "?").join(",")})`;
    const { n } = (await db.prepare(q).bind(...fileIds).first<{ n: number }>())!;
    if (n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the analyses did not land within 20 s");
}

/** An owner on shard `shard` with two uploaded files, an album of both, an upload part and band rows. */
async function ownerWithData(shard = 0): Promise<Owned> {
  const user = await signup();
  // Placed where the test says (signup spreads owners over both shards), before any data is made.
  await env.DB.prepare("UPDATE users SET shard = ? WHERE id = ?").bind(shard, user.id).run();
  const a = await directUpload(user.access);
  const b = await directUpload(user.access, new Uint8Array([...SMALL_PNG, 0]));
  const fileIds = [a.pre.body.fileId, b.pre.body.fileId];
  const uploadIds = [a.pre.body.uploadId, b.pre.body.uploadId];
  const db = shardDb(shard);
  await analysesLanded(db, fileIds);
  const album = await call("/albums", { token: user.access, body: { title: "Moving", visibility: "public", fileIds } });
  expect(album.status).toBe(201);
  await db.batch([
    db.prepare("INSERT INTO upload_parts (upload_id, part_number, etag, bytes, created_at) VALUES (?, 1, 'etag-1', 10, 1)").bind(uploadIds[0]),
    db.prepare("INSERT OR IGNORE INTO phash_bands SELECT id, 2, 4242, 1 FROM owners WHERE user_id = ?").bind(user.id),
    db.prepare("INSERT OR IGNORE INTO embedding_bands SELECT id, 15, 777, 2 FROM owners WHERE user_id = ?").bind(user.id),
    // More band rows than one page of the walk holds (SHARD_MOVE.bandPageRows): the walk goes on across pages.
    db
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${SHARD_MOVE.bandPageRows * 2 + 50})
         INSERT OR IGNORE INTO embedding_bands SELECT (SELECT id FROM owners WHERE user_id = ?), 3, i, 9 FROM n`,
      )
      .bind(user.id),
  ]);
  return { user, fileIds, uploadIds, albumId: album.body.id };
}

const all = async (db: D1Database, q: string, ...binds: unknown[]) => (await db.prepare(q).bind(...binds).all<Record<string, unknown>>()).results;

/** Everything of the owner's on one shard, in a stable order, owner keys left out (each shard numbers its owners). */
async function snapshot(db: D1Database, userId: string) {
  const owner = await db.prepare("SELECT user_id, storage_used, storage_reserved, banned_at, deleted_at FROM owners WHERE user_id = ?").bind(userId).first();
  return {
    owner,
    files: await all(db, "SELECT * FROM files WHERE user_id = ? ORDER BY id", userId),
    uploads: await all(db, "SELECT * FROM uploads WHERE user_id = ? ORDER BY id", userId),
    parts: await all(db, "SELECT p.* FROM upload_parts p JOIN uploads u ON u.id = p.upload_id WHERE u.user_id = ? ORDER BY p.upload_id, p.part_number", userId),
    albums: await all(db, "SELECT * FROM albums WHERE user_id = ? ORDER BY id", userId),
    albumFiles: await all(db, "SELECT af.* FROM album_files af JOIN albums a ON a.id = af.album_id WHERE a.user_id = ? ORDER BY af.album_id, af.file_id", userId),
    phash: await all(db, "SELECT band, value, ordinal FROM phash_bands b JOIN owners o ON o.id = b.owner WHERE o.user_id = ? ORDER BY 1, 2, 3", userId),
    embedding: await all(db, "SELECT band, value, ordinal FROM embedding_bands b JOIN owners o ON o.id = b.owner WHERE o.user_id = ? ORDER BY 1, 2, 3", userId),
  };
}

/** The owner's data has left `db`: no rows but the fenced owners row that sends stale writers away. */
async function expectGoneFrom(db: D1Database, userId: string, movedTo: number) {
  const left = await snapshot(db, userId);
  expect({ ...left, owner: null }).toEqual({ owner: null, files: [], uploads: [], parts: [], albums: [], albumFiles: [], phash: [], embedding: [] });
  expect(await db.prepare("SELECT moved_to FROM owners WHERE user_id = ?").bind(userId).first("moved_to")).toBe(movedTo);
}

const userShard = async (userId: string) => env.DB.prepare("SELECT shard FROM users WHERE id = ?").bind(userId).first<number>("shard");

/** Every read an owner and the public make, as it answers after a move. */
async function expectReadsWork(o: Owned, usedBytes: number, filesOutsideTheAlbum: string[] = []) {
  const fileIds = [...o.fileIds, ...filesOutsideTheAlbum];
  for (const id of fileIds) {
    expect((await call(`/files/${id}`, { token: o.user.access })).status).toBe(200);
    expect((await call(`/files/${id}`)).status).toBe(200);
    const bytes = await fetchRaw(`${IMAGE}/${id}`);
    expect(bytes.status).toBe(200);
  }
  const album = await call(`/albums/${o.albumId}`);
  expect(album.status).toBe(200);
  expect(album.body.files.map((f: { id: string }) => f.id).sort()).toEqual([...o.fileIds].sort());
  const list = await call("/files", { token: o.user.access });
  expect(list.body.files.map((f: { id: string }) => f.id).sort()).toEqual(fileIds.sort());
  expect((await call("/albums", { token: o.user.access })).body.albums.map((a: { id: string }) => a.id)).toEqual([o.albumId]);
  expect((await call("/account/limits", { token: o.user.access })).body.quota.used).toBe(usedBytes);
}

describe("moving an owner between shards", () => {
  it("moves an owner from shard 0 to shard 1 and back: rows, links, lists, quota and writes follow", async () => {
    const o = await ownerWithData(0);
    const before = await snapshot(env.DB, o.user.id);
    expect(before.phash.length).toBeGreaterThan(0);
    expect(before.embedding.length).toBeGreaterThan(0);
    expect(before.parts).toHaveLength(1);

    expect(await moveOwner(env, o.user.id, 1)).toMatchObject({ step: "done", fromShard: 0, toShard: 1 });
    expect(await userShard(o.user.id)).toBe(1);
    expect(await snapshot(env.SHARD_1, o.user.id)).toEqual(before);
    await expectGoneFrom(env.DB, o.user.id, 1);
    // The ids still name shard 0: they are found through moved_files there.
    expect(shardOfId("file", o.fileIds[0])?.shard).toBe(0);
    expect(await env.DB.prepare("SELECT shard FROM moved_files WHERE id = ?").bind(o.fileIds[0]).first("shard")).toBe(1);
    await expectReadsWork(o, before.owner!.storage_used as number);
    await expectCached(`${IMAGE}/${o.fileIds[1]}`, 200); // the edge-cached records follow the moved id too

    // Writes by a moved id reach the new shard; new uploads are made there.
    const patched = await call(`/files/${o.fileIds[0]}`, { method: "PATCH", token: o.user.access, body: { title: "After the move" } });
    expect(patched.status).toBe(200);
    expect(await env.SHARD_1.prepare("SELECT title FROM files WHERE id = ?").bind(o.fileIds[0]).first("title")).toBe("After the move");
    expect((await call(`/albums/${o.albumId}`, { method: "PATCH", token: o.user.access, body: { title: "Moved album" } })).status).toBe(200);
    const next = (await directUpload(o.user.access, new Uint8Array([...SMALL_PNG, 1]))).pre;
    expect(shardOfId("file", next.body.fileId)?.shard).toBe(1);
    await analysesLanded(env.SHARD_1, [next.body.fileId]);

    // And back home: the forwarding rows of shard 0 go, shard 1's point to 0.
    const moved = await snapshot(env.SHARD_1, o.user.id);
    expect(await moveOwner(env, o.user.id, 0)).toMatchObject({ step: "done", fromShard: 1, toShard: 0 });
    expect(await userShard(o.user.id)).toBe(0);
    expect(await snapshot(env.DB, o.user.id)).toEqual(moved);
    await expectGoneFrom(env.SHARD_1, o.user.id, 0);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM moved_files WHERE id = ?").bind(o.fileIds[0]).first("n")).toBe(0);
    expect(await env.SHARD_1.prepare("SELECT shard FROM moved_files WHERE id = ?").bind(next.body.fileId).first("shard")).toBe(0);
    expect((await call(`/files/${next.body.fileId}`, { token: o.user.access })).status).toBe(200); // made on shard 1, now on 0
    await expectReadsWork(o, moved.owner!.storage_used as number, [next.body.fileId]);
  });

  it("fences the owner's writes while it moves: 503 owner_moving with Retry-After; reads go on", async () => {
    const o = await ownerWithData(0);
    await beginMove(env, o.user.id, 1);
    expect((await runMoveStep(env, o.user.id)).step).toBe("copy"); // the fence is up
    const refused = [
      await presign({ token: o.user.access }),
      await call("/upload/multipart/init", { token: o.user.access, body: { filename: "m.png", mime: "image/png", totalBytes: SMALL_PNG.length, sha256: await sha256(SMALL_PNG) } }),
      await formUpload(o.user.access),
      await call(`/files/${o.fileIds[0]}`, { method: "PATCH", token: o.user.access, body: { title: "no" } }),
      await call(`/files/${o.fileIds[0]}`, { method: "DELETE", token: o.user.access }),
      await call(`/files/${o.fileIds[0]}/signed-url`, { token: o.user.access, body: { expiresIn: 3600 } }),
      await call(`/files/${o.fileIds[0]}/signed-url/revoke`, { method: "POST", token: o.user.access }),
      await call(`/albums/${o.albumId}`, { method: "PATCH", token: o.user.access, body: { title: "no" } }),
      await call(`/albums/${o.albumId}`, { method: "DELETE", token: o.user.access }),
      await call("/albums", { token: o.user.access, body: { title: "no", visibility: "public" } }),
    ];
    for (const r of refused) {
      expect(r.status, r.text).toBe(503);
      expect(r.body.details.code).toBe("owner_moving");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    await expectReadsWork(o, (await snapshot(env.DB, o.user.id)).owner!.storage_used as number);
    expect(await moveOwner(env, o.user.id, 1)).toMatchObject({ step: "done" });
    expect((await presign({ token: o.user.access })).status).toBe(201); // lifted where the owner now lives
  });

  it("waits for the owner's uploads begun before the fence: they finish, and then move with the rest", async () => {
    const o = await ownerWithData(0);
    const pre = await presign({ token: o.user.access, bytes: new Uint8Array([...SMALL_PNG, 2]) });
    expect(pre.status).toBe(201);
    expect(await moveOwner(env, o.user.id, 1)).toMatchObject({ step: "copy", waitingFor: "1 uploads in flight" });
    const put = await putDirect(pre.body.fileId, new Uint8Array([...SMALL_PNG, 2]), o.user.access);
    expect(put.status).toBe(200);
    expect((await finalize(pre.body, put.headers.get("etag")!, o.user.access)).status).toBe(200);
    await analysesLanded(env.DB, [pre.body.fileId]);
    const before = await snapshot(env.DB, o.user.id);
    expect(before.files).toHaveLength(3);
    expect(await moveOwner(env, o.user.id, 1)).toMatchObject({ step: "done" });
    expect(await snapshot(env.SHARD_1, o.user.id)).toEqual(before);
    await expectReadsWork(o, before.owner!.storage_used as number, [pre.body.fileId]);
  });

  const STOPS: { after: MoveStep | "copy-page" | "copy-bands" | "delete-page"; label: string }[] = [
    { after: "fence", label: "the fence" },
    { after: "copy-page", label: "one page of the copy" },
    { after: "copy-bands", label: "a page inside the band walk of the copy" },
    { after: "copy", label: "the copy" },
    { after: "verify", label: "verify" },
    { after: "switch", label: "the switch" },
    { after: "delete-page", label: "one page of the delete" },
  ];
  for (const stop of STOPS) {
    it(`a move stopped after ${stop.label} and run again finishes with nothing lost and nothing twice`, async () => {
      const o = await ownerWithData(0);
      const before = await snapshot(env.DB, o.user.id);
      await beginMove(env, o.user.id, 1);
      if (stop.after === "copy-page" || stop.after === "delete-page") {
        const step = stop.after === "copy-page" ? "copy" : "delete";
        while ((await currentStep(o.user.id)) !== step) await runMoveStep(env, o.user.id);
        expect((await runMoveStep(env, o.user.id, { pages: 1 })).step).toBe(step); // stopped inside the step
      } else if (stop.after === "copy-bands") {
        while ((await currentStep(o.user.id)) !== "copy") await runMoveStep(env, o.user.id);
        // files, albums, phash_bands, then the first page of embedding_bands
        expect((await runMoveStep(env, o.user.id, { pages: 4 })).step).toBe("copy");
        const cursor = JSON.parse((await env.DB.prepare("SELECT cursor FROM owner_moves WHERE user_id = ?").bind(o.user.id).first<string>("cursor"))!);
        expect(cursor).toMatchObject({ phase: "embedding_bands", after: expect.any(String) });
      } else {
        let progress;
        do progress = await runMoveStep(env, o.user.id);
        while (progress.step !== nextOf(stop.after));
      }
      // Run again from the start, as the CLI would: it goes on from the recorded step.
      expect(await moveOwner(env, o.user.id, 1)).toMatchObject({ step: "done" });
      expect(await snapshot(env.SHARD_1, o.user.id)).toEqual(before);
      await expectGoneFrom(env.DB, o.user.id, 1);
      await expectReadsWork(o, before.owner!.storage_used as number);
    });
  }

  it("counts the views of a moved file and album on the shard that now holds them", async () => {
    const o = await ownerWithData(0);
    await moveOwner(env, o.user.id, 1);
    const counts = async () => ({
      file: (await env.SHARD_1.prepare("SELECT view_count AS n FROM files WHERE id = ?").bind(o.fileIds[0]).first<number>("n"))!,
      album: (await env.SHARD_1.prepare("SELECT view_count AS n FROM albums WHERE id = ?").bind(o.albumId).first<number>("n"))!,
    });
    const before = await counts();
    expect((await call(`/files/${o.fileIds[0]}`)).status).toBe(200);
    expect((await call(`/albums/${o.albumId}`)).status).toBe(200);
    let after = before;
    for (const deadline = Date.now() + 5_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 25))) {
      await Promise.all([viewCounterFor(env, o.fileIds[0]).drain(), viewCounterFor(env, o.albumId).drain()]);
      after = await counts();
      if (after.file > before.file && after.album > before.album) break;
    }
    expect(after).toEqual({ file: before.file + 1, album: before.album + 1 });
  });

  it("verify fails loudly when the copy lacks a row, and the move copies again before it can switch", async () => {
    const o = await ownerWithData(0);
    const before = await snapshot(env.DB, o.user.id);
    await beginMove(env, o.user.id, 1);
    while ((await currentStep(o.user.id)) !== "verify") await runMoveStep(env, o.user.id);
    await env.SHARD_1.prepare("DELETE FROM album_files WHERE album_id = ? AND file_id = ?").bind(o.albumId, o.fileIds[1]).run();
    await expect(runMoveStep(env, o.user.id)).rejects.toThrow(/album_files/);
    expect(await currentStep(o.user.id)).toBe("copy");
    expect(await userShard(o.user.id)).toBe(0); // not switched
    await expectReadsWork(o, before.owner!.storage_used as number);
    expect(await moveOwner(env, o.user.id, 1)).toMatchObject({ step: "done" });
    expect(await snapshot(env.SHARD_1, o.user.id)).toEqual(before);
  });

  it("refuses a second move to another shard while one is under way, and a move to the shard the owner is on", async () => {
    const o = await ownerWithData(0);
    await expect(beginMove(env, o.user.id, 0)).rejects.toThrow(/already on shard 0/);
    await beginMove(env, o.user.id, 1);
    await expect(beginMove(env, o.user.id, 0)).rejects.toThrow(/under way/);
    expect(await moveOwner(env, o.user.id, 1)).toMatchObject({ step: "done" });
  });

  it("POST /admin/shards/move runs it for admins, refuses others, and checks its input", async () => {
    const o = await ownerWithData(0);
    const admin = await signup();
    await env.DB.prepare("UPDATE users SET role = 'admin' WHERE id = ?").bind(admin.id).run();
    const move = (body: unknown, token = admin.access) => call("/admin/shards/move", { token, body });
    expect((await move({ userId: o.user.id, toShard: 1 }, o.user.access)).status).toBe(403);
    expect((await move({ userId: o.user.id, toShard: 7 })).status).toBe(400);
    expect((await move({ userId: "usr_nobody", toShard: 1 })).status).toBe(404);
    const done = await move({ userId: o.user.id, toShard: 1 });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ userId: o.user.id, fromShard: 0, toShard: 1, step: "done" });
    expect(await userShard(o.user.id)).toBe(1);
    expect((await move({ userId: o.user.id, toShard: 1 })).body.step).toBe("done"); // run again: nothing to do
  });
});

const ORDER: MoveStep[] = ["fence", "copy", "verify", "switch", "delete", "done"];
const nextOf = (step: MoveStep) => ORDER[ORDER.indexOf(step) + 1];
const currentStep = (userId: string) => env.DB.prepare("SELECT step FROM owner_moves WHERE user_id = ?").bind(userId).first<string>("step");

async function formUpload(token: string) {
  const form = new FormData();
  form.set("file", new File([SMALL_PNG], "f.png", { type: "image/png" }));
  const req = new Request("http://x/", { method: "POST", body: form }); // serialised, with its Content-Length
  const bytes = new Uint8Array(await req.arrayBuffer());
  return call("/upload/form", { method: "POST", token, raw: bytes, headers: { "content-type": req.headers.get("content-type")!, "content-length": String(bytes.byteLength) } });
}
