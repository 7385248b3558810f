// Account: verification state, profile and safe mode, password change, two-factor sign-in, passkeys, plan and
// usage, data export (streamed), deletion.
import { Hono } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Csrf, Notice, formatBytes } from "./ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage } from "./api";
import { clearSessionCookie, setSessionCookie } from "./session";
import { ErrorNotice, errorCodeOf, errorQuery, type ErrorParam } from "./error-param";
import { requireFormToken, requireSession, str, type Form } from "./context";
import { SignOutOthers, TwoFactorSection } from "./two-factor-views";
import { postConfirm, postEnrol, postSignOutOthers, postTurnOff } from "./two-factor";
import { PasskeysSection } from "./passkey-views";
import { getRemovePasskey, postAddPasskey, postRemovePasskey } from "./passkeys";
import { AccountInsights } from "./insights";

export const accountPages = new Hono<AppEnv>();
accountPages.use("/app/account", requireSession, requireFormToken);
accountPages.use("/app/account/*", requireSession, requireFormToken);

accountPages.get("/app/account", async (c) => {
  const [acc, lim, factors, passkeys] = await Promise.all([result(call(apiOf(c), "account.get")), result(call(apiOf(c), "account.limits")), result(call(apiOf(c), "auth.secondFactors")), result(call(apiOf(c), "auth.passkeys.list"))]);
  const q = c.req.query();
  const a = acc.ok ? acc.body.user : undefined;
  const l = lim.ok ? lim.body : undefined;
  return c.html(
    <AppLayout c={c} title="Account">
      <h1>Account</h1>
      {q.welcome ? <Notice kind="ok">Welcome! We sent you an e-mail with a verification link.</Notice> : null}
      {q.saved ? <Notice kind="ok">Saved.</Notice> : null}
      {q.resent ? <Notice kind="ok">A new verification e-mail is on its way.</Notice> : null}
      {q.password ? <Notice kind="ok">Your password was changed. Every other device was signed out.</Notice> : null}
      {q.totp === "on" ? <Notice kind="ok">Two-factor sign-in is on.</Notice> : null}
      {q.totp === "off" ? <Notice kind="ok">Two-factor sign-in is off.</Notice> : null}
      {q.passkey === "added" ? <Notice kind="ok">Your passkey was added.</Notice> : null}
      {q.totp === "on" || q.passkey === "added" ? <SignOutOthers c={c} /> : null}
      {q.signedOut ? <Notice kind="ok">{q.signedOut === "1" ? "1 other session was" : `${Number(q.signedOut) || 0} other sessions were`} signed out. This one stays.</Notice> : null}
      {q.passkey === "removed" ? <Notice kind="ok">The passkey was removed.</Notice> : null}
      <ErrorNotice param={q.error} />
      {!acc.ok ? <Notice kind="error">{apiMessage(acc)}</Notice> : null}
      <p>
        Signed in as <strong>{a?.username}</strong> ({a?.email}).{" "}
        {a?.emailVerified ? <span id="verified">E-mail verified.</span> : <span id="unverified">E-mail not verified yet.</span>}
      </p>
      <p>
        <a href="/app/webhooks">Webhooks</a>: tell your own server when files are uploaded, analysed, flagged or deleted.
      </p>
      {a?.role === "moderator" || a?.role === "admin" ? (
        <p>
          <a href="/app/moderation">Moderation queue</a>
          {a?.role === "admin" ? <> · <a href="/app/admin">Service insights</a></> : null}
        </p>
      ) : null}
      <AccountInsights c={c} />
      {a?.emailVerified ? null : (
        <form method="post" action="/app/resend-verification">
          <Csrf c={c} />
          <button type="submit">Resend the verification e-mail</button>
        </form>
      )}
      <h2>Profile and safe mode</h2>
      <form method="post" action="/app/account" class="stack panel">
        <Csrf c={c} />
        <label for="username">Username</label>
        <input id="username" name="username" value={a?.username ?? ""} minlength={3} maxlength={32} />
        <label><input type="checkbox" name="ageConfirmed" value="1" checked={Boolean(a?.ageConfirmed)} /> I confirm I am 18 or older</label>
        <label><input type="checkbox" name="safeMode" value="1" checked={a?.safeMode !== false} /> Safe mode (hide age-restricted images)</label>
        <button type="submit">Save</button>
      </form>
      <h2>Change password</h2>
      <form method="post" action="/app/account/password" class="stack panel">
        <Csrf c={c} />
        <label for="currentPassword">Current password</label>
        <input id="currentPassword" name="currentPassword" type="password" autocomplete="current-password" required />
        <label for="newPassword">New password (at least 8 characters)</label>
        <input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required minlength={8} />
        <label for="repeatPassword">Repeat the new password</label>
        <input id="repeatPassword" name="repeatPassword" type="password" autocomplete="new-password" required minlength={8} />
        <button type="submit">Change password</button>
      </form>
      <TwoFactorSection c={c} status={factors.ok ? factors.body : undefined} />
      <PasskeysSection
        c={c}
        passkeys={passkeys.ok ? passkeys.body.passkeys : undefined}
        recoveryCodesLeft={factors.ok && factors.body.totp.state !== "on" ? factors.body.recoveryCodesRemaining : undefined}
      />
      <h2>Plan and usage</h2>
      {l ? (
        <dl class="facts">
          <dt>Plan</dt>
          <dd id="plan">{l.plan}</dd>
          <dt>Largest file</dt>
          <dd>{formatBytes(l.maxFileBytes)}</dd>
          <dt>Storage</dt>
          <dd>
            <meter min={0} max={l.quota.total} value={l.quota.used} aria-label="Storage used"></meter> {formatBytes(l.quota.used)} of {formatBytes(l.quota.total)} used,{" "}
            {formatBytes(l.quota.remaining)} left
          </dd>
        </dl>
      ) : (
        <p class="muted">Limits unavailable.</p>
      )}
      <h2>Your data</h2>
      <p>
        <a href="/app/account/export" download>Download all my data (JSON)</a>
      </p>
      <h2>Delete account</h2>
      <form method="post" action="/app/account/delete" class="stack panel">
        <Csrf c={c} />
        <label for="delpw">Password</label>
        <input id="delpw" name="password" type="password" autocomplete="current-password" required />
        <label><input type="checkbox" name="confirm" value="1" required /> I understand my files and keys are deleted</label>
        <button type="submit" class="danger">Delete my account</button>
      </form>
    </AppLayout>,
  );
});

accountPages.post("/app/account", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const r = await result(call(apiOf(c), "account.update", { body: {
    ageConfirmed: str(form, "ageConfirmed") === "1",
    safeMode: str(form, "safeMode") === "1",
    ...(str(form, "username") ? { username: str(form, "username") } : {}),
  } }));
  return c.redirect(`/app/account?${r.ok ? "saved=1" : errorQuery(errorCodeOf(r))}`, 303);
});

// The API answers a fresh session (every other one, this cookie's included, has ended): the cookie carries it on.
accountPages.post("/app/account/password", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const back = (error: ErrorParam) => c.redirect(`/app/account?${errorQuery(error)}`, 303);
  if (str(form, "newPassword") !== str(form, "repeatPassword")) return back("passwords_differ");
  const r = await result(call(apiOf(c), "auth.changePassword", { body: { currentPassword: str(form, "currentPassword"), newPassword: str(form, "newPassword") } }));
  if (!r.ok) return back(errorCodeOf(r));
  setSessionCookie(c, r.body.session);
  return c.redirect("/app/account?password=1", 303);
});

// Two-factor sign-in: set up (the QR code page), confirm (the recovery codes, once), turn off (./two-factor.tsx).
accountPages.post("/app/account/totp", postEnrol);
accountPages.post("/app/account/totp/confirm", postConfirm);
accountPages.post("/app/account/totp/off", postTurnOff);
accountPages.post("/app/account/sign-out-others", postSignOutOthers);

// Passkeys: add (the name and the browser's answer, posted by the page's script), remove after a confirmation page.
accountPages.post("/app/account/passkeys", postAddPasskey);
accountPages.get("/app/account/passkeys/:id/remove", getRemovePasskey);
accountPages.post("/app/account/passkeys/:id/remove", postRemovePasskey);

// The API streams the export page by page; its body passes through unread, so it never sits in memory here.
accountPages.get("/app/account/export", async (c) => {
  const r = await result(call(apiOf(c), "account.export", { parseAs: "stream" }));
  if (!r.ok) return c.redirect(`/app/account?${errorQuery(errorCodeOf(r))}`, 303);
  return c.body(r.body, 200, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Disposition": `attachment; filename="imghost-export-${new Date().toISOString().slice(0, 10)}.json"`,
  });
});

accountPages.post("/app/account/delete", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const r = await result(call(apiOf(c), "account.delete", { body: { password: str(form, "password") } }));
  if (!r.ok) return c.redirect(`/app/account?${errorQuery(errorCodeOf(r))}`, 303);
  clearSessionCookie(c);
  return c.redirect("/app/signup?deleted=1", 303);
});
