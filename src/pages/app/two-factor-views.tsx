// The views of two-factor sign-in (extensions.md §5): the login page's second step, the account page's section,
// the enrolment page (the otpauth URL as a QR code drawn here as SVG, and as text), and the recovery codes,
// shown once. Handlers: ./two-factor.tsx.
import type { Context } from "hono";
import { encode } from "uqr";
import type { AppEnv } from "../../platform/http/env";
import { AppLayout, Csrf, Notice, When } from "./ui";
import type { SecondFactors } from "./api";
import { PasskeySignInForm } from "./passkey-views";

/**
 * The QR code of `text` as inline SVG (uqr encodes; one path of unit squares, no script or style attribute, so
 * the page's CSP has nothing to allow). White background and a 4-module quiet zone whatever the theme: scanners
 * need the contrast.
 */
export function QrCode(props: { text: string; label: string }) {
  const qr = encode(props.text, { ecc: "M", border: 4 });
  let d = "";
  qr.data.forEach((row, y) => row.forEach((dark, x) => (d += dark ? `M${x} ${y}h1v1h-1z` : "")));
  return (
    <svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${qr.size} ${qr.size}`} role="img" aria-label={props.label} shape-rendering="crispEdges">
      <rect width={qr.size} height={qr.size} fill="#ffffff" />
      <path d={d} fill="#000000" />
    </svg>
  );
}

/**
 * The second step of a sign-in: the token of the password step rides in a hidden field (single use, 5 minutes).
 * A passkey (when the account has one) and a code (TOTP, or a recovery code) are offered as the methods say.
 */
export function SecondStepPage(props: { c: Context<AppEnv>; mfaToken: string; methods: string[]; next?: string; error?: string }) {
  const totp = props.methods.includes("totp");
  const recovery = props.methods.includes("recovery");
  const hint = totp
    ? `The 6-digit code your authenticator app shows${recovery ? ", or one of your recovery codes if you lost the app" : ""}.`
    : "If you cannot use your passkey: one of your recovery codes.";
  return (
    <AppLayout c={props.c} title="Two-step sign-in">
      <h1>Two-step sign-in</h1>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      {props.methods.includes("passkey") ? <PasskeySignInForm label="Use a passkey" mfaToken={props.mfaToken} methods={props.methods} next={props.next} /> : null}
      {totp || recovery ? (
        <form method="post" action="/app/login/2fa" class="stack panel">
          <input type="hidden" name="mfaToken" value={props.mfaToken} />
          <input type="hidden" name="methods" value={props.methods.join(",")} />
          <input type="hidden" name="next" value={props.next ?? ""} />
          <label for="code">{totp ? "Code" : "Recovery code"}</label>
          <p id="code-hint" class="muted">
            {hint}
          </p>
          <input id="code" name="code" autocomplete="one-time-code" autocapitalize="off" spellcheck={false} required maxlength={64} aria-describedby="code-hint" />
          <button type="submit">Verify</button>
        </form>
      ) : null}
      <p>
        <a href="/app/login">Start again</a>
      </p>
    </AppLayout>
  );
}

/** The account page's section: set up, start again, or turn off with a current code or the password. */
export function TwoFactorSection(props: { c: Context<AppEnv>; status?: SecondFactors }) {
  const { c, status } = props;
  const start = (label: string) => (
    <form method="post" action="/app/account/totp">
      <Csrf c={c} />
      <button type="submit">{label}</button>
    </form>
  );
  return (
    <section aria-labelledby="two-factor">
      <h2 id="two-factor">Two-factor sign-in</h2>
      {!status ? (
        <p class="muted">Two-factor state unavailable.</p>
      ) : status.totp.state === "on" ? (
        <>
          <p id="totp-on">
            On since <When iso={status.totp.confirmedAt ?? ""} />: signing in asks for a code from your authenticator app. Recovery codes left:{" "}
            {status.recoveryCodesRemaining}.
          </p>
          <form method="post" action="/app/account/totp/off" class="stack panel">
            <Csrf c={c} />
            <p>To turn it off, enter a current code from the app, or your password.</p>
            <label for="offCode">Code from the app</label>
            <input id="offCode" name="code" autocomplete="one-time-code" inputmode="numeric" maxlength={7} />
            <label for="offPassword">Or your password</label>
            <input id="offPassword" name="password" type="password" autocomplete="current-password" />
            <button type="submit" class="danger">Turn off two-factor sign-in</button>
          </form>
        </>
      ) : (
        <>
          <p id="totp-off">
            {status.totp.state === "pending"
              ? "Setup was started but not finished."
              : "Protect your account with a code from an authenticator app, asked for after your password."}
          </p>
          {start(status.totp.state === "pending" ? "Start the setup again" : "Set up an authenticator app")}
        </>
      )}
    </section>
  );
}

/** Base32 in groups of four, as people type it. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, "$1 ");

/** Enrolment: scan the QR code (or type the key), then confirm with the code the app shows. */
export function EnrolPage(props: { c: Context<AppEnv>; secret: string; otpauthUrl: string; error?: string }) {
  const { c, secret, otpauthUrl } = props;
  return (
    <AppLayout c={c} title="Set up an authenticator app">
      <h1>Set up an authenticator app</h1>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <ol class="steps">
        <li>
          <p>Scan this QR code with an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, Aegis, …):</p>
          <QrCode text={otpauthUrl} label="QR code of the setup link for your authenticator app" />
        </li>
        <li>
          <p>Can’t scan it? Enter this key in the app by hand (time-based, 6 digits, 30 seconds):</p>
          <div class="copyline">
            <code id="totp-secret">{grouped(secret)}</code>
            <button type="button" class="small" data-copy="#totp-secret" data-copy-text={secret} aria-label="Copy the key">Copy</button>
          </div>
          <details class="options">
            <summary>The setup link as text</summary>
            <code id="otpauth-url">{otpauthUrl}</code>
          </details>
        </li>
        <li>
          <form method="post" action="/app/account/totp/confirm" class="stack panel">
            <Csrf c={c} />
            <input type="hidden" name="secret" value={secret} />
            <input type="hidden" name="otpauthUrl" value={otpauthUrl} />
            <label for="code">The 6-digit code the app shows</label>
            <input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required maxlength={7} />
            <button type="submit">Turn on two-factor sign-in</button>
          </form>
        </li>
      </ol>
      <p>
        <a href="/app/account">Cancel</a>
      </p>
    </AppLayout>
  );
}

/**
 * "Sign out everywhere else", offered where a factor was just turned on: sessions opened before it (perhaps by
 * whoever knew the password) are not ended by it. One click: one form post (./two-factor.tsx postSignOutOthers).
 */
export function SignOutOthers(props: { c: Context<AppEnv>; first?: string }) {
  return (
    <form method="post" action="/app/account/sign-out-others" class="stack panel" id="sign-out-others">
      <Csrf c={props.c} />
      <p>
        Browsers and devices already signed in stay signed in without the new step. If any of them may not be yours, sign them out.
        {props.first ? ` ${props.first}` : ""}
      </p>
      <button type="submit">Sign out everywhere else</button>
    </form>
  );
}

/** The recovery codes, shown this once (when TOTP is confirmed, or the first passkey is added). */
export function RecoveryCodesPage(props: { c: Context<AppEnv>; codes: string[]; notice?: string; done?: string }) {
  return (
    <AppLayout c={props.c} title="Save your recovery codes">
      <h1>Save your recovery codes</h1>
      <Notice kind="ok">{props.notice ?? "Two-factor sign-in is on."}</Notice>
      <Notice kind="error">Save these codes now: they are shown only this once. Each one signs you in once if you lose your authenticator app or passkey.</Notice>
      <ol id="recovery-codes" class="codes">
        {props.codes.map((code) => (
          <li>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <p class="row">
        <button type="button" data-copy="#recovery-codes" data-copy-text={props.codes.join("\n")}>
          Copy the recovery codes
        </button>
        <a class="button primary" href={props.done ?? "/app/account?totp=on"}>
          I have saved them
        </a>
      </p>
      <SignOutOthers c={props.c} first="Save your recovery codes first: this page is not shown again." />
    </AppLayout>
  );
}
