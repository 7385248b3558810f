// Passkeys in the web app (extensions.md §5): add one (the name and the browser's answer, which the account page's
// script put into the form; the first factor's recovery codes shown once), remove one after a confirmation page,
// and sign in with one (the login page's "Sign in with a passkey", and the second step's "Use a passkey" with the
// password step's mfaToken). The account handlers are registered by account.tsx behind its session and form-token
// checks, the sign-in by auth.tsx. Views: ./passkey-views.tsx.
import type { Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage, type Schemas } from "./api";
import { errorCodeOf, errorQuery, errorText, type ErrorParam } from "./error-param";
import { setSessionCookie } from "./session";
import { str, type Form } from "./context";
import { AppLayout } from "./ui";
import { RecoveryCodesPage, SecondStepPage } from "./two-factor-views";
import { RemovePasskeyPage } from "./passkey-views";
import { safeNext } from "./two-factor";

type C = Context<AppEnv>;
export type LoginPage = (error: string, status: 400 | 401 | 403 | 429) => Response | Promise<Response>;

/** The browser's answer as the script put it into the form (JSON); undefined when there is none. */
function answerOf(form: Form): unknown {
  try {
    return JSON.parse(str(form, "response"));
  } catch {
    return undefined;
  }
}

const back = (c: C, error: ErrorParam) => c.redirect(`/app/account?${errorQuery(error)}`, 303);

export async function postAddPasskey(c: C) {
  const form = (await c.req.parseBody()) as Form;
  const response = answerOf(form);
  if (response === undefined) return back(c, "no_passkey_answer");
  const r = await result(call(apiOf(c), "auth.passkeys.register", { body: { name: str(form, "name"), response: response as Schemas["RegistrationCredential"] } }));
  if (!r.ok) return back(c, errorCodeOf(r));
  if (r.body.recoveryCodes) return c.html(<RecoveryCodesPage c={c} codes={r.body.recoveryCodes} notice="Your passkey was added." done="/app/account?passkey=added" />);
  return c.redirect("/app/account?passkey=added", 303);
}

export async function getRemovePasskey(c: C) {
  const id = c.req.param("id") ?? "";
  const [list, factors] = await Promise.all([result(call(apiOf(c), "auth.passkeys.list")), result(call(apiOf(c), "auth.secondFactors"))]);
  const passkey = list.ok ? list.body.passkeys.find((p) => p.id === id) : undefined;
  if (!passkey) {
    return c.html(
      <AppLayout c={c} title="Passkey not found">
        <h1>Passkey not found</h1>
        <p>There is no passkey of yours with that id.</p>
        <p>
          <a href="/app/account">Back to your account</a>
        </p>
      </AppLayout>,
      404,
    );
  }
  const totpOn = factors.ok && factors.body.totp.state === "on";
  return c.html(<RemovePasskeyPage c={c} passkey={passkey} totpOn={totpOn} error={errorText(c.req.query("error"))} />);
}

export async function postRemovePasskey(c: C) {
  const id = c.req.param("id") ?? "";
  const form = (await c.req.parseBody()) as Form;
  const code = str(form, "code").trim();
  const r = await result(call(apiOf(c), "auth.passkeys.delete", { params: { path: { id } }, body: code ? { code } : { password: str(form, "password") } }));
  if (r.ok) return c.redirect("/app/account?passkey=removed", 303);
  // A wrong password or code: the confirmation page again, saying why; anything else: the account page.
  if (r.status === 403 || r.status === 400 || r.status === 429) return c.redirect(`/app/account/passkeys/${encodeURIComponent(id)}/remove?${errorQuery(errorCodeOf(r))}`, 303);
  return back(c, errorCodeOf(r));
}

/**
 * A passkey's answer from the login page (a sign-in of its own) or the second step (with its mfaToken). A refused
 * answer at the second step keeps the step (the token is still good); a dead token goes back to the password.
 */
export async function postPasskeySignIn(c: C, loginPage: LoginPage) {
  const form = (await c.req.parseBody()) as Form;
  const next = str(form, "next");
  const mfaToken = str(form, "mfaToken");
  const response = answerOf(form);
  if (response === undefined) return loginPage(errorText("no_passkey_answer")!, 400);
  const r = await result(call(apiOf(c), "auth.passkeys.login", { body: { response: response as Schemas["AuthenticationCredential"], ...(mfaToken ? { mfaToken } : {}) } }));
  if (r.ok) {
    setSessionCookie(c, r.body.session);
    return c.redirect(safeNext(next), 303);
  }
  const status = r.status === 400 || r.status === 403 || r.status === 429 ? r.status : 401;
  if (mfaToken && r.body.details?.code !== "invalid_mfa_token") {
    const methods = str(form, "methods").split(",").filter(Boolean);
    return c.html(<SecondStepPage c={c} mfaToken={mfaToken} methods={methods} next={next} error={apiMessage(r)} />, status);
  }
  return loginPage(apiMessage(r), status);
}
