// API keys: create (shown once), ShareX uploader download, revoke after a confirmation page.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { authenticateApiKey } from "../../auth/api-keys";
import { call, pathOf } from "@imghost/client";
import { apiOf, result, apiMessage, type Schemas } from "./api";
import { requireFormToken, requireSession } from "./context";
import { KeysPage, RevokePage, type Created, type KeyForm } from "./keys-views";
import { fieldErrors, type FieldErrors } from "./form-errors";
import { config } from "../../config/env";

/** A ShareX custom uploader (https://getsharex.com/docs/custom-uploader) for POST /upload/form. */
function sharexUploader(env: Env, key: string) {
  return {
    Version: "15.0.0",
    Name: new URL(config(env).siteUrl).host,
    DestinationType: "ImageUploader",
    RequestMethod: "POST",
    RequestURL: `${config(env).baseUrl}${pathOf("uploads.form")}`,
    Headers: { Authorization: `Bearer ${key}` },
    Body: "MultipartFormData",
    FileFormName: "file",
    URL: "{json:url}",
    ThumbnailURL: "{json:url}/thumb",
    ErrorMessage: "{json:message}",
  };
}

async function render(c: Context<AppEnv>, extra: { created?: Created; error?: string; form?: KeyForm; errors?: FieldErrors } = {}) {
  const r = await result(call(apiOf(c), "keys.list", { params: { query: { limit: 100 } } }));
  return c.html(<KeysPage c={c} keys={r.ok ? r.body.keys : []} {...extra} />, extra.error || extra.errors ? 400 : 200);
}

const KEY_FIELDS = { paths: { name: "name", permissions: "permissions", expiresAt: "expires" }, codes: { too_many_keys: "name" } };

export const keyPages = new Hono<AppEnv>();
keyPages.use("/app/keys", requireSession, requireFormToken);
keyPages.use("/app/keys/*", requireSession, requireFormToken);

keyPages.get("/app/keys", (c) => render(c));

keyPages.post("/app/keys", async (c) => {
  const all = await c.req.parseBody({ all: true });
  const permissions = ([] as unknown[]).concat(all.permissions ?? []).filter((p): p is string => typeof p === "string");
  const expires = typeof all.expires === "string" ? all.expires : "";
  const days = Number.parseInt(expires, 10);
  const r = await result(call(apiOf(c), "keys.create", { body: {
    name: typeof all.name === "string" ? all.name : "",
    // As the form sent them: the API refuses unknown ones with its own message.
    permissions: permissions as Schemas["CreateApiKeyRequest"]["permissions"],
    ...(days > 0 ? { expiresAt: new Date(Date.now() + days * 86_400_000).toISOString() } : {}),
  } }));
  if (!r.ok) return render(c, { form: { name: typeof all.name === "string" ? all.name : "", permissions, expires }, errors: fieldErrors(r, KEY_FIELDS) });
  return render(c, { created: { key: r.body.key, name: r.body.name, permissions: r.body.permissions } });
});

// The .sxcu embeds the key, which the service no longer knows after creation: the creation page posts it
// back, and it is accepted only if it is a live key of this user with the upload permission.
keyPages.post("/app/sharex", requireSession, requireFormToken, async (c) => {
  const form = await c.req.parseBody();
  const key = typeof form.key === "string" ? form.key : "";
  let owner: Awaited<ReturnType<typeof authenticateApiKey>> | null = null;
  try {
    owner = await authenticateApiKey(c.env, c.get("dbs").directory(), key, c.executionCtx);
  } catch {
    owner = null;
  }
  if (!owner || owner.user.id !== c.get("pageSession")!.userId || !owner.permissions.includes("upload")) {
    return render(c, { error: "That is not one of your live API keys with the upload permission." });
  }
  c.header("Content-Disposition", 'attachment; filename="imghost.sxcu"');
  return c.body(JSON.stringify(sharexUploader(c.env, key), null, 2), 200, { "Content-Type": "application/json; charset=utf-8" });
});

keyPages.get("/app/keys/:id/revoke", async (c) => {
  const r = await result(call(apiOf(c), "keys.list", { params: { query: { limit: 100 } } }));
  const k = r.ok ? r.body.keys.find((x) => x.id === c.req.param("id") && !x.revokedAt) : undefined;
  if (!k) return render(c, { error: "There is no live key of yours with that id." });
  return c.html(<RevokePage c={c} k={k} />);
});

keyPages.post("/app/keys/:id/revoke", async (c) => {
  const r = await result(call(apiOf(c), "keys.revoke", { params: { path: { id: c.req.param("id") } } }));
  if (!r.ok) return render(c, { error: apiMessage(r) });
  return c.redirect("/app/keys?revoked=1", 303);
});
