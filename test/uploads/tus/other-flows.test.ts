// Another flow's route used on a tus upload: the multipart routes, the direct PUT and finalize refuse it with their
// own code, and their message names the flow the upload really uses and where its bytes go.
import { beforeAll, describe, expect, it } from "vitest";
import { call, verifiedUser, type TestUser } from "../../support/api";
import { fileRow, uploadRow } from "../helpers";
import { create, pathOf } from "./support";

let owner: TestUser;
let uploadId: string;
let fileId: string;
let storeKey: string;
beforeAll(async () => {
  owner = await verifiedUser();
  const res = await create({ token: owner.access }, 1000, { filename: "a.png" });
  expect(res.status, res.text).toBe(201);
  uploadId = pathOf(res).split("/").pop()!;
  fileId = (await uploadRow(uploadId))!.file_id;
  storeKey = (await fileRow(fileId))!.store_key;
});

const namesTus = (res: { status: number; body: any }, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(409);
  expect(res.body.details).toMatchObject({ code, flow: "tus" });
  expect(res.body.message).toContain(`This is a tus upload: PATCH its bytes to /upload/tus/${uploadId}`);
  expect(res.body.message).not.toMatch(/direct upload|in parts/);
};

describe("a tus upload on another flow's routes", () => {
  it("the multipart routes: 409 not_multipart, naming tus", async () => {
    const token = owner.access;
    namesTus(await call(`/upload/multipart/${uploadId}/parts/1`, { method: "PUT", token, raw: new Uint8Array(10), headers: { "content-length": "10" } }), "not_multipart");
    namesTus(await call(`/upload/multipart/${uploadId}`, { token }), "not_multipart");
    namesTus(await call("/upload/multipart/complete", { token, body: { uploadId, fileId, storeKey, parts: [{ partNumber: 1, etag: "x" }] } }), "not_multipart");
    namesTus(await call(`/upload/multipart/${uploadId}`, { method: "DELETE", token }), "not_multipart");
  });

  it("the direct PUT: 409 multipart_upload, naming tus", async () => {
    namesTus(await call(`/upload/direct/${fileId}`, { method: "PUT", token: owner.access, raw: new Uint8Array(10) }), "multipart_upload");
  });

  it("finalize before the last byte: 409 not_uploaded, naming tus (its last PATCH finalizes it)", async () => {
    const res = await call("/upload/finalize", { token: owner.access, body: { uploadId, fileId, storeKey, storeEtag: "x" } });
    namesTus(res, "not_uploaded");
    expect(res.body.message).toMatch(/last PATCH finalizes it/);
  });
});
