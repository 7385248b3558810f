// `alt` at upload (extensions.md § 8 and § 9) through the form and tus, with presign's bound: at most 1,000 characters.
import { beforeAll, describe, expect, it } from "vitest";
import { call, verifiedUser, type TestUser } from "../support/api";
import { SMALL_PNG, presign, uploadRow } from "../uploads/helpers";
import { create, pathOf } from "../uploads/tus/support";
import { fileRow } from "../support/files";

let owner: TestUser;
beforeAll(async () => {
  owner = await verifiedUser();
});

describe("alt at upload", () => {
  it("the form upload takes it as a text field", async () => {
    const form = new FormData();
    form.set("file", new Blob([SMALL_PNG], { type: "image/png" }), "a.png");
    form.set("alt", "A small square");
    const res = await call("/upload/form", { token: owner.access, raw: form });
    expect(res.status, res.text).toBe(201);
    expect((await call(`/files/${res.body.fileId}`, { token: owner.access })).body.alt).toBe("A small square");
  });

  it("tus takes it as an Upload-Metadata key; the file row carries it from the start", async () => {
    const res = await create({ token: owner.access }, 1000, { filename: "t.png", alt: "Tus alt" });
    expect(res.status, res.text).toBe(201);
    const upload = await uploadRow(pathOf(res).split("/").pop()!);
    expect((await fileRow(upload!.file_id))?.alt).toBe("Tus alt");
  });

  it("more than 1,000 characters or a control character is 400 validation_error at creation", async () => {
    for (const alt of ["x".repeat(1001), "line\u0001"]) {
      const res = await presign({ token: owner.access, extra: { alt } });
      expect(res.status).toBe(400);
      expect(res.body.details.code).toBe("validation_error");
    }
    expect((await create({ token: owner.access }, 1000, { filename: "t.png", alt: "x".repeat(1001) })).status).toBe(400);
    expect((await presign({ token: owner.access, extra: { alt: "x".repeat(1000) } })).status).toBe(201);
  });
});
