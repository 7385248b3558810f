// One worker answers four public addresses ({base_url}, {image_url}, {cdn_url}, {site_url}). Each may be a
// path prefix on one host (local) or a host of its own (production). dispatch() maps a public URL onto the
// internal mount points of the app (/api/v1, /i, /cdn, /), so routes never care which form is configured.

import { config } from "../../config/env";
import type { Surface } from "../../config/env-schema";
import { API_BASE } from "./api-endpoints";

export type { Surface } from "../../config/env-schema";

const INTERNAL: Record<Surface, string> = { api: API_BASE, image: "/i", cdn: "/cdn", site: "" };

function underPrefix(path: string, prefix: string): boolean {
  return prefix === "" || path === prefix || path.startsWith(prefix + "/");
}

/**
 * The internal path for a public URL; matches on host and prefix, else on a non-empty prefix alone (any host),
 * else the site. A bare host (empty prefix) only claims requests to that host: otherwise, in host mode, every
 * stray path on the API host or an unknown host would land on the first bare host's surface (the image links).
 */
export function internalPath(url: Pick<URL, "host" | "pathname">, env: Env): { surface: Surface; path: string } {
  const all = config(env).addresses;
  const hit =
    all.find((m) => m.host === url.host && underPrefix(url.pathname, m.prefix)) ??
    all.find((m) => m.prefix !== "" && underPrefix(url.pathname, m.prefix));
  if (!hit) return { surface: "site", path: url.pathname };
  const rest = url.pathname.slice(hit.prefix.length);
  return { surface: hit.surface, path: INTERNAL[hit.surface] + (rest.startsWith("/") ? rest : "/" + rest) };
}

/** Host and path of a request's URL, which the runtime hands over absolute and normalized: no URL parse per request. */
function hostAndPath(url: string): { host: string; pathname: string } {
  const start = url.indexOf("//") + 2;
  const slash = url.indexOf("/", start);
  const host = url.slice(start, slash === -1 ? undefined : slash).toLowerCase();
  if (slash === -1) return { host, pathname: "/" };
  const end = url.slice(slash).search(/[?#]/);
  return { host, pathname: end === -1 ? url.slice(slash) : url.slice(slash, slash + end) };
}

/** Rewrites the request for the app when the public path differs from the internal one. */
export function dispatch(request: Request, env: Env): Request {
  const { host, pathname } = hostAndPath(request.url);
  const { path } = internalPath({ host, pathname }, env);
  if (path === pathname) return request;
  const url = new URL(request.url);
  url.pathname = path;
  return new Request(url, request);
}
