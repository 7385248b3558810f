import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createKey, signup, verifiedUser } from "../support/api";
import { SMALL_PNG, fileRow, makePng, randomIp, sameBytes, sha256, storage } from "./helpers";

function form(bytes: Uint8Array, fields: Record<string, string> = {}, filename = "shot.png", type = "image/png") {
  const f = new FormData();
  f.set("file", new File([bytes], filename, { type }));
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
}

async function post(body: FormData | string, opts: { token?: string; ip?: string; headers?: Record<string, string> } = {}) {
  // Serialise the form so the request carries a Content-Length, as ShareX and curl send it.
  const req = new Request("http://x/", { method: "POST", body });
  const bytes = new Uint8Array(await req.arrayBuffer());
  return call("/upload/form", {
    method: "POST",
    raw: bytes,
    token: opts.token,
    ip: opts.ip ?? randomIp(),
    headers: { "content-type": req.headers.get("content-type")!, "content-length": String(bytes.byteLength), ...opts.headers },
  });
}

describe("POST /upload/form (one-request upload, e.g. ShareX)", () => {
  it("stores, verifies and finalizes in one request; the bytes read back identical", async () => {
    const user = await verifiedUser();
    const { key } = await createKey(user, { permissions: ["upload"] });
    const res = await post(form(SMALL_PNG, { title: "From ShareX", visibility: "unlisted", expiresIn: "3600" }), { token: key });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ mime: "image/png", bytes: SMALL_PNG.byteLength, visibility: "unlisted", duplicates: [] });
    expect(res.body.url).toBe(`http://localhost:8787/i/${res.body.fileId}`);
    expect(res.body.deleteToken).toBeUndefined();
    const row = await fileRow(res.body.fileId);
    expect(row).toMatchObject({ state: "finalized", title: "From ShareX", sha256: await sha256(SMALL_PNG), analysis: "pending" });
    expect(row!.expires_at).not.toBeNull();
    const object = await env.BUCKET.get(row!.store_key);
    expect(sameBytes(new Uint8Array(await object!.arrayBuffer()), SMALL_PNG)).toBe(true);
    expect(await storage(user.id)).toEqual({ used: SMALL_PNG.byteLength, reserved: 0 });
    // the same image again is an exact duplicate
    const again = await post(form(SMALL_PNG), { token: key });
    expect(again.body.duplicates).toEqual([{ fileId: res.body.fileId, url: res.body.url, distance: 0, match: "exact" }]);
  });

  it("anonymous callers get a delete token", async () => {
    const res = await post(form(makePng(8, 8, 3)));
    expect(res.status, res.text).toBe(201);
    expect(res.body.deleteToken).toEqual(expect.any(String));
    const del = await call(`/files/${res.body.fileId}`, { method: "DELETE", headers: { "x-delete-token": res.body.deleteToken } });
    expect(del.status).toBe(200);
  });

  it("refuses what the direct flow refuses and keeps nothing", async () => {
    const user = await signup();
    // not an image under an image type: 415 magic_mismatch, the upload ends, nothing stored or reserved
    const fake = await post(form(new TextEncoder().encode("<html>not a png</html>")), { token: user.access });
    expect(fake.status).toBe(415);
    expect(fake.body.details.code).toBe("magic_mismatch");
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
    // a type outside the allow-list
    const svg = await post(form(new TextEncoder().encode("<svg/>"), {}, "x.svg", "image/svg+xml"), { token: user.access });
    expect(svg.status).toBe(415);
    // no file field, bad fields, not a form
    expect((await post(new FormData(), { token: user.access })).body.details.code).toBe("missing_file");
    const bad = await post(form(SMALL_PNG, { visibility: "secret" }), { token: user.access });
    expect(bad.status).toBe(400);
    expect(bad.body.details.fields[0].path).toBe("visibility");
    const notForm = await call("/upload/form", { method: "POST", raw: "hello", token: user.access, headers: { "content-type": "text/plain", "content-length": "5" } });
    expect(notForm.status).toBe(400);
    // over the plan's size limit: 413 before the body is read
    const huge = await call("/upload/form", {
      method: "POST",
      raw: "x",
      token: user.access,
      headers: { "content-type": "multipart/form-data; boundary=x", "content-length": String(25_000_000) },
    });
    expect(huge.status).toBe(413);
    expect(await storage(user.id)).toEqual({ used: 0, reserved: 0 });
  });

  it("needs the upload permission for API keys; revoked keys are refused", async () => {
    const user = await verifiedUser();
    const readOnly = await createKey(user, { permissions: ["read"] });
    expect((await post(form(SMALL_PNG), { token: readOnly.key })).status).toBe(403);
    const uploader = await createKey(user, { permissions: ["upload"] });
    await call(`/keys/${uploader.id}`, { method: "DELETE", token: user.access });
    const revoked = await post(form(SMALL_PNG), { token: uploader.key });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error).toBe("API key has been revoked");
  });
});
