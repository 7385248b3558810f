// The webhooks pages of the account area: list, create (the secret shown once), ping, deliveries with their
// status, retry, turn off/on and delete. Pings reach the fake receiver (no network).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import { PASSWORD, uniqueEmail, uniqueUsername } from "../support/api";
import { SITE, csrfOf, page, sessionCookie } from "../support/pages";
import { fakeReceiver, sentTo, type Receiver } from "../webhooks/support";

let receiver: Receiver;
beforeAll(() => {
  receiver = fakeReceiver();
});
afterAll(() => receiver.restore());

async function signedUp() {
  const res = await page("/app/signup", { form: { email: uniqueEmail("hook"), username: uniqueUsername("h"), password: PASSWORD }, origin: SITE });
  expect(res.status).toBe(303);
  return { cookie: sessionCookie(res) };
}

describe("/app/webhooks", () => {
  it("needs a session", async () => {
    const res = await page("/app/webhooks");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toContain("/app/login");
  });

  it("is linked from the account page", async () => {
    const { cookie } = await signedUp();
    expect((await page("/app/account", { cookie })).text).toContain('href="/app/webhooks"');
  });

  it("creates an endpoint showing the secret once, pings it and shows the delivery; retry, turn off and delete", async () => {
    const { cookie } = await signedUp();
    const empty = await page("/app/webhooks", { cookie });
    expect(empty.status).toBe(200);
    expect(empty.text).toContain("No endpoints yet.");
    const csrf = csrfOf(empty.text);
    const url = `https://hooks.example.com/page/${crypto.randomUUID()}`;

    const refused = await page("/app/webhooks", { cookie, form: { _csrf: csrf, url: "ftp://hooks.example.com/x", events: ["file.created"] }, origin: SITE });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("cannot receive webhooks");

    const created = await page("/app/webhooks", { cookie, form: { _csrf: csrf, url, events: ["file.created", "file.deleted"], description: "my server" }, origin: SITE });
    expect(created.status).toBe(200);
    const secret = /<code id="new-hook-secret">(whsec_[^<]+)<\/code>/.exec(created.text)?.[1];
    expect(secret).toMatch(/^whsec_/);
    const listed = await page("/app/webhooks", { cookie });
    expect(listed.text).toContain(url);
    expect(listed.text).toContain("file.created, file.deleted");
    expect(listed.text).not.toContain(secret!);
    const id = new RegExp(`href="/app/webhooks/(whk_[^"]+)">${url.replace(/[/.]/g, "\\$&")}`).exec(listed.text)?.[1];
    expect(id).toMatch(/^whk_/);

    const pinged = await page(`/app/webhooks/${id}/ping`, { cookie, form: { _csrf: csrf }, origin: SITE });
    expect(pinged.status).toBe(200);
    expect(pinged.text).toContain("Ping queued");
    const detail = await vi.waitFor(
      async () => {
        const res = await page(`/app/webhooks/${id}`, { cookie });
        expect(res.text).toContain('<td data-label="Status">succeeded</td>');
        return res;
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(detail.text).toContain('<td data-label="Event">ping</td>');
    expect(detail.text).toMatch(/<td data-label="Answer">200<\/td>/);
    const [sent] = sentTo(receiver, url);
    expect(new Webhook(secret!).verify(sent.body, sent.headers)).toMatchObject({ type: "ping" });

    const deliveryId = /action="\/app\/webhooks\/[^/]+\/deliveries\/(whd_[^/]+)\/retry"/.exec(detail.text)?.[1];
    const retried = await page(`/app/webhooks/${id}/deliveries/${deliveryId}/retry`, { cookie, form: { _csrf: csrf }, origin: SITE });
    expect(retried.text).toContain("Retry queued.");
    await vi.waitFor(() => expect(sentTo(receiver, url)).toHaveLength(2), { timeout: 15_000, interval: 100 });

    const off = await page(`/app/webhooks/${id}/enabled`, { cookie, form: { _csrf: csrf, enabled: "0" }, origin: SITE });
    expect(off.text).toContain('<strong id="hook-state">off</strong>');
    // Deleting asks first: without the ticked box (no browser check) nothing goes.
    const unconfirmed = await page(`/app/webhooks/${id}/delete`, { cookie, form: { _csrf: csrf }, origin: SITE });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.text).toContain("Yes, delete this endpoint");
    expect((await page(`/app/webhooks/${id}`, { cookie })).text).toContain('id="hook-state"');
    const deleted = await page(`/app/webhooks/${id}/delete`, { cookie, form: { _csrf: csrf, confirm: "1" }, origin: SITE });
    expect(deleted.status).toBe(303);
    expect((await page("/app/webhooks?deleted=1", { cookie })).text).toContain("The endpoint was deleted.");
  });

  it("a refused endpoint is shown again as typed, the message beside its field", async () => {
    const { cookie } = await signedUp();
    const csrf = csrfOf((await page("/app/webhooks", { cookie })).text);
    const refused = await page("/app/webhooks", { cookie, form: { _csrf: csrf, url: "ftp://hooks.example.com/x", events: ["album.created"], description: "typed" }, origin: SITE });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/<input id="hurl"[^>]*value="ftp:\/\/hooks\.example\.com\/x"[^>]*aria-invalid="true"/);
    expect(refused.text).toMatch(/<p class="field-error" id="hurl-error">[^<]+<\/p>/);
    expect(refused.text).toMatch(/<input id="hdesc"[^>]*value="typed"/);
    expect(refused.text).toMatch(/value="album.created" checked/);
    expect(refused.text).not.toMatch(/value="file.created" checked/);
  });

  it("another user's endpoint page says it is not found", async () => {
    const a = await signedUp();
    const b = await signedUp();
    const csrf = csrfOf((await page("/app/webhooks", { cookie: a.cookie })).text);
    const created = await page("/app/webhooks", { cookie: a.cookie, form: { _csrf: csrf, url: "https://hooks.example.com/mine", events: ["file.created"] }, origin: SITE });
    const id = /href="\/app\/webhooks\/(whk_[^"]+)"/.exec(created.text)?.[1];
    const theirs = await page(`/app/webhooks/${id}`, { cookie: b.cookie });
    expect(theirs.text).toContain("Webhook endpoint not found");
    expect(theirs.text).not.toContain("hooks.example.com/mine");
  });
});
