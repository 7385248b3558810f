// An upload whose state was removed (terminated, or failed at completion) answers as the contract says, while its
// Durable Object is still the live instance that removed it: 404 after DELETE (extensions.md § 1 "termination"),
// GET `state: "failed"` after a failed magic check. The object's deleteAll() drops its tables; reads after it
// used to throw "no such table" (500).
import { describe, expect, it } from "vitest";
import { signup } from "../../support/api";
import { makePng } from "../helpers";
import { MiB, TUS, create, head, patch, pathOf, status, terminate } from "./support";

describe("a tus upload after its state was removed", () => {
  it("is 404 to HEAD, GET and PATCH after DELETE", async () => {
    const user = await signup();
    const png = makePng(1200, 1000, 3);
    const c = await create({ token: user.access }, png.length);
    expect(c.status, c.text).toBe(201);
    const path = pathOf(c);
    expect((await patch({ token: user.access }, path, 0, png.subarray(0, MiB))).status).toBe(204);

    expect((await terminate({ token: user.access }, path)).status).toBe(204);
    expect((await head({ token: user.access }, path)).status).toBe(404);
    const s = await status({ token: user.access }, path);
    expect(s.status, s.text).toBe(404);
    expect(s.body.details.code).toBe("upload_not_found");
    expect((await patch({ token: user.access }, path, MiB, png.subarray(MiB))).status).toBe(404);
    expect((await terminate({ token: user.access }, path)).status).toBe(404);
  });

  it("answers GET with state failed after the last chunk fails the magic check", async () => {
    const user = await signup();
    const notAnImage = crypto.getRandomValues(new Uint8Array(64 * 1024));
    const c = await create({ token: user.access }, notAnImage.length, { filename: "fake.png", filetype: "image/png" });
    expect(c.status, c.text).toBe(201);
    const path = pathOf(c);
    const last = await patch({ token: user.access }, path, 0, notAnImage);
    expect(last.status, last.text).toBe(415);
    expect(last.headers.get("tus-resumable")).toBe(TUS["tus-resumable"]);

    const s = await status({ token: user.access }, path);
    expect(s.status, s.text).toBe(200);
    expect(s.body).toMatchObject({ length: notAnImage.length, state: "failed", file: null });
    // to a tus client a failed upload is gone: HEAD is 404, and GET says why
    expect((await head({ token: user.access }, path)).status).toBe(404);
  });
});
