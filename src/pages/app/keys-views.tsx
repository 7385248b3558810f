// The API keys page: a new key shown once (copy button, curl examples, ShareX download), the create form and
// the list with revoke links (revoking asks first, on its own page).
import type { Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Csrf, Notice, When } from "./ui";
import { pathOf } from "@imghost/client";
import type { ApiKey } from "./api";
import { FieldError, invalid, type FieldErrors } from "./form-errors";
import { config } from "../../config/env";

export type Created = { key: string; name: string; permissions: string[] };
/** The create form as it was sent. */
export type KeyForm = { name: string; permissions: string[]; expires: string };

function NewKey(props: { c: Context<AppEnv>; created: Created }) {
  const { c, created } = props;
  return (
    <section class="panel" aria-labelledby="new-key">
      <h2 id="new-key">Your new key “{created.name}”</h2>
      <Notice kind="error">Copy it now: it is shown only once and cannot be recovered.</Notice>
      <div class="copyline">
        <code id="new-key-value">{created.key}</code>
        <button type="button" class="small" data-copy="#new-key-value" aria-label="Copy the key">Copy</button>
      </div>
      <p>Try it (lists your files):</p>
      <pre>{`curl -H "Authorization: Bearer ${created.key}" \\\n  ${config(c.env).baseUrl}${pathOf("files.list")}`}</pre>
      <p>Upload in one request (as ShareX does):</p>
      <pre>{`curl -F file=@photo.jpg \\\n  -H "Authorization: Bearer ${created.key}" \\\n  ${config(c.env).baseUrl}${pathOf("uploads.form")}`}</pre>
      <p>
        Large files and your own code: the direct and multipart flows in the <a href="/docs">API reference</a>.
      </p>
      {created.permissions.includes("upload") ? (
        <form method="post" action="/app/sharex">
          <Csrf c={c} />
          <input type="hidden" name="key" value={created.key} />
          <button type="submit">Download ShareX uploader (.sxcu)</button>
        </form>
      ) : null}
    </section>
  );
}

/** `form`, `errors`: a refused create, shown again as typed with the messages beside the fields. */
export function KeysPage(props: { c: Context<AppEnv>; keys: ApiKey[]; created?: Created; error?: string; form?: KeyForm; errors?: FieldErrors }) {
  const { c, keys, errors } = props;
  const f = props.form;
  const notice = props.error ?? errors?.notice;
  return (
    <AppLayout c={c} title="API keys">
      <h1>API keys</h1>
      {notice ? <Notice kind="error">{notice}</Notice> : null}
      {c.req.query("revoked") === "1" ? <Notice kind="ok">The key was revoked.</Notice> : null}
      {props.created ? <NewKey c={c} created={props.created} /> : null}
      <h2 id="create">Create a key</h2>
      <form method="post" action="/app/keys#create" class="stack panel">
        <Csrf c={c} />
        <label for="kname">Name</label>
        <input id="kname" name="name" required maxlength={100} value={f?.name ?? ""} {...invalid(errors, "name", "kname")} />
        <FieldError errors={errors} name="name" id="kname" />
        <fieldset>
          <legend>Permissions</legend>
          {(["read", "upload", "manage"] as const).map((p) => (
            <label class="check"><input type="checkbox" name="permissions" value={p} checked={f ? f.permissions.includes(p) : p !== "manage"} /> {p}</label>
          ))}
          <FieldError errors={errors} name="permissions" id="kperm" />
        </fieldset>
        <label for="kexp">Expires</label>
        <select id="kexp" name="expires" {...invalid(errors, "expires", "kexp")}>
          {[["", "Never"], ["7", "In 7 days"], ["30", "In 30 days"], ["365", "In a year"]].map(([value, text]) => (
            <option value={value} selected={(f?.expires ?? "") === value}>{text}</option>
          ))}
        </select>
        <FieldError errors={errors} name="expires" id="kexp" />
        <button type="submit">Create key</button>
      </form>
      <h2>Your keys</h2>
      {keys.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="keys">
            <thead>
              <tr><th>Name</th><th>Prefix</th><th>Permissions</th><th>Last used</th><th>Expires</th><th><span class="sr-only">Actions</span></th></tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr>
                  <td data-label="Name">{k.name}</td>
                  <td data-label="Prefix"><code>{k.prefix}…</code></td>
                  <td data-label="Permissions">{k.permissions.join(", ")}</td>
                  <td data-label="Last used">{k.lastUsedAt ? <When iso={k.lastUsedAt} /> : "never"}</td>
                  <td data-label="Expires">{k.revokedAt ? "revoked" : k.expiresAt ? <When iso={k.expiresAt} /> : "never"}</td>
                  <td>
                    {k.revokedAt ? null : (
                      <a class="button small danger" href={`/app/keys/${k.id}/revoke`} aria-label={`Revoke ${k.name}`}>Revoke</a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </AppLayout>
  );
}

export function RevokePage(props: { c: Context<AppEnv>; k: ApiKey }) {
  const { c, k } = props;
  return (
    <AppLayout c={c} title="Revoke key">
      <h1>Revoke the key “{k.name}”?</h1>
      <p>
        Programs using <code>{k.prefix}…</code> stop working at once (ShareX, scripts). This cannot be undone: you would create a new key instead.
      </p>
      <form method="post" action={`/app/keys/${k.id}/revoke`} class="row">
        <Csrf c={c} />
        <button type="submit" class="danger">Revoke {k.name}</button>
        <a href="/app/keys">Cancel</a>
      </form>
    </AppLayout>
  );
}
