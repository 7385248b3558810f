// Every form post of the pages: a small body limit (413), an unreadable body 400, and no input at all that
// makes them answer 5xx (a probe found multipart without a boundary gave 500 on four of them).
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { PASSWORD, uniqueEmail, uniqueUsername, call, signup } from "../support/api";
import { SITE, page, sessionCookie } from "../support/pages";

let cookie: string;
let albumId: string;
let FORM_ROUTES: string[];

beforeAll(async () => {
  const res = await page("/app/signup", { form: { email: uniqueEmail("forms"), username: uniqueUsername("f"), password: PASSWORD }, origin: SITE });
  cookie = sessionCookie(res);
  const owner = await signup();
  albumId = (await call("/albums", { token: owner.access, body: { title: "Forms", password: "album password" } })).body.id;
  const fileId = "file_AAAAAAAAAAAAAAAAAAAAA";
  FORM_ROUTES = [
    "/app/login",
    "/app/signup",
    "/verify-email",
    "/app/resend-verification",
    "/app/logout",
    "/app/upload",
    "/app/keys",
    "/app/files",
    "/app/sharex",
    "/app/keys/key_AAAAAAAAAAAAAAAAAAAAA/revoke",
    `/app/files/${fileId}/delete`,
    `/app/files/${fileId}/edit`,
    "/app/account",
    "/app/account/delete",
    "/app/albums",
    `/app/albums/${albumId}`,
    `/app/albums/${albumId}/cover`,
    `/app/albums/${albumId}/add`,
    `/app/albums/${albumId}/delete`,
    "/app/moderation/rep_AAAAAAAAAAAAAAAAAAAAA/resolve",
    `/a/${albumId}`,
  ];
});

function post(path: string, body: BodyInit | null, headers: Record<string, string>, withCookie: boolean) {
  return exports.default.fetch(`${SITE}${path}`, {
    method: "POST",
    headers: { origin: SITE, ...(withCookie ? { cookie } : {}), ...headers },
    body,
    redirect: "manual",
  });
}

describe("page form posts", () => {
  it("multipart without a boundary is a 400 on every form route, signed in or not", async () => {
    for (const path of FORM_ROUTES) {
      for (const withCookie of [false, true]) {
        const res = await post(path, "email=a&password=b", { "content-type": "multipart/form-data" }, withCookie);
        expect(res.status, `${path} ${withCookie}`).toBe(400);
        expect(await res.text()).toContain("could not be read");
      }
    }
  });

  it("a 30 MB form is refused with 413 before it is read (the upload form has the Workers cap)", async () => {
    const big = new Uint8Array(30 * 1024 * 1024).fill(0x61);
    for (const path of ["/app/login", "/app/signup", "/verify-email", "/app/keys", `/a/${albumId}`]) {
      const res = await post(path, big, { "content-type": "application/x-www-form-urlencoded" }, true);
      expect(res.status, path).toBe(413);
      await res.body?.cancel();
    }
    const huge = await post("/app/upload", new Uint8Array(101 * 1024 * 1024), { "content-type": "multipart/form-data; boundary=x" }, true);
    expect(huge.status).toBe(413);
  });

  it("arbitrary content types and bodies never give a 5xx (property)", async () => {
    const contentType = fc.oneof(
      fc.constantFrom(
        "multipart/form-data",
        "multipart/form-data; boundary=",
        "multipart/form-data; boundary=abc",
        'multipart/form-data; boundary="unterminated',
        "application/x-www-form-urlencoded",
        "application/x-www-form-urlencoded; charset=utf-16",
        "application/json",
        "text/plain",
        "",
      ),
      fc.string({ maxLength: 60 }),
    );
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 2048 }),
      fc.string({ maxLength: 300 }).map((s) => new TextEncoder().encode(s)),
      fc.constantFrom("--abc\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nv\r\n--abc--\r\n", "%zz=%%&a=1", "_csrf=x&email=a%40b.c").map((s) => new TextEncoder().encode(s)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FORM_ROUTES), contentType, body, fc.boolean(), async (path, type, bytes, withCookie) => {
        const headers: Record<string, string> = {};
        if (type !== "") headers["content-type"] = type;
        const res = await post(path, bytes, headers, withCookie);
        await res.body?.cancel();
        expect(res.status, `${path} ${JSON.stringify(type)}`).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });
});
