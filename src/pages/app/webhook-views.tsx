// The webhooks pages: the list with the create form (a new secret shown once), and one endpoint's deliveries.
import type { Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { WEBHOOK_EVENTS } from "../../webhooks/events";
import { AppLayout, Csrf, Notice, When } from "./ui";
import type { Webhook, WebhookAttempt } from "./api";
import { FieldError, invalid, type FieldErrors } from "./form-errors";

export type CreatedHook = { id: string; url: string; secret: string };
/** The create form as it was sent. */
export type HookForm = { url: string; description: string; events: string[] };

const state = (h: Webhook) =>
  h.enabled ? "on" : h.disabledReason === "gone" ? "off (it answered 410 Gone)" : h.disabledReason === "failures" ? "off (20 failures in a row)" : "off";

function NewSecret(props: { created: CreatedHook }) {
  const { created } = props;
  return (
    <section class="panel" aria-labelledby="new-hook">
      <h2 id="new-hook">Signing secret for {created.url}</h2>
      <Notice kind="error">Copy it now: it is shown only once.</Notice>
      <div class="copyline">
        <code id="new-hook-secret">{created.secret}</code>
        <button type="button" class="small" data-copy="#new-hook-secret" aria-label="Copy the secret">Copy</button>
      </div>
      <p>
        Check each request with a <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> library: it verifies the
        <code>webhook-signature</code> header with this secret. <a href={`/app/webhooks/${created.id}`}>Send a ping and see its delivery</a>.
      </p>
    </section>
  );
}

/** `form`, `errors`: a refused create, shown again as typed with the messages beside the fields. */
export function WebhooksPage(props: { c: Context<AppEnv>; hooks: Webhook[]; created?: CreatedHook; error?: string; form?: HookForm; errors?: FieldErrors }) {
  const { c, hooks, errors } = props;
  const f = props.form;
  const notice = props.error ?? errors?.notice;
  return (
    <AppLayout c={c} title="Webhooks">
      <h1>Webhooks</h1>
      {notice ? <Notice kind="error">{notice}</Notice> : null}
      {c.req.query("deleted") === "1" ? <Notice kind="ok">The endpoint was deleted.</Notice> : null}
      {props.created ? <NewSecret created={props.created} /> : null}
      <h2>Your endpoints</h2>
      {hooks.length === 0 ? (
        <p>No endpoints yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="webhooks">
            <thead>
              <tr><th>URL</th><th>Events</th><th>State</th><th>Added</th></tr>
            </thead>
            <tbody>
              {hooks.map((h) => (
                <tr>
                  <td data-label="URL"><a href={`/app/webhooks/${h.id}`}>{h.url}</a>{h.description ? <div>{h.description}</div> : null}</td>
                  <td data-label="Events">{h.events.join(", ")}</td>
                  <td data-label="State">{state(h)}</td>
                  <td data-label="Added"><When iso={h.createdAt} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2 id="add">Add an endpoint</h2>
      <form method="post" action="/app/webhooks#add" class="stack panel">
        <Csrf c={c} />
        <label for="hurl">URL</label>
        <input id="hurl" name="url" type="url" required maxlength={2048} placeholder="https://example.com/hooks/images" value={f?.url ?? ""} {...invalid(errors, "url", "hurl")} />
        <FieldError errors={errors} name="url" id="hurl" />
        <label for="hdesc">Description (optional)</label>
        <input id="hdesc" name="description" maxlength={200} value={f?.description ?? ""} {...invalid(errors, "description", "hdesc")} />
        <FieldError errors={errors} name="description" id="hdesc" />
        <fieldset>
          <legend>Events</legend>
          {WEBHOOK_EVENTS.map((e) => (
            <label class="check"><input type="checkbox" name="events" value={e} checked={f ? f.events.includes(e) : e.startsWith("file.")} /> {e}</label>
          ))}
          <FieldError errors={errors} name="events" id="hevents" />
        </fieldset>
        <button type="submit">Add endpoint</button>
      </form>
    </AppLayout>
  );
}

export function DeliveriesPage(props: { c: Context<AppEnv>; hook: Webhook; attempts: WebhookAttempt[]; ok?: string; error?: string }) {
  const { c, hook, attempts } = props;
  return (
    <AppLayout c={c} title="Webhook deliveries">
      <h1>Webhook {hook.url}</h1>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      {props.ok ? <Notice kind="ok">{props.ok}</Notice> : null}
      <p>
        Events: {hook.events.join(", ")}. State: <strong id="hook-state">{state(hook)}</strong>.
      </p>
      <div class="row">
        <form method="post" action={`/app/webhooks/${hook.id}/ping`}>
          <Csrf c={c} />
          <button type="submit">Send a ping</button>
        </form>
        <form method="post" action={`/app/webhooks/${hook.id}/enabled`}>
          <Csrf c={c} />
          <input type="hidden" name="enabled" value={hook.enabled ? "0" : "1"} />
          <button type="submit">{hook.enabled ? "Turn off" : "Turn on"}</button>
        </form>
        {/* Asks first: the box must be ticked (the browser checks it, and the server again without a script). */}
        <form method="post" action={`/app/webhooks/${hook.id}/delete`} class="row confirm-delete">
          <Csrf c={c} />
          <label class="check">
            <input type="checkbox" name="confirm" value="1" required /> Yes, delete this endpoint (its deliveries stop)
          </label>
          <button type="submit" class="danger">Delete endpoint</button>
        </form>
      </div>
      <h2>Recent deliveries</h2>
      {attempts.length === 0 ? (
        <p>Nothing sent yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="deliveries">
            <thead>
              <tr><th>Event</th><th>Try</th><th>Status</th><th>Answer</th><th>Time</th><th>Next try</th><th><span class="sr-only">Actions</span></th></tr>
            </thead>
            <tbody>
              {attempts.map((a) => (
                <tr>
                  <td data-label="Event">{a.event}</td>
                  <td data-label="Try">{a.attempt}</td>
                  <td data-label="Status">{a.status}</td>
                  <td data-label="Answer">{a.statusCode ?? "none"}{a.error ? ` · ${a.error}` : ""}</td>
                  <td data-label="Time">{a.durationMs} ms, <When iso={a.createdAt} /></td>
                  <td data-label="Next try">{a.nextAttemptAt ? <When iso={a.nextAttemptAt} /> : "none"}</td>
                  <td>
                    <form method="post" action={`/app/webhooks/${hook.id}/deliveries/${a.deliveryId}/retry`}>
                      <Csrf c={c} />
                      <button type="submit" class="small" aria-label={`Send ${a.event} again`}>Retry</button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p><a href="/app/webhooks">All endpoints</a></p>
    </AppLayout>
  );
}
