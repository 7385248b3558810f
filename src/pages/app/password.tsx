// Password recovery pages (extensions.md §7): "Forgot your password?" (/app/forgot-password, linked from the login
// page) and the reset page the mail links to (/reset-password, beside /verify-email). Both are signed-out forms,
// guarded like login by the same-origin check of context.ts. The change form is on the account page (account.tsx).
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Notice } from "./ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage } from "./api";
import { clearSessionCookie } from "./session";
import { str, type Form } from "./context";
import { errorText } from "./error-param";


function ForgotPage(props: { c: Context<AppEnv>; email?: string; error?: string; sent?: string }) {
  return (
    <AppLayout c={props.c} title="Forgot your password?">
      <h1>Forgot your password?</h1>
      {props.sent ? <Notice kind="ok">{props.sent}</Notice> : null}
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <p>Enter the e-mail address of your account, and we send you a link to choose a new password.</p>
      <form method="post" action="/app/forgot-password" class="stack panel">
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="email" required value={props.email ?? ""} />
        <button type="submit">Send the reset link</button>
      </form>
      <p>
        Remembered it? <a href="/app/login">Log in</a>
      </p>
    </AppLayout>
  );
}

/** The new password twice (a typo here would lock the person out), and the token: from the link, or typed in. */
function ResetForm(props: { token: string }) {
  return (
    <form method="post" action="/reset-password" class="stack panel">
      {props.token ? (
        <input type="hidden" name="token" value={props.token} />
      ) : (
        <>
          <label for="token">Code from the e-mail</label>
          <input id="token" name="token" required autocomplete="one-time-code" />
        </>
      )}
      <label for="newPassword">New password (at least 8 characters)</label>
      <input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required minlength={8} />
      <label for="repeatPassword">Repeat the new password</label>
      <input id="repeatPassword" name="repeatPassword" type="password" autocomplete="new-password" required minlength={8} />
      <button type="submit">Set the new password</button>
    </form>
  );
}

function ResetPage(props: { c: Context<AppEnv>; token: string; error?: string; tokenRefused?: boolean }) {
  return (
    <AppLayout c={props.c} title="Choose a new password">
      <h1>Choose a new password</h1>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      {props.tokenRefused ? (
        <p>
          <a href="/app/forgot-password">Ask for a new reset link</a>
        </p>
      ) : (
        <ResetForm token={props.token} />
      )}
    </AppLayout>
  );
}

export const passwordPages = new Hono<AppEnv>();

passwordPages.get("/app/forgot-password", (c) => c.html(<ForgotPage c={c} />));
passwordPages.post("/app/forgot-password", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const email = str(form, "email");
  const r = await result(call(apiOf(c), "auth.forgotPassword", { body: { email } }));
  if (!r.ok) return c.html(<ForgotPage c={c} email={email} error={apiMessage(r)} />, r.status === 429 ? 429 : 400);
  return c.html(<ForgotPage c={c} email={email} sent={r.body.message} />);
});

// The mail link only shows the form: a GET must not use up the token (mail scanners prefetch links).
passwordPages.get("/reset-password", (c) => c.html(<ResetPage c={c} token={c.req.query("token") ?? ""} />));
passwordPages.post("/reset-password", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const token = str(form, "token");
  const newPassword = str(form, "newPassword");
  if (newPassword !== str(form, "repeatPassword")) return c.html(<ResetPage c={c} token={token} error={errorText("passwords_differ")} />, 400);
  const r = await result(call(apiOf(c), "auth.resetPassword", { body: { token, newPassword } }));
  if (!r.ok) {
    const tokenRefused = r.body.details?.code === "invalid_reset_token";
    return c.html(<ResetPage c={c} token={token} error={apiMessage(r)} tokenRefused={tokenRefused} />, r.status === 429 ? 429 : 400);
  }
  // Every session of the account has ended, this browser's too (and the navigation says so).
  clearSessionCookie(c);
  c.set("pageSession", null);
  return c.html(
    <AppLayout c={c} title="Password changed">
      <h1>Password changed</h1>
      <Notice kind="ok">Your password was changed. Every device signed in to your account was signed out.</Notice>
      <p>
        <a href="/app/login">Log in with your new password</a>
      </p>
    </AppLayout>,
  );
});
