// What a finalized upload keeps (uploads/finalize-answer.ts): the part of finalize's answer the file row may no
// longer hold, so a repeated finalize still answers the same body, and nothing the finished upload no longer needs.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { jobHandlers } from "../../src/jobs/queue";
import { call, signup } from "../support/api";
import { SMALL_PNG, directUpload, finalize, makePng, presign, putDirect, uploadRow } from "./helpers";
import { ownerDb } from "../support/shard-db";

// The analysis would bring a repeated answer up to date (decisions.md); these tests look at the stored answer.
beforeAll(() => {
  jobHandlers.analyze = { run: async () => {} };
});

describe("a finalized upload's row", () => {
  it("keeps the answer's changeable part only: no sha256, no addresses, the exact duplicates' ids", async () => {
    const user = await signup();
    const first = await directUpload(user.access);
    const second = await directUpload(user.access); // the same bytes: an exact duplicate of the first
    const row = (await uploadRow(second.pre.body.uploadId))!;
    expect(row).toMatchObject({ state: "finalized", sha256: null, r2_upload_id: null, reserved_bytes: 0 });
    expect(JSON.parse(row.finalize_response)).toEqual({
      width: 8,
      height: 8,
      nsfwScore: null,
      ageRestricted: false,
      visibility: "public",
      expiresAt: null,
      phash: null,
      duplicates: [first.pre.body.fileId],
    });
    expect(row.finalize_response.length).toBeLessThan(200); // the whole answer was ~450 characters
  });

  it("answers a repeated finalize with the first answer, after the file and its duplicates changed", async () => {
    const user = await signup();
    const first = await directUpload(user.access);
    const pre = await presign({ token: user.access });
    const etag = (await putDirect(pre.body.fileId, SMALL_PNG, user.access)).headers.get("etag")!;
    const hints = { width: 640, height: 480, phash: "abcdef0123456789", nsfwScore: 0.85 };
    const answer = await finalize(pre.body, etag, user.access, hints);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ...hints, ageRestricted: true, visibility: "public", duplicates: [{ fileId: first.pre.body.fileId, distance: 0, match: "exact" }] });

    // The file changes after finalize (visibility, expiry), and its duplicate goes.
    const patched = await call(`/files/${pre.body.fileId}`, { method: "PATCH", token: user.access, body: { visibility: "private", expiresIn: 3600 } });
    expect(patched.status).toBe(200);
    expect((await call(`/files/${first.pre.body.fileId}`, { method: "DELETE", token: user.access })).status).toBe(200);

    const again = await finalize(pre.body, etag, user.access, { width: 1, height: 1 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(answer.body);
  });

  it("a whole answer stored before the stored part shrank is answered as it was", async () => {
    const user = await signup();
    const { pre, put, fin } = await directUpload(user.access, makePng(9, 9, 3));
    // As the code before migration 0007 stored it, during a deploy.
    await ownerDb.prepare("UPDATE uploads SET finalize_response = ?1 WHERE id = ?2").bind(JSON.stringify(fin.body), pre.body.uploadId).run();
    const again = await finalize(pre.body, put.headers.get("etag")!, user.access);
    expect(again.body).toEqual(fin.body);
  });
});
