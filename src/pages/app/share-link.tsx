// "Share a private link" on the owner's file page (extensions.md § 3): a signed link to the file's bytes with a
// chosen lifetime (POST /app/files/:id/share, shown once to copy), and revoking every link made so far
// (POST /app/files/:id/share/revoke). The API signs and revokes (files/signed-url-routes.ts).
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Csrf, Notice, When } from "./ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage } from "./api";
import { requireFormToken, str, type Form } from "./context";
import { CopyField } from "../file";

const LIFETIMES = [
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "1 day" },
  { seconds: 604_800, label: "7 days" },
] as const;

/** The file page's section: the lifetime to choose, and the revoke button. */
export function ShareSection(props: { c: Context<AppEnv>; fileId: string }) {
  const { c, fileId } = props;
  return (
    <section aria-labelledby="share" class="stack panel">
      <h2 id="share">Share a private link</h2>
      <p>Anyone with the link sees the image until it expires, even while the file is private. Deleting the file ends it too.</p>
      <form method="post" action={`/app/files/${fileId}/share`} class="stack">
        <Csrf c={c} />
        <label for="share-lifetime">Works for</label>
        <select id="share-lifetime" name="expiresIn">
          {LIFETIMES.map((l) => (
            <option value={String(l.seconds)} selected={l.seconds === 86_400}>{l.label}</option>
          ))}
        </select>
        <button type="submit">Create link</button>
      </form>
      <form method="post" action={`/app/files/${fileId}/share/revoke`}>
        <Csrf c={c} />
        <button type="submit" class="danger">Revoke all private links</button>
      </form>
    </section>
  );
}

const failure = (c: Context<AppEnv>, message: string, status: 400 | 403 | 404 | 410) =>
  c.html(
    <AppLayout c={c} title="Private link">
      <h1>Private link</h1>
      <Notice kind="error">{message}</Notice>
    </AppLayout>,
    status,
  );

const refusal = (status: number) => (status === 404 || status === 403 || status === 410 ? status : 400);

export const shareLinkPages = new Hono<AppEnv>();

shareLinkPages.post("/app/files/:id/share", requireFormToken, async (c) => {
  const id = c.req.param("id");
  const form = (await c.req.parseBody()) as Form;
  const r = await result(call(apiOf(c), "files.createSignedUrl", { params: { path: { id } }, body: { expiresIn: Number(str(form, "expiresIn")) } }));
  if (!r.ok) return failure(c, apiMessage(r), refusal(r.status));
  return c.html(
    <AppLayout c={c} title="Private link">
      <h1>Private link</h1>
      <p>
        Anyone with this link can see the image until <When iso={r.body.expiresAt} /> ({new Date(r.body.expiresAt).toISOString().slice(11, 16)} UTC), even
        while the file is private. Copy it now: it is not shown again.
      </p>
      <div class="links">
        <CopyField id="signed-link" label="Private link" value={r.body.url} />
      </div>
      <p>
        <a href={`/app/files/${id}/edit`}>Back to the file</a> (to revoke every private link made so far)
      </p>
    </AppLayout>,
  );
});

shareLinkPages.post("/app/files/:id/share/revoke", requireFormToken, async (c) => {
  const id = c.req.param("id");
  const r = await result(call(apiOf(c), "files.revokeSignedUrls", { params: { path: { id } } }));
  if (!r.ok) return failure(c, apiMessage(r), refusal(r.status));
  return c.redirect(`/app/files/${id}/edit?revoked=1`, 303);
});
