// POST /upload/tus (creation, creation-with-upload) and OPTIONS: extensions.md § 1, with presign's rules.
import { beforeAll, describe, expect, it } from "vitest";
import { call, verifiedUser, type TestUser } from "../../support/api";
import { uploadKeys } from "../../support/key-set";
import { SMALL_PNG, randomIp, setStorage, storage, uploadRow } from "../helpers";
import { TUS, create, head, metadata, pathOf } from "./support";
import { freshIp, setMultiplier } from "../../limits/support";
import { startOfNextWindow } from "../../support/clock";

let owner: TestUser;
let uploadKey: string;
let readKey: string;
let revokedKey: string;
let expiredKey: string;

beforeAll(async () => {
  owner = await verifiedUser();
  ({ upload: uploadKey, withoutUpload: readKey, revoked: revokedKey, expired: expiredKey } = await uploadKeys(owner));
});

const uploadIdOf = (path: string) => path.split("/").pop()!;

describe("OPTIONS /upload/tus", () => {
  it("answers 204 with the server's capabilities and the caller's plan limit", async () => {
    const anon = await call("/upload/tus", { method: "OPTIONS", ip: randomIp() });
    expect(anon.status).toBe(204);
    expect(Object.fromEntries([...anon.headers].filter(([k]) => k.startsWith("tus-")))).toEqual({
      "tus-version": "1.0.0",
      "tus-resumable": "1.0.0",
      "tus-extension": "creation,creation-with-upload,termination,expiration,checksum",
      "tus-checksum-algorithm": "sha1,sha256",
      "tus-max-size": String(10_000_000),
    });
    const free = await call("/upload/tus", { method: "OPTIONS", token: owner.access });
    expect(free.headers.get("tus-max-size")).toBe(String(20_000_000));
  });

  it("a CORS preflight from another origin allows the tus headers, without credentials", async () => {
    const res = await call("/upload/tus", {
      method: "OPTIONS",
      headers: { origin: "https://elsewhere.example", "access-control-request-method": "PATCH", "access-control-request-headers": "authorization,tus-resumable,upload-offset,content-type,upload-checksum" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
    const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase();
    for (const h of ["authorization", "tus-resumable", "upload-offset", "upload-length", "upload-metadata", "upload-checksum", "content-type"]) expect(allowed).toContain(h);
  });

  it("a cross-origin creation exposes the tus response headers to the page", async () => {
    const res = await create({ token: owner.access }, SMALL_PNG.length, { filename: "a.png" }, { headers: { origin: "https://elsewhere.example" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = res.headers.get("access-control-expose-headers")!.toLowerCase();
    for (const h of ["location", "upload-offset", "upload-length", "upload-expires", "tus-resumable", "upload-file-id", "upload-file-url", "upload-token"]) expect(exposed).toContain(h);
  });
});

describe("POST /upload/tus", () => {
  it("201 with Location, Upload-Offset 0 and Upload-Expires; the records and the reservation are presign's", async () => {
    const before = await storage(owner.id);
    const res = await create({ token: owner.access }, 123_456, { filename: "holiday.png", title: "Holiday", visibility: "unlisted", tags: "sea, sun" });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("location")).toMatch(/^http:\/\/localhost:8787\/api\/v1\/upload\/tus\/upl_/);
    expect(res.headers.get("upload-offset")).toBe("0");
    expect(res.headers.get("tus-resumable")).toBe("1.0.0");
    const expires = Date.parse(res.headers.get("upload-expires")!);
    expect(expires - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(res.headers.get("upload-token")).toBeNull(); // only anonymous creators get one
    const row = await uploadRow(uploadIdOf(pathOf(res)));
    expect(row).toMatchObject({ kind: "tus", state: "pending", bytes: 123_456 });
    expect((await storage(owner.id)).reserved).toBe(before.reserved + 123_456);
    const h = await head({ token: owner.access }, pathOf(res));
    expect(h.status).toBe(200);
    expect(h.headers.get("upload-length")).toBe("123456");
    expect(h.headers.get("upload-metadata")).toBe(metadata({ filename: "holiday.png", title: "Holiday", visibility: "unlisted", tags: "sea, sun" }));
    expect(h.headers.get("cache-control")).toBe("no-store");
  });

  it("an API key with `upload` may create; without it 403; revoked and expired keys 401", async () => {
    expect((await create({ token: uploadKey }, 1000)).status).toBe(201);
    const noPerm = await create({ token: readKey }, 1000);
    expect(noPerm.status).toBe(403);
    expect(noPerm.body.details).toMatchObject({ code: "missing_permission", permission: "upload" });
    expect((await create({ token: revokedKey }, 1000)).body).toMatchObject({ error: "API key has been revoked" });
    expect((await create({ token: expiredKey }, 1000)).status).toBe(401);
  });

  it("anonymous callers get Upload-Token and Upload-Delete-Token; private is refused", async () => {
    const res = await create({}, 1000, { filename: "a.png" });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("upload-token")).toMatch(/^ey/);
    expect(res.headers.get("upload-delete-token")).toBeTruthy();
    const h = await head({ token: res.headers.get("upload-token")! }, pathOf(res));
    expect(h.status).toBe(200);
    expect((await create({}, 1000, { filename: "a.png", visibility: "private" })).body.details.code).toBe("private_requires_account");
  });

  it("Tus-Resumable missing or wrong: 412 with Tus-Version and the contract's body", async () => {
    for (const value of [undefined, "0.2.2"]) {
      const headers: Record<string, string> = { "upload-length": "1000", "upload-metadata": metadata({ filename: "a.png" }) };
      if (value) headers["tus-resumable"] = value;
      const res = await call("/upload/tus", { method: "POST", token: owner.access, headers });
      expect(res.status).toBe(412);
      expect(res.headers.get("tus-version")).toBe("1.0.0");
      expect(res.body).toMatchObject({ error: "Precondition Failed", details: { code: "tus_version_unsupported" } });
    }
  });

  it("400 for a missing or malformed Upload-Length, Upload-Defer-Length, bad metadata, or no filename", async () => {
    const post = (headers: Record<string, string>) => call("/upload/tus", { method: "POST", token: owner.access, headers: { ...TUS, ...headers } });
    const meta = metadata({ filename: "a.png" });
    expect((await post({ "upload-metadata": meta })).body.details).toMatchObject({ code: "invalid_tus_header", header: "Upload-Length" });
    expect((await post({ "upload-length": "-5", "upload-metadata": meta })).body.details.code).toBe("invalid_tus_header");
    expect((await post({ "upload-length": "0", "upload-metadata": meta })).body.details.code).toBe("invalid_tus_header");
    expect((await post({ "upload-defer-length": "1", "upload-metadata": meta })).body.details.code).toBe("deferred_length_unsupported");
    expect((await post({ "upload-length": "10", "upload-metadata": "filename not*base64" })).body.details).toMatchObject({ code: "invalid_tus_header", header: "Upload-Metadata" });
    const noName = await post({ "upload-length": "10", "upload-metadata": metadata({ title: "x" }) });
    expect(noName.status).toBe(400);
    expect(noName.body.details.code).toBe("validation_error");
  });

  it("Upload-Metadata over 4 KB: 400 validation_error before anything else, and no upload is created; 4 KB is taken", async () => {
    const before = await storage(owner.id);
    // An extra key (ignored, as clients' own keys are) fills the header to exactly `n` characters.
    const sized = (n: number) => {
      const prefix = `filename ${btoa("a.png")},notes `;
      return prefix + "A".repeat(n - prefix.length);
    };
    const post = (meta: string) => call("/upload/tus", { method: "POST", token: owner.access, headers: { ...TUS, "upload-length": "1000", "upload-metadata": meta } });
    for (const n of [4097, 23 * 1024, 200 * 1024]) {
      const res = await post(sized(n));
      expect(res.status, `${n} bytes`).toBe(400);
      expect(res.body.details, `${n} bytes`).toMatchObject({ code: "validation_error", fields: [{ path: "Upload-Metadata" }] });
      expect(res.body.message).toMatch(/4096 bytes/);
    }
    expect(await storage(owner.id)).toEqual(before); // nothing reserved
    const exact = await post(sized(4096));
    expect(exact.status, exact.text).toBe(201);
    expect((await head({ token: owner.access }, pathOf(exact))).headers.get("upload-metadata")).toBe(sized(4096));
  });

  it("413 over the plan's file size, 402 past the quota, 415 for a type that is not an image", async () => {
    const big = await create({ token: owner.access }, 20_000_001);
    expect(big.status).toBe(413);
    expect(big.body.details).toMatchObject({ code: "file_too_large", limit: 20_000_000 });
    const user = await verifiedUser();
    await setStorage(user.id, 2 * 1024 ** 3 - 500);
    const over = await create({ token: user.access }, 1000);
    expect(over.status).toBe(402);
    expect(over.body.details.code).toBe("quota_exceeded");
    expect((await create({ token: owner.access }, 1000, { filename: "notes.txt" })).status).toBe(415);
    expect((await create({ token: owner.access }, 1000, { filename: "a.png", filetype: "text/html" })).status).toBe(415);
    // the type comes from `filetype` first, then the name's extension
    expect((await create({ token: owner.access }, 1000, { filename: "photo", filetype: "image/jpeg" })).status).toBe(201);
  });

  it("an albumId must be one of the caller's albums: anyone else's is 404 album_not_found; an `upload` key needs no more", async () => {
    const other = await verifiedUser();
    const visible = await call("/albums", { token: other.access, body: { title: "Theirs", visibility: "public" } });
    const hidden = await call("/albums", { token: other.access, body: { title: "Hidden", visibility: "private" } });
    for (const albumId of [visible.body.id, hidden.body.id]) {
      const theirs = await create({ token: owner.access }, 1000, { filename: "a.png", albumId });
      expect(theirs.status).toBe(404);
      expect(theirs.body.details.code).toBe("album_not_found");
    }
    const mine = await call("/albums", { token: owner.access, body: { title: "Mine" } });
    expect((await create({ token: uploadKey }, 1000, { filename: "a.png", albumId: mine.body.id })).status).toBe(201);
    expect((await create({ token: owner.access }, 1000, { filename: "a.png", albumId: mine.body.id })).status).toBe(201);
  });

  it("counts against the upload rate limit: the anonymous plan's sixth creation in an hour is 429", async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    setMultiplier("1"); // the real limits, for this test only
    const realClock = startOfNextWindow(3600); // all six in one hourly window
    try {
      for (let i = 0; i < 6; i++) statuses.push((await create({ ip }, 1000)).status);
    } finally {
      realClock();
      setMultiplier("1000");
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  });

  it("creation-with-upload: the body is the first chunk", async () => {
    const res = await create({ token: owner.access }, SMALL_PNG.length + 10, { filename: "a.png" }, { body: SMALL_PNG });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("upload-offset")).toBe(String(SMALL_PNG.length));
    const whole = await create({ token: owner.access }, SMALL_PNG.length, { filename: "a.png" }, { body: SMALL_PNG });
    expect(whole.status, whole.text).toBe(201);
    expect(whole.headers.get("upload-offset")).toBe(String(SMALL_PNG.length));
    expect(whole.headers.get("upload-file-id")).toMatch(/^file_/);
    const wrongType = await create({ token: owner.access }, 1000, { filename: "a.png" }, { body: SMALL_PNG, headers: { "content-type": "image/png" } });
    expect(wrongType.status).toBe(415);
    expect(wrongType.body.details.code).toBe("offset_octet_stream_required");
  });

  it("is in the OpenAPI document with its error codes", async () => {
    const doc = (await call("/openapi.json")).body;
    expect(Object.keys(doc.paths["/upload/tus"])).toEqual(expect.arrayContaining(["options", "post"]));
    expect(Object.keys(doc.paths["/upload/tus/{uploadId}"])).toEqual(expect.arrayContaining(["get", "patch", "delete"]));
  });
});
