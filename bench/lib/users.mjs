// A verified user on a running bench app: signs up, reads the verification mail from the dev outbox,
// verifies, and creates an API key with the given permissions. Shared by the benchmarks that need callers.
import { createHmac, randomBytes } from "node:crypto";

export async function readJson(res) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${res.status} ${text.slice(0, 200)}`);
  }
}

/**
 * `{ access, key, userId }`: a session access token and an API key of a new verified user on `app`. With `plan`
 * (and the worker's BILLING_WEBHOOK_SECRET) the user is moved to that plan first, through the signed billing
 * webhook as a payment processor would (the free plan's 20 MB file limit is below what some need to send).
 */
export async function benchUser(app, permissions = ["read"], { plan, webhookSecret } = {}) {
  const api = `${app.url}/api/v1`;
  const email = `bench-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const post = (path, body, token) =>
    fetch(api + path, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const signup = await post("/auth/signup", { email, password: "bench password 123", username: `bench${Date.now()}${Math.floor(Math.random() * 1000)}`, ageConfirmed: true });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
  const { session, user } = await signup.json();
  const mail = await readJson(await fetch(`${api}/dev/outbox?to=${encodeURIComponent(email)}`));
  const token = /verification token: (\S+)/.exec(mail.messages[0].text)[1];
  const verified = await post("/auth/verify-email", { token });
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${await verified.text()}`);
  if (plan) await changePlan(api, user.id, plan, webhookSecret);
  const key = await post("/keys", { name: "bench", permissions }, session.access_token);
  if (key.status !== 201) throw new Error(`key: ${key.status} ${await key.text()}`);
  return { access: session.access_token, key: (await key.json()).key, userId: user.id };
}

/** `subscription.updated` to `plan` for `userId`, signed as src/billing/signature.ts checks it. */
async function changePlan(api, userId, plan, secret) {
  if (!secret) throw new Error("changing the plan needs the worker's BILLING_WEBHOOK_SECRET (pass it in vars)");
  const body = JSON.stringify({ id: `evt_bench_${randomBytes(8).toString("hex")}`, type: "subscription.updated", data: { userId, plan } });
  const t = Math.floor(Date.now() / 1000);
  const signature = `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
  const res = await fetch(`${api}/billing/webhook`, { method: "POST", headers: { "content-type": "application/json", "x-signature": signature }, body });
  if (res.status !== 200) throw new Error(`plan change to ${plan}: ${res.status} ${await res.text()}`);
}
