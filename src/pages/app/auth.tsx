// Sign up, log in (its second step: ./two-factor.tsx; with a passkey: ./passkeys.tsx), log out, e-mail
// verification, and the short-lived token for the client script.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Notice } from "./ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage } from "./api";
import { errorCodeOf, errorQuery } from "./error-param";
import { FieldError, fieldErrors, invalid, type FieldErrors } from "./form-errors";
import { clearSessionCookie, setSessionCookie } from "./session";
import { requireFormToken, requireSession, str, type Form } from "./context";
import { postSecondStep, safeNext, secondStep } from "./two-factor";
import { PasskeySignInForm } from "./passkey-views";
import { postPasskeySignIn } from "./passkeys";

/** `errors`: the refused form's messages beside its fields (form-errors.tsx); `error`: one about none of them. */
function LoginPage(props: { c: Context<AppEnv>; error?: string; errors?: FieldErrors; email?: string; next?: string }) {
  const { errors } = props;
  const notice = props.error ?? errors?.notice;
  return (
    <AppLayout c={props.c} title="Log in">
      <h1>Log in</h1>
      {notice ? <Notice kind="error">{notice}</Notice> : null}
      <form method="post" action="/app/login" class="stack panel">
        <input type="hidden" name="next" value={props.next ?? ""} />
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="email" required value={props.email ?? ""} {...invalid(errors, "email", "email")} />
        <FieldError errors={errors} name="email" id="email" />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required {...invalid(errors, "password", "password")} />
        <FieldError errors={errors} name="password" id="password" />
        <button type="submit">Log in</button>
      </form>
      <PasskeySignInForm label="Sign in with a passkey" next={props.next} />
      <p>
        <a href="/app/forgot-password">Forgot your password?</a>
      </p>
      <p>
        No account yet? <a href="/app/signup">Sign up</a>
      </p>
    </AppLayout>
  );
}

function SignupPage(props: { c: Context<AppEnv>; errors?: FieldErrors; form?: Form }) {
  const { errors } = props;
  const v = (k: string) => (props.form ? str(props.form, k) : "");
  return (
    <AppLayout c={props.c} title="Sign up">
      <h1>Create an account</h1>
      {props.c.req.query("deleted") ? <Notice kind="ok">Your account was deleted.</Notice> : null}
      {errors?.notice ? <Notice kind="error">{errors.notice}</Notice> : null}
      <form method="post" action="/app/signup" class="stack panel">
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="email" required value={v("email")} {...invalid(errors, "email", "email")} />
        <FieldError errors={errors} name="email" id="email" />
        <label for="username">Username</label>
        <input id="username" name="username" autocomplete="username" required minlength={3} maxlength={32} pattern="[A-Za-z0-9_.\-]+" value={v("username")} {...invalid(errors, "username", "username")} />
        <FieldError errors={errors} name="username" id="username" />
        <label for="password">Password (at least 8 characters)</label>
        {/* A password is never sent back into a page: retyped after a refusal. */}
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength={8} {...invalid(errors, "password", "password")} />
        <FieldError errors={errors} name="password" id="password" />
        <label>
          <input type="checkbox" name="ageConfirmed" value="1" checked={v("ageConfirmed") === "1"} /> I am 18 or older
        </label>
        <button type="submit">Sign up</button>
      </form>
      <p>
        Already registered? <a href="/app/login">Log in</a>
      </p>
    </AppLayout>
  );
}

const SIGNUP_FIELDS = { paths: { email: "email", username: "username", password: "password" }, codes: { email_taken: "email", username_taken: "username" } };
const LOGIN_FIELDS = { paths: { email: "email", password: "password" }, codes: { invalid_credentials: "password" } };

export const authPages = new Hono<AppEnv>();

authPages.get("/app/login", (c) => c.html(<LoginPage c={c} next={c.req.query("next")} />));
authPages.post("/app/login", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const r = await result(call(apiOf(c), "auth.login", { body: { email: str(form, "email"), password: str(form, "password") } }));
  if (!r.ok) return c.html(<LoginPage c={c} errors={fieldErrors(r, LOGIN_FIELDS)} email={str(form, "email")} next={str(form, "next")} />, r.status === 429 ? 429 : 401);
  if ("mfaRequired" in r.body) return secondStep(c, r.body, str(form, "next"));
  setSessionCookie(c, r.body.session);
  return c.redirect(safeNext(str(form, "next")), 303);
});
authPages.post("/app/login/2fa", (c) => postSecondStep(c, (error, status) => c.html(<LoginPage c={c} error={error} />, status)));
authPages.post("/app/login/passkey", (c) => postPasskeySignIn(c, (error, status) => c.html(<LoginPage c={c} error={error} />, status)));

authPages.get("/app/signup", (c) => c.html(<SignupPage c={c} />));
authPages.post("/app/signup", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const r = await result(call(apiOf(c), "auth.signup", { body: {
    email: str(form, "email"),
    username: str(form, "username"),
    password: str(form, "password"),
    ageConfirmed: str(form, "ageConfirmed") === "1",
  } }));
  if (!r.ok) return c.html(<SignupPage c={c} errors={fieldErrors(r, SIGNUP_FIELDS)} form={form} />, r.status === 429 ? 429 : 400);
  setSessionCookie(c, r.body.session);
  return c.redirect("/app/account?welcome=1", 303);
});

// The public pages' header links here (a cached page holds no form token): one button, with this session's token.
authPages.get("/app/logout", requireSession, (c) =>
  c.html(
    <AppLayout c={c} title="Log out">
      <h1>Log out?</h1>
      <form method="post" action="/app/logout" class="row">
        <input type="hidden" name="_csrf" value={c.get("csrf")} />
        <button type="submit" class="primary">Log out</button> <a href="/app/files">Stay signed in</a>
      </form>
    </AppLayout>,
  ),
);
authPages.post("/app/logout", requireSession, requireFormToken, async (c) => {
  await result(call(apiOf(c), "auth.logout"));
  clearSessionCookie(c);
  return c.redirect("/app/login", 303);
});

// The mail link only shows a button: a GET must not use up the token (mail scanners prefetch links). The token
// rides in a hidden field; without one, a box for the code from the mail.
authPages.get("/verify-email", (c) => {
  const token = c.req.query("token") ?? "";
  return c.html(
    <AppLayout c={c} title="Verify e-mail">
      <h1>Verify your e-mail address</h1>
      <form method="post" action="/verify-email" class="stack panel">
        {token ? (
          <>
            <input type="hidden" name="token" value={token} />
            <p>Confirm that this address is yours to finish setting up your account.</p>
          </>
        ) : (
          <>
            <label for="token">Code from the e-mail</label>
            <input id="token" name="token" required autocomplete="one-time-code" />
          </>
        )}
        <button type="submit">Confirm my e-mail address</button>
      </form>
    </AppLayout>,
  );
});
authPages.post("/verify-email", async (c) => {
  const form = (await c.req.parseBody()) as Form;
  const r = await result(call(apiOf(c), "auth.verifyEmail", { body: { token: str(form, "token") } }));
  const signedIn = Boolean(c.get("pageSession"));
  return c.html(
    <AppLayout c={c} title="Verify e-mail">
      <h1>Verify your e-mail address</h1>
      {r.ok ? <Notice kind="ok">Your e-mail address is verified.</Notice> : <Notice kind="error">{apiMessage(r)}</Notice>}
      <p>{signedIn ? <a href="/app/upload">Start uploading</a> : <a href="/app/login">Log in</a>}</p>
    </AppLayout>,
    r.ok ? 200 : 400,
  );
});

authPages.post("/app/resend-verification", requireSession, requireFormToken, async (c) => {
  const r = await result(call(apiOf(c), "auth.resendVerification"));
  return c.redirect(`/app/account?${r.ok ? "resent=1" : errorQuery(errorCodeOf(r))}`, 303);
});

// Short-lived token for same-origin client scripts. Only same-origin script can send X-Requested-With without
// a preflight we never answer; the cookie is SameSite=Strict.
authPages.get("/app/token", (c) => {
  if (c.req.header("x-requested-with") !== "imghost") return c.json({ error: "Forbidden", message: "Missing X-Requested-With" }, 403);
  const s = c.get("pageSession");
  if (!s) return c.json({ error: "Unauthorized", message: "Not signed in" }, 401);
  return c.json({ access_token: s.access, token_type: "Bearer" });
});
