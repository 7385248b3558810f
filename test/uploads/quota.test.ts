import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PLAN_LIMITS } from "../../src/config";
import { shardDb } from "../../src/platform/data/db";
import {
  commitQuotaStatement,
  commitUploadReservationStatement,
  freeStorageStatement,
  releaseReservationStatement,
  releaseUploadReservationStatement,
  reserveQuota,
} from "../../src/uploads/quota";
import { call, signup } from "../support/api";
import { ownerRow } from "../support/owners";
import { SMALL_PNG, directUpload, makePng, presign, randomIp, setStorage, storage } from "./helpers";
import { ownerDb, shardOfUser } from "../support/shard-db";

const FREE_QUOTA = PLAN_LIMITS.free.storageQuotaBytes!;

describe("storage quota", () => {
  it("twenty parallel presigns against a nearly full quota admit exactly as many as fit", async () => {
    const user = await signup();
    const size = SMALL_PNG.byteLength;
    const fits = 7;
    await setStorage(user.id, FREE_QUOTA - fits * size - (size - 1));
    const replies = await Promise.all(Array.from({ length: 20 }, () => presign({ token: user.access })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(fits);
    expect(statuses.filter((s) => s === 402)).toHaveLength(20 - fits);
    for (const r of replies.filter((r) => r.status === 402)) {
      expect(r.body).toMatchObject({ error: "Payment Required", details: { code: "quota_exceeded" } });
    }
    expect(await storage(user.id)).toEqual({ used: FREE_QUOTA - fits * size - (size - 1), reserved: fits * size });
    const rows = await ownerDb.prepare("SELECT COUNT(*) AS n FROM uploads WHERE user_id = ?").bind(user.id).first<{ n: number }>();
    expect(rows!.n).toBe(fits);
  });

  it("an upload exactly filling the quota is accepted; one byte more is 402", async () => {
    const user = await signup();
    await setStorage(user.id, FREE_QUOTA - SMALL_PNG.byteLength);
    expect((await presign({ token: user.access })).status).toBe(201);
    expect((await presign({ token: user.access })).status).toBe(402);
  });

  it("finalize commits the reservation; used storage counts toward later presigns", async () => {
    const user = await signup();
    await setStorage(user.id, FREE_QUOTA - 2 * SMALL_PNG.byteLength);
    await directUpload(user.access);
    expect(await storage(user.id)).toEqual({ used: FREE_QUOTA - SMALL_PNG.byteLength, reserved: 0 });
    await directUpload(user.access);
    expect((await presign({ token: user.access })).status).toBe(402);
  });

  it("the statement helpers work alone and inside db.batch", async () => {
    const user = await signup();
    const db = shardDb(env, await shardOfUser(user.id));
    expect(await reserveQuota(db, user.id, "free", 1000)).toBe(true);
    expect(await reserveQuota(db, user.id, "free", FREE_QUOTA)).toBe(false);
    await db.batch([commitQuotaStatement(db, user.id, 600), releaseReservationStatement(db, user.id, 100)]);
    expect(await storage(user.id)).toEqual({ used: 600, reserved: 300 });
    await db.batch([freeStorageStatement(db, user.id, 200), releaseReservationStatement(db, user.id, 10_000)]);
    expect(await storage(user.id)).toEqual({ used: 400, reserved: 0 }); // never below zero
    await freeStorageStatement(db, user.id, 1000);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });

  it("upload-bound settling moves a reservation at most once, and only from the given states", async () => {
    const user = await signup();
    const db = shardDb(env, await shardOfUser(user.id));
    const pre = await presign({ token: user.access });
    const id = pre.body.uploadId;
    const size = SMALL_PNG.byteLength;
    expect(await storage(user.id)).toEqual({ used: 0, reserved: size });
    // wrong state: nothing moves
    await db.batch([commitUploadReservationStatement(db, id, ["uploaded"])]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: size });
    // commit then zero in one batch, twice: moved once
    const zero = () => ownerDb.prepare("UPDATE uploads SET reserved_bytes = 0, state = 'finalized' WHERE id = ? AND state = 'pending'").bind(id);
    await db.batch([commitUploadReservationStatement(db, id, ["pending"])]);
    await zero().run();
    await db.batch([commitUploadReservationStatement(db, id, ["pending", "finalized"]), releaseUploadReservationStatement(db, id, ["finalized"])]);
    expect(await storage(user.id)).toEqual({ used: size, reserved: 0 });
  });

  it("lives on the owner's shard: the first upload makes the owner's row there, the directory's counters stay 0", async () => {
    const user = await signup();
    expect(await ownerRow(user.id)).toBeNull();
    const pre = await presign({ token: user.access });
    expect(pre.status).toBe(201);
    expect(await ownerRow(user.id)).toMatchObject({ storage_used: 0, storage_reserved: SMALL_PNG.byteLength, banned_at: null, deleted_at: null });
    const users = () => env.DB.prepare("SELECT storage_used AS used, storage_reserved AS reserved FROM users WHERE id = ?").bind(user.id).first();
    expect(await users()).toEqual({ used: 0, reserved: 0 });
    await directUpload(user.access);
    expect(await storage(user.id)).toEqual({ used: SMALL_PNG.byteLength, reserved: SMALL_PNG.byteLength });
    expect(await users()).toEqual({ used: 0, reserved: 0 });
  });

  it("a first upload through multipart init or the form makes the row too; an anonymous upload makes none", async () => {
    const viaInit = await signup();
    const init = await call("/upload/multipart/init", { token: viaInit.access, body: { filename: "a.png", mime: "image/png", totalBytes: 1000 } });
    expect(init.status, init.text).toBe(201);
    expect(await ownerRow(viaInit.id)).toMatchObject({ storage_reserved: 1000 });

    const viaForm = await signup();
    const png = makePng(8, 8, 11);
    const body = new FormData();
    body.set("file", new File([png], "a.png", { type: "image/png" }));
    const req = new Request("http://x/", { method: "POST", body });
    const raw = new Uint8Array(await req.arrayBuffer());
    const headers = { "content-type": req.headers.get("content-type")!, "content-length": String(raw.byteLength) };
    const form = await call("/upload/form", { method: "POST", raw, token: viaForm.access, ip: randomIp(), headers });
    expect(form.status, form.text).toBe(201);
    expect(await ownerRow(viaForm.id)).toMatchObject({ storage_used: png.byteLength, storage_reserved: 0 });

    const before = (await ownerDb.prepare("SELECT COUNT(*) AS n FROM owners").first<{ n: number }>())!.n;
    expect((await presign()).status).toBe(201);
    expect((await ownerDb.prepare("SELECT COUNT(*) AS n FROM owners").first<{ n: number }>())!.n).toBe(before);
  });
});
