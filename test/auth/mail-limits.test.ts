// "Resend verification" and "forgot password" mail on request: together they allow 5 mails an hour to one address
// (known or not, from any IP) and 20 requests an hour from one caller's IP, each refusal the contract's 429, so
// neither route, nor both in turn, makes a mail cannon.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, signup, uniqueEmail, type Reply, type TestUser } from "../support/api";
import { forgotPassword, freshIp, mailsTo, resetMails } from "../support/password";
import { startOfNextWindow } from "../support/clock";
import { MAIL_REQUESTS } from "../../src/config/auth";

const resend = (user: TestUser, ip = freshIp()) => call("/auth/resend-verification", { method: "POST", token: user.access, ip });

function expectRefused(r: Reply, limit: number) {
  expect(r.status).toBe(429);
  expect(r.body).toMatchObject({ error: "Too Many Requests", remaining: 0 });
  expect(r.body.retryAfter).toBeGreaterThan(MAIL_REQUESTS.windowSeconds - 60); // the window began a moment ago
  expect(r.headers.get("retry-after")).toBe(String(r.body.retryAfter));
  expect(r.headers.get("x-ratelimit-limit")).toBe(String(limit));
  expect(r.headers.get("x-ratelimit-remaining")).toBe("0");
}

describe("mail on request: caps per recipient address and per caller", () => {
  let restoreClock: () => void;
  beforeEach(() => {
    restoreClock = startOfNextWindow(MAIL_REQUESTS.windowSeconds);
  });
  afterEach(() => restoreClock());

  it("per address: both routes share 5 an hour, from any IP; then both answer 429 and no more mail is written", async () => {
    const user = await signup(); // its verification mail is the signup's, not a request's: not counted
    for (let i = 0; i < 3; i++) expect((await forgotPassword(user.email)).status, `forgot ${i + 1}`).toBe(202);
    for (let i = 0; i < 2; i++) expect((await resend(user)).status, `resend ${i + 1}`).toBe(200);
    expectRefused(await resend(user), MAIL_REQUESTS.perAddress);
    expectRefused(await forgotPassword(user.email), MAIL_REQUESTS.perAddress);
    expectRefused(await forgotPassword(user.email.toUpperCase()), MAIL_REQUESTS.perAddress);

    // Forgot writes its mail after the answer: wait for the three, then count everything the address got.
    expect(await resetMails(user.email, 3)).toHaveLength(3);
    const mails = await mailsTo(user.email);
    expect(mails.filter((m) => /verify/i.test(m.subject))).toHaveLength(1 + 2);
    expect(mails).toHaveLength(1 + 2 + 3);
  });

  it("per address: an address with no account is capped the same (the answer must not tell them apart)", async () => {
    const stranger = uniqueEmail("nobody");
    for (let i = 0; i < MAIL_REQUESTS.perAddress; i++) expect((await forgotPassword(stranger)).status).toBe(202);
    expectRefused(await forgotPassword(stranger), MAIL_REQUESTS.perAddress);
  });

  it("per caller: 20 an hour from one IP across addresses and both routes; another IP is not affected", async () => {
    const ip = freshIp();
    const user = await signup();
    for (let i = 0; i < MAIL_REQUESTS.perIp - 1; i++) expect((await forgotPassword(uniqueEmail(), ip)).status, `forgot ${i + 1}`).toBe(202);
    expect((await resend(user, ip)).status).toBe(200);
    expectRefused(await resend(user, ip), MAIL_REQUESTS.perIp);
    expectRefused(await forgotPassword(uniqueEmail(), ip), MAIL_REQUESTS.perIp);

    expect((await resend(user, freshIp())).status).toBe(200);
    expect((await forgotPassword(uniqueEmail(), freshIp())).status).toBe(202);
  });
});
