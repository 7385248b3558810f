import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { PLAN_LIMITS } from "../../src/config";
import { crossDb, directoryDb } from "../../src/platform/db";
import {
  commitQuotaStatement,
  commitUploadReservationStatement,
  freeStorageStatement,
  releaseReservationStatement,
  releaseUploadReservationStatement,
  reserveQuota,
} from "../../src/uploads/quota";
import { signup } from "../support/api";
import { SMALL_PNG, directUpload, presign, setStorage, storage } from "./helpers";

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
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM uploads WHERE user_id = ?").bind(user.id).first<{ n: number }>();
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
    const db = directoryDb(env);
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
    const db = crossDb(env);
    const pre = await presign({ token: user.access });
    const id = pre.body.uploadId;
    const size = SMALL_PNG.byteLength;
    expect(await storage(user.id)).toEqual({ used: 0, reserved: size });
    // wrong state: nothing moves
    await db.batch([commitUploadReservationStatement(db, id, ["uploaded"])]);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: size });
    // commit then zero in one batch, twice: moved once
    const zero = () => env.DB.prepare("UPDATE uploads SET reserved_bytes = 0, state = 'finalized' WHERE id = ? AND state = 'pending'").bind(id);
    await db.batch([commitUploadReservationStatement(db, id, ["pending"])]);
    await zero().run();
    await db.batch([commitUploadReservationStatement(db, id, ["pending", "finalized"]), releaseUploadReservationStatement(db, id, ["finalized"])]);
    expect(await storage(user.id)).toEqual({ used: size, reserved: 0 });
  });
});
