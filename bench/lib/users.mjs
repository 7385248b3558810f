// A verified user on a running bench app: signs up, reads the verification mail from the dev outbox,
// verifies, and creates an API key with the given permissions. Shared by the benchmarks that need callers.
export async function readJson(res) {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${res.status} ${text.slice(0, 200)}`);
  }
}

/** `{ access, key }`: a session access token and an API key of a new verified user on `app`. */
export async function benchUser(app, permissions = ["read"]) {
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
  const { session } = await signup.json();
  const mail = await readJson(await fetch(`${api}/dev/outbox?to=${encodeURIComponent(email)}`));
  const token = /verification token: (\S+)/.exec(mail.messages[0].text)[1];
  const verified = await post("/auth/verify-email", { token });
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${await verified.text()}`);
  const key = await post("/keys", { name: "bench", permissions }, session.access_token);
  if (key.status !== 201) throw new Error(`key: ${key.status} ${await key.text()}`);
  return { access: session.access_token, key: (await key.json()).key };
}
