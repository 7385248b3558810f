// Webhooks end to end (extensions.md § 4): `wrangler dev` with its local queue delivers to a receiver on
// 127.0.0.1 (let through the address rules by OUTBOUND_ALLOW_HOSTS), and every request is checked with the
// Standard Webhooks reference verifier. The endpoint is added and pinged through the web app in chromium.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { DESKTOP, accessToken, gradientBmp, openPage, signUp, startApp, suitePort, uploadForm, watch } from "./support.mjs";

const PORT = suitePort(14);
const RECEIVER_PORT = PORT + 2000;
let app;
let receiver;
/** Every request the receiver got: its headers and raw body. */
const received = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve, reject) => receiver.once("error", reject).listen(RECEIVER_PORT, "127.0.0.1", resolve));
  app = await startApp(PORT, { OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${RECEIVER_PORT}`, FINALIZE_WAIT_MS: "0" });
});

afterAll(async () => {
  await app?.stop();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve()));
});

/** Waits (bounded) for a request of `type` at `path`, verified with the secret; returns the verified body. */
async function verifiedEvent(secret, path, type, timeout = 60_000) {
  let found;
  await expect
    .poll(
      () => {
        for (const r of received.filter((x) => x.path === path)) {
          const event = new Webhook(secret).verify(r.body, r.headers);
          if (event.type === type) found = { event, headers: r.headers };
        }
        return Boolean(found);
      },
      { timeout, interval: 200 },
    )
    .toBe(true);
  return found;
}

describe("webhooks against wrangler dev", () => {
  it("an endpoint added in the web app receives a signed ping and file events from the queue", async () => {
    const { page } = await openPage(app.browser, { viewport: DESKTOP });
    const problems = watch(page);
    await signUp(page, app.origin, "hooks");
    const path = `/in/${Date.now()}`;
    await page.goto(`${app.origin}/app/webhooks`);
    await page.getByLabel("URL").fill(`http://127.0.0.1:${RECEIVER_PORT}${path}`);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = await page.locator("#new-hook-secret").innerText();
    expect(secret).toMatch(/^whsec_/);

    await page.getByRole("link", { name: "Send a ping and see its delivery" }).click();
    await page.getByRole("button", { name: "Send a ping" }).click();
    await page.getByText("Ping queued").waitFor();
    const ping = await verifiedEvent(secret, path, "ping");
    expect(ping.event.data).toMatchObject({ message: "ping" });
    expect(ping.headers["content-type"]).toBe("application/json");
    await expect
      .poll(async () => (await page.reload(), await page.locator('td[data-label="Status"]').first().innerText()), { timeout: 30_000, interval: 500 })
      .toBe("succeeded");

    const token = await accessToken(page, app.origin);
    const { fileId } = await uploadForm(app.origin, token, gradientBmp(32, 32, 5), "gradient.bmp", "image/bmp");
    const created = await verifiedEvent(secret, path, "file.created");
    expect(created.event.data).toMatchObject({ fileId });
    const analyzed = await verifiedEvent(secret, path, "file.analyzed", 120_000);
    expect(analyzed.event.data).toMatchObject({ fileId, analysis: "done" });
    // A changed body does not verify: the signature covers it.
    const sample = received.find((r) => r.path === path);
    expect(() => new Webhook(secret).verify(sample.body.replace("}", ' }'), sample.headers)).toThrow();
    expect(problems).toEqual([]);
  });
});
