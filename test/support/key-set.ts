// The API keys an upload route's permission tests need, all of one owner: with `upload`, without it, revoked and
// expired (its expiry moved into the past in the directory, so the key is one the server issued).
import { env } from "cloudflare:workers";
import { call, createKey, type TestUser } from "./api";

export type UploadKeys = { upload: string; withoutUpload: string; revoked: string; expired: string };

export async function uploadKeys(owner: TestUser): Promise<UploadKeys> {
  const upload = (await createKey(owner, { permissions: ["upload"] })).key;
  const withoutUpload = (await createKey(owner, { permissions: ["read", "manage"] })).key;
  const revoked = await createKey(owner, { permissions: ["read", "upload"] });
  const deleted = await call(`/keys/${revoked.id}`, { method: "DELETE", token: owner.access });
  if (deleted.status !== 200) throw new Error(`key-set.ts: revoking a key failed: ${deleted.status} ${deleted.text}`);
  const expired = await createKey(owner, { permissions: ["upload"], expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  await env.DB.prepare("UPDATE api_keys SET expires_at = ? WHERE id = ?").bind(Date.now() - 1000, expired.id).run();
  return { upload, withoutUpload, revoked: revoked.key, expired: expired.key };
}
