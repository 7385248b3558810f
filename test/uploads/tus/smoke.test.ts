import { describe, expect, it } from "vitest";
import { signup } from "../../support/api";
import { makePng, sha256 } from "../helpers";
import { env } from "cloudflare:workers";
import { MiB, create, head, pathOf, sendChunks, status } from "./support";

describe("smoke", () => {
  it("uploads a file in 3 MiB chunks", async () => {
    const user = await signup();
    const png = makePng(1200, 3000, 5);
    const c = await create({ token: user.access }, png.length);
    expect(c.status, c.text).toBe(201);
    const path = pathOf(c);
    const last = await sendChunks({ token: user.access }, path, png, 3 * MiB);
    expect(last.status, last.text).toBe(204);
    expect(last.headers.get("upload-file-id")).toMatch(/^file_/);
    const h = await head({ token: user.access }, path);
    expect(h.headers.get("upload-offset")).toBe(String(png.length));
    const s = await status({ token: user.access }, path);
    expect(s.body.state).toBe("complete");
    const obj = await env.BUCKET.get(s.body.file.cdnUrl ? (await env.BUCKET.list()).objects.find((o) => o.key.includes(s.body.file.fileId))!.key : "");
    expect(await sha256(new Uint8Array(await obj!.arrayBuffer()))).toBe(await sha256(png));
  });
});
