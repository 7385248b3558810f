// Shared by the browser tests: a `wrangler dev` of the app, Debian's chromium through playwright-core, a signed-up
// account, uploads through the API, and the checks every page must pass (no sideways scrolling at 390 px, no
// console errors, no serious axe-core violations).
import { chromium } from "playwright-core";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import path from "node:path";
import { onTestFinished } from "vitest";
import { fetchWithin, startWorker, root, within } from "../../bench/lib/index.mjs";

export { root };
export const PASSWORD = "correct horse battery staple";
export const SHOTS = path.join(root, "screenshots");
/** The README's screenshots (committed): flows.test.mjs writes them, so a run after a page change refreshes them. */
export const DOC_SHOTS = path.join(root, "docs/screenshots");
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

/** A fresh folder under the system's temp folder for one test's files, removed when that test ends. */
export function scratchDir(prefix) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The port of a suite's `wrangler dev`: BROWSER_TEST_PORT_BASE (default 8841) plus the suite's offset (app 0,
 * pages 1, flows 2, delivery 3, phone 4, password 5, two-factor 6, passkeys 7, mail 8, owner-images 9, signed-link 11, webhooks 14, tus-e2e 15, url-upload 16, tus-resume 18, polish 19; packages/cli's suites 21 and 22). Moving the base lets two runs share a machine (the fixed ports met another
 * person's run); devtools take port + 1000 (startWorker).
 */
export function suitePort(offset) {
  const raw = process.env.BROWSER_TEST_PORT_BASE ?? "8841";
  const base = Number(raw);
  if (!/^\d+$/.test(raw) || base < 1024 || base + offset > 64_000) throw new Error(`BROWSER_TEST_PORT_BASE must be a port from 1024 to ${64_000 - offset}, not "${raw}"`);
  return base + offset;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export async function startApp(port, vars = {}) {
  const origin = `http://localhost:${port}`;
  const worker = await startWorker({
    config: "wrangler.toml",
    port,
    vars: { BASE_URL: `${origin}/api/v1`, IMAGE_URL: `${origin}/i`, CDN_URL: `${origin}/cdn`, SITE_URL: origin, ENVIRONMENT: "development", ...vars },
  });
  let browser;
  try {
    browser = await launchChromium();
  } catch (err) {
    await worker.stop();
    throw err;
  }
  return { origin, worker, browser, stop: async () => (await browser.close(), await worker.stop()) };
}

/** Debian's chromium, bounded and tried twice, so one stuck start does not outlive the suite's hook. */
export async function launchChromium() {
  const launch = () =>
    chromium.launch({
      executablePath: "/usr/bin/chromium",
      // The flags keep chromium off the network this machine does not have (background, QUIC, updates, sync).
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"],
      timeout: 45_000,
    });
  try {
    return await launch();
  } catch (err) {
    console.error(`chromium did not start, trying again: ${err.message}`);
    return launch();
  }
}

/** A page that records console errors, page errors and failed requests (4xx/5xx of its own origin). */
export function watch(page) {
  const problems = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()} (${m.location()?.url ?? ""})`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("response", (r) => {
    // Pages that answer 4xx on purpose (a refused form) are checked by their tests; sub-resources must load.
    if (r.status() >= 400 && r.request().resourceType() !== "document") problems.push(`HTTP ${r.status()} ${r.url()}`);
  });
  return problems;
}

/** Signs up through the sign-up form and verifies the address from the dev outbox; returns the account. */
export async function signUp(page, origin, name = "u", email = undefined) {
  const stamp = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
  email ??= `${name}-${stamp}@example.com`;
  const username = `${name}${stamp}`;
  await page.goto(`${origin}/app/signup`);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel(/^Password/).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(/\/app\/account/);
  const link = await verifyLink(origin, email);
  await page.goto(link);
  await page.getByRole("button", { name: "Confirm my e-mail address" }).click();
  await page.getByText("Your e-mail address is verified.").waitFor();
  return { email, username };
}

/**
 * fetch, bounded by a timer of our own (an AbortSignal alone once failed to end a wedged request): a request
 * the worker never answers fails in a minute, naming what it asked for, instead of holding a suite's hook until
 * vitest gives up on it without a word. The body is read within the bound too.
 */
export async function boundedFetch(url, init = {}, timeoutMs = 60_000) {
  const { res, body } = await fetchWithin(url, init, timeoutMs);
  // The body is already decoded: its length and encoding headers no longer describe it.
  const headers = new Headers(res.headers);
  headers.delete("content-encoding");
  headers.delete("content-length");
  return new Response(body.byteLength ? body : null, { status: res.status, statusText: res.statusText, headers });
}

/**
 * A new browser context and its first page, bounded (playwright's newContext and newPage have no timeout, and
 * a suite's hook that waits on them fails without naming them); `permissions` are granted for `origin`.
 */
export async function openPage(browser, options = {}, { origin, permissions } = {}) {
  const context = await within("browser.newContext", browser.newContext(options), 60_000);
  if (permissions) await within("context.grantPermissions", context.grantPermissions(permissions, { origin }), 60_000);
  const page = await within("context.newPage", context.newPage(), 60_000);
  return { context, page };
}

export async function verifyLink(origin, email) {
  const mail = await (await boundedFetch(`${origin}/api/v1/dev/outbox?to=${encodeURIComponent(email)}`)).json();
  return /(http\S+\/verify-email\?token=\S+)/.exec(mail.messages.at(-1).text)[1];
}

/** The page session's Bearer token (as the client script gets it). */
export async function accessToken(page, origin) {
  const url = `${origin}/app/token`;
  // The page's own signal ends its fetch; the bound on evaluate holds even if that signal is lost.
  const token = page.evaluate(async (u) => (await (await fetch(u, { headers: { "X-Requested-With": "imghost" }, signal: AbortSignal.timeout(60_000) })).json()).access_token, url);
  return within(`the page's GET ${url}`, token, 65_000);
}

/** Uploads bytes in one request (POST /upload/form), as ShareX does; returns the finalize answer. */
export async function uploadForm(origin, token, bytes, filename, mime, fields = {}) {
  const form = new FormData();
  form.set("file", new Blob([bytes], { type: mime }), filename);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await boundedFetch(`${origin}/api/v1/upload/form`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await res.json();
  if (!res.ok) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export async function api(origin, token, method, p, body) {
  const res = await boundedFetch(`${origin}/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** How far the page scrolls sideways (0 = it fits), and which elements stick out (for the failure message). */
export async function horizontalOverflow(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const over = document.documentElement.scrollWidth - width;
    const culprits = [];
    if (over > 0) {
      for (const el of document.querySelectorAll("body *")) {
        const r = el.getBoundingClientRect();
        if (r.right > width + 1 && r.width > 0) culprits.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${el.className}`.slice(0, 80));
        if (culprits.length > 5) break;
      }
    }
    return { over, culprits };
  });
}

/** Serious and critical axe-core violations of the page. axe's source is evaluated through the devtools protocol:
 *  the page's CSP (rightly) refuses an injected inline script. */
export async function axeViolations(page) {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")})`);
  });
}

/** A 24-bit BMP of width x height with a colour gradient (BMP is on the upload allow-list, uncompressed = big). */
export function gradientBmp(width, height, seed = 0) {
  const rowBytes = Math.ceil((width * 3) / 4) * 4;
  const size = 54 + rowBytes * height;
  const buf = Buffer.alloc(size);
  buf.write("BM", 0, "ascii");
  buf.writeUInt32LE(size, 2);
  buf.writeUInt32LE(54, 10);
  buf.writeUInt32LE(40, 14);
  buf.writeInt32LE(width, 18);
  buf.writeInt32LE(height, 22);
  buf.writeUInt16LE(1, 26);
  buf.writeUInt16LE(24, 28);
  buf.writeUInt32LE(rowBytes * height, 34);
  for (let y = 0; y < height; y++) {
    const row = 54 + y * rowBytes;
    for (let x = 0; x < width; x++) {
      const o = row + x * 3;
      buf[o] = ((x * 255) / width + seed * 40) & 255;
      buf[o + 1] = ((y * 255) / height + seed * 90) & 255;
      buf[o + 2] = (((x + y) * 127) / (width + height) + 64 + seed * 20) & 255;
    }
  }
  return buf;
}
