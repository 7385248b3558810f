// `?error=` shows only messages of the service's own closed set of codes (pages/app/error-param.tsx): on every
// page that renders it, any other text (a phishing line, markup, a code with more after it, an Object prototype
// name) shows nothing at all, and a known code shows its message. The redirects after failed form posts carry a
// code, never a message. My files' `?deleted=` shows a count, never text.
import { describe, expect, it } from "vitest";
import { call, verifiedUser, type TestUser } from "../support/api";
import { userWithRole } from "../support/moderation";
import { withPasskey } from "../support/passkeys";
import { SITE, csrfOf, page as sitePage } from "../support/pages";
import { errorCodeOf, errorText } from "../../src/pages/app/error-param";

const cookieOf = (u: TestUser) => `__Host-session=${u.access}~${u.refresh}`;
const page = (path: string, cookie: string, form?: Record<string, string>) => sitePage(path, { cookie, form, origin: SITE });

const HOSTILE = [
  "Your account is locked. Call +1 555 0100 to unlock it",
  "<b>Verify your card</b>",
  "file_not_found and call us",
  "FILE_NOT_FOUND",
  "__proto__",
  "toString",
  "constructor",
];

/** Every page that renders `?error=`, for a user who may open each (a moderator, with an album and a passkey). */
async function pagesWithErrorParam() {
  const user = await userWithRole("moderator");
  const album = await call("/albums", { token: user.access, body: { title: "A" } });
  const { passkey } = await withPasskey(user);
  return { cookie: cookieOf(user), paths: ["/app/files", "/app/albums", `/app/albums/${album.body.id}`, "/app/account", "/app/moderation", `/app/account/passkeys/${passkey.id}/remove`] };
}

const escaped = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

describe("?error= on the web app's pages", () => {
  it("shows none of any text outside the closed set, on every page that renders it", async () => {
    const { cookie, paths } = await pagesWithErrorParam();
    for (const path of paths) {
      const plain = await page(path, cookie);
      expect(plain.status, path).toBe(200);
      for (const text of HOSTILE) {
        const p = await page(`${path}?error=${encodeURIComponent(text)}`, cookie);
        expect(p.status, path).toBe(200);
        expect(p.text, `${path} ${text}`).not.toContain(text);
        expect(p.text, `${path} ${text}`).not.toContain(escaped(text));
        expect(p.text, `${path} ${text}`).not.toContain('class="notice error"');
      }
    }
  });

  it("a known code shows the service's own message: the API's codes and the pages' own", async () => {
    const { cookie, paths } = await pagesWithErrorParam();
    for (const path of paths) {
      for (const [code, message] of [
        ["file_not_found", "That file was not found."],
        ["no_selection", "Select at least one file first."],
        ["file_under_review", "The file is hidden for moderation review: it can be deleted, not changed, until the review ends."],
      ]) {
        const p = await page(`${path}?error=${code}`, cookie);
        expect(p.text, `${path} ${code}`).toContain(`<p class="notice error" role="alert">${message}</p>`);
      }
    }
  });

  it("a failed form post redirects with a code, and the page it lands on says the code's message", async () => {
    const user = await verifiedUser();
    const cookie = cookieOf(user);
    const csrf = csrfOf((await page("/app/account", cookie)).text);
    const none = await page("/app/files", cookie, { _csrf: csrf, action: "public", back: "/app/files" });
    expect(none.headers.get("location")).toBe("/app/files?error=no_selection");
    expect((await page(none.headers.get("location")!, cookie)).text).toContain("Select at least one file first.");

    const wrong = await page("/app/account/delete", cookie, { _csrf: csrf, password: "not the password", confirm: "1" });
    expect(wrong.headers.get("location")).toBe("/app/account?error=invalid_password");
    expect((await page(wrong.headers.get("location")!, cookie)).text).toContain("The password is not correct.");

    const album = await call("/albums", { token: user.access, body: { title: "B" } });
    const empty = await page(`/app/albums/${album.body.id}/add`, cookie, { _csrf: csrf });
    expect(empty.headers.get("location")).toBe(`/app/albums/${album.body.id}?error=no_images`);
  });

  it("My files' ?deleted= is a count: text shows nothing", async () => {
    const cookie = cookieOf(await verifiedUser());
    expect((await page("/app/files?deleted=3", cookie)).text).toContain("3 files were deleted.");
    const hostile = await page(`/app/files?deleted=${encodeURIComponent(HOSTILE[0])}`, cookie);
    expect(hostile.text).not.toContain(HOSTILE[0]);
    expect(hostile.text).not.toContain("were deleted");
  });

  it("the code of a refused call: its details.code when it is one of ours, else a generic one", () => {
    expect(errorCodeOf({ status: 404, body: { details: { code: "album_not_found" } } })).toBe("album_not_found");
    expect(errorCodeOf({ status: 429, body: {} })).toBe("rate_limited");
    for (const code of ["Call us", "__proto__", 42, undefined]) expect(errorCodeOf({ status: 400, body: { details: { code } } })).toBe("request_failed");
    expect(errorText("request_failed")).toBe("That did not work: please try again.");
    expect(errorText("owner_moving")).toMatch(/being moved/);
    for (const text of HOSTILE) expect(errorText(text)).toBeUndefined();
  });
});
