// Two-factor sign-in in the web app (extensions.md §5). The login form's second step (POST /app/login/2fa, after
// POST /app/login answered mfaRequired), and the account page's enrolment (POST /app/account/totp shows the QR
// code and the key; /confirm shows the recovery codes once) and removal (/off). The account handlers are
// registered by account.tsx, behind its session and form-token checks. Views: ./two-factor-views.tsx.
import type { Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage } from "./api";
import { errorCodeOf, errorQuery, type ErrorParam } from "./error-param";
import { setSessionCookie } from "./session";
import { str, type Form } from "./context";
import { EnrolPage, RecoveryCodesPage, SecondStepPage } from "./two-factor-views";

type C = Context<AppEnv>;

/** Where a finished sign-in goes: a page of the app, else the upload page (as after a one-step login). */
export const safeNext = (n: string | undefined) => (n && /^\/app\/[\w\-/]*$/.test(n) ? n : "/app/upload");

/** The login form's answer when the account has a second factor: the second step, no cookie yet. */
export const secondStep = (c: C, challenge: { mfaToken: string; methods: string[] }, next: string) =>
  c.html(<SecondStepPage c={c} mfaToken={challenge.mfaToken} methods={challenge.methods} next={next} />);

export async function postSecondStep(c: C, loginPage: (error: string, status: 401 | 429) => Response | Promise<Response>) {
  const form = (await c.req.parseBody()) as Form;
  const mfaToken = str(form, "mfaToken");
  const next = str(form, "next");
  const r = await result(call(apiOf(c), "auth.loginSecondStep", { body: { mfaToken, code: str(form, "code") } }));
  if (r.ok) {
    setSessionCookie(c, r.body.session);
    return c.redirect(safeNext(next), 303);
  }
  // A dead token (used, expired, unknown) sends the person back to the password; a wrong code lets them retry.
  if (r.body.details?.code === "invalid_mfa_token") return loginPage(apiMessage(r), 401);
  const methods = str(form, "methods").split(",").filter(Boolean);
  return c.html(<SecondStepPage c={c} mfaToken={mfaToken} methods={methods} next={next} error={apiMessage(r)} />, r.status === 429 ? 429 : 401);
}

const back = (c: C, error: ErrorParam) => c.redirect(`/app/account?${errorQuery(error)}`, 303);

export async function postEnrol(c: C) {
  const r = await result(call(apiOf(c), "auth.totp.enrol"));
  if (!r.ok) return back(c, errorCodeOf(r));
  return c.html(<EnrolPage c={c} secret={r.body.secret} otpauthUrl={r.body.otpauthUrl} />);
}

// A wrong code shows the same QR code again, from the form's hidden fields (the API shows a secret only once);
// they only ever reach this page, as text and as the QR code, never the API.
export async function postConfirm(c: C) {
  const form = (await c.req.parseBody()) as Form;
  const r = await result(call(apiOf(c), "auth.totp.confirm", { body: { code: str(form, "code") } }));
  if (r.ok) return c.html(<RecoveryCodesPage c={c} codes={r.body.recoveryCodes} />);
  const secret = str(form, "secret");
  const otpauthUrl = str(form, "otpauthUrl");
  if (r.body.details?.code === "totp_not_pending" || !/^[A-Z2-7]{16,128}$/.test(secret) || !otpauthUrl.startsWith("otpauth://totp/") || otpauthUrl.length > 512) {
    return back(c, errorCodeOf(r));
  }
  return c.html(<EnrolPage c={c} secret={secret} otpauthUrl={otpauthUrl} error={apiMessage(r)} />, r.status === 429 ? 429 : 400);
}

export async function postTurnOff(c: C) {
  const form = (await c.req.parseBody()) as Form;
  const code = str(form, "code").trim();
  const r = await result(call(apiOf(c), "auth.totp.disable", { body: code ? { code } : { password: str(form, "password") } }));
  return r.ok ? c.redirect("/app/account?totp=off", 303) : back(c, errorCodeOf(r));
}

/** One click from the page that turned a factor on: every other session ends, this one stays. */
export async function postSignOutOthers(c: C) {
  const r = await result(call(apiOf(c), "auth.logoutOthers"));
  return r.ok ? c.redirect(`/app/account?signedOut=${r.body.revoked}`, 303) : back(c, errorCodeOf(r));
}
