// Global invalidation through Cloudflare's cache-purge API (purge by URL), when the deployment configures
// CF_ZONE_ID and CF_API_TOKEN (a token with the zone's Cache Purge permission). caches.default entries are
// per data centre and cache.delete only reaches the one it runs in; a purge by URL reaches them all.
// Without the two settings nothing is sent and other data centres keep an entry for at most its TTL
// (ACCESS_RECORD_SECONDS for access and principal records), which is the bound the README states.
import type { GlobalPurge } from "../../config/env-schema";

export const PURGE_API = "https://api.cloudflare.com/client/v4";

/** Cloudflare accepts at most 30 URLs per purge-by-URL call on every plan. */
const URLS_PER_CALL = 30;

/**
 * Purges `urls` everywhere. Failures are logged, not thrown: the local delete has happened, and the TTL
 * still bounds what other data centres serve. `send` is the network (tests pass a recorder).
 */
export async function purgeGlobally(target: GlobalPurge | null, urls: string[], send: typeof fetch = fetch): Promise<void> {
  if (!target || urls.length === 0) return;
  for (let i = 0; i < urls.length; i += URLS_PER_CALL) {
    const files = urls.slice(i, i + URLS_PER_CALL);
    try {
      const res = await send(`${PURGE_API}/zones/${encodeURIComponent(target.zoneId)}/purge_cache`, {
        method: "POST",
        headers: { authorization: `Bearer ${target.apiToken}`, "content-type": "application/json" },
        body: JSON.stringify({ files }),
      });
      if (!res.ok) console.error(`global purge: Cloudflare answered ${res.status} for ${files.length} URL(s)`);
      await res.body?.cancel();
    } catch (err) {
      console.error("global purge failed", err instanceof Error ? err.message : String(err));
    }
  }
}
