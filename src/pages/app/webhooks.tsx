// Webhooks in the account area: the endpoints, a create form (the secret shown once), a ping, and each
// endpoint's recent deliveries with a retry button.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage, type Schemas } from "./api";
import { requireFormToken, requireSession } from "./context";
import { DeliveriesPage, WebhooksPage, type CreatedHook, type HookForm } from "./webhook-views";
import { fieldErrors, type FieldErrors } from "./form-errors";

async function renderList(c: Context<AppEnv>, extra: { created?: CreatedHook; error?: string; form?: HookForm; errors?: FieldErrors } = {}) {
  const r = await result(call(apiOf(c), "webhooks.list"));
  const error = extra.error ?? (r.ok ? undefined : apiMessage(r));
  const page = <WebhooksPage c={c} hooks={r.ok ? r.body.webhooks : []} created={extra.created} error={error} form={extra.form} errors={extra.errors} />;
  return c.html(page, extra.error || extra.errors ? 400 : 200);
}

const HOOK_FIELDS = { paths: { url: "url", events: "events", description: "description" }, codes: { invalid_url: "url", too_many_webhooks: "url" } };

async function renderDeliveries(c: Context<AppEnv>, id: string, notice?: { ok?: string; error?: string }) {
  const hook = await result(call(apiOf(c), "webhooks.get", { params: { path: { id } } }));
  if (!hook.ok) return renderList(c, { error: apiMessage(hook) });
  const attempts = await result(call(apiOf(c), "webhooks.listDeliveries", { params: { path: { id }, query: { limit: 50 } } }));
  const error = notice?.error ?? (attempts.ok ? undefined : apiMessage(attempts));
  return c.html(<DeliveriesPage c={c} hook={hook.body} attempts={attempts.ok ? attempts.body.deliveries : []} ok={notice?.ok} error={error} />, notice?.error ? 400 : 200);
}

export const webhookPages = new Hono<AppEnv>();
webhookPages.use("/app/webhooks", requireSession, requireFormToken);
webhookPages.use("/app/webhooks/*", requireSession, requireFormToken);

webhookPages.get("/app/webhooks", (c) => renderList(c));

webhookPages.post("/app/webhooks", async (c) => {
  const all = await c.req.parseBody({ all: true });
  const events = ([] as unknown[]).concat(all.events ?? []).filter((e): e is string => typeof e === "string");
  const form = { url: typeof all.url === "string" ? all.url : "", description: typeof all.description === "string" ? all.description : "", events };
  const r = await result(call(apiOf(c), "webhooks.create", { body: {
    url: form.url,
    // As the form sent them: the API refuses unknown ones with its own message.
    events: events as Schemas["CreateWebhookRequest"]["events"],
    ...(form.description.trim() ? { description: form.description } : {}),
  } }));
  if (!r.ok) return renderList(c, { form, errors: fieldErrors(r, HOOK_FIELDS) });
  return renderList(c, { created: { id: r.body.id, url: r.body.url, secret: r.body.secret } });
});

webhookPages.get("/app/webhooks/:id", (c) => renderDeliveries(c, c.req.param("id")));

webhookPages.post("/app/webhooks/:id/ping", async (c) => {
  const id = c.req.param("id");
  const r = await result(call(apiOf(c), "webhooks.ping", { params: { path: { id } } }));
  return renderDeliveries(c, id, r.ok ? { ok: "Ping queued: reload in a moment to see how it went." } : { error: apiMessage(r) });
});

webhookPages.post("/app/webhooks/:id/enabled", async (c) => {
  const id = c.req.param("id");
  const form = await c.req.parseBody();
  const r = await result(call(apiOf(c), "webhooks.update", { params: { path: { id } }, body: { enabled: form.enabled === "1" } }));
  return renderDeliveries(c, id, r.ok ? { ok: r.body.enabled ? "The endpoint is on." : "The endpoint is off." } : { error: apiMessage(r) });
});

webhookPages.post("/app/webhooks/:id/deliveries/:deliveryId/retry", async (c) => {
  const id = c.req.param("id");
  const r = await result(call(apiOf(c), "webhooks.retryDelivery", { params: { path: { id, deliveryId: c.req.param("deliveryId") } } }));
  return renderDeliveries(c, id, r.ok ? { ok: "Retry queued." } : { error: apiMessage(r) });
});

webhookPages.post("/app/webhooks/:id/delete", async (c) => {
  // Deleting asks first: without the ticked box (a page without the browser's check) nothing is deleted.
  if ((await c.req.parseBody()).confirm !== "1") return renderDeliveries(c, c.req.param("id"), { error: "Tick “Yes, delete this endpoint” to delete it." });
  const r = await result(call(apiOf(c), "webhooks.delete", { params: { path: { id: c.req.param("id") } } }));
  if (!r.ok) return renderList(c, { error: apiMessage(r) });
  return c.redirect("/app/webhooks?deleted=1", 303);
});
