// The views of passkeys in the web app (extensions.md §5): the account page's section (list, add), the removal's
// confirmation page, and the sign-in form of the login page and the second step. The forms marked data-passkey
// are the client script's (client/passkey-forms.ts): hidden until it finds WebAuthn, then it asks the API for
// options, runs the browser's ceremony, puts the answer into the hidden `response` field and posts the form on.
// Handlers: ./passkeys.tsx.
import type { Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { PASSKEYS } from "../../config/auth";
import { AppLayout, Csrf, Notice, When } from "./ui";
import type { Passkeys } from "./api";

/** Where the script says what went wrong (a closed prompt, an unsupported browser) and what it is doing. */
const Status = () => <p class="muted" data-passkey-status="" role="status"></p>;

/** `recoveryCodesLeft`: shown here when TOTP is off (its section shows them when it is on). */
export function PasskeysSection(props: { c: Context<AppEnv>; passkeys?: Passkeys; recoveryCodesLeft?: number }) {
  const { c, passkeys } = props;
  return (
    <section aria-labelledby="passkeys">
      <h2 id="passkeys">Passkeys</h2>
      <p>
        A passkey signs you in with your fingerprint, face or device PIN instead of the password, and can be the second step after the
        password.
      </p>
      {!passkeys ? (
        <p class="muted">Passkeys unavailable.</p>
      ) : passkeys.length === 0 ? (
        <p id="no-passkeys">No passkeys yet.</p>
      ) : (
        <ul class="passkeys" id="passkey-list">
          {passkeys.map((p) => (
            <li>
              <strong>{p.name}</strong>{" "}
              <span class="muted">
                added <When iso={p.createdAt} />, {p.lastUsedAt ? <>last used <When iso={p.lastUsedAt} /></> : "never used"}
              </span>{" "}
              <a href={`/app/account/passkeys/${encodeURIComponent(p.id)}/remove`}>
                Remove<span class="sr"> {p.name}</span>
              </a>
            </li>
          ))}
        </ul>
      )}
      {passkeys?.length && props.recoveryCodesLeft !== undefined ? <p id="passkey-recovery">Recovery codes left: {props.recoveryCodesLeft}.</p> : null}
      <form method="post" action="/app/account/passkeys" class="stack panel" data-passkey="register" hidden>
        <Csrf c={c} />
        <input type="hidden" name="response" value="" />
        <label for="passkey-name">A name for the new passkey</label>
        <input id="passkey-name" name="name" required maxlength={PASSKEYS.nameMaxLength} autocomplete="off" placeholder="Work laptop" />
        <Status />
        <button type="submit">Add a passkey</button>
      </form>
      <p class="muted" data-passkey-unsupported="">
        Adding a passkey needs JavaScript and a browser that supports passkeys.
      </p>
    </section>
  );
}

/** The confirmation of a removal: the password, or a current code when TOTP is on. */
export function RemovePasskeyPage(props: { c: Context<AppEnv>; passkey: Passkeys[number]; totpOn: boolean; error?: string }) {
  const { c, passkey, totpOn } = props;
  return (
    <AppLayout c={c} title="Remove a passkey">
      <h1>Remove the passkey “{passkey.name}”</h1>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <form method="post" action={`/app/account/passkeys/${encodeURIComponent(passkey.id)}/remove`} class="stack panel">
        <Csrf c={c} />
        <p>It will no longer sign you in. To confirm, enter {totpOn ? "a current code from your authenticator app, or your password" : "your password"}.</p>
        {totpOn ? (
          <>
            <label for="remove-code">Code from the app</label>
            <input id="remove-code" name="code" autocomplete="one-time-code" inputmode="numeric" maxlength={7} />
          </>
        ) : null}
        <label for="remove-password">{totpOn ? "Or your password" : "Password"}</label>
        <input id="remove-password" name="password" type="password" autocomplete="current-password" required={!totpOn} />
        <button type="submit" class="danger">Remove the passkey</button>
      </form>
      <p>
        <a href="/app/account">Cancel</a>
      </p>
    </AppLayout>
  );
}

/**
 * "Sign in with a passkey" (login page) and "Use a passkey" (second step, with the password step's mfaToken): the
 * answer goes to POST /app/login/passkey.
 */
export function PasskeySignInForm(props: { label: string; next?: string; mfaToken?: string; methods?: string[] }) {
  return (
    <form method="post" action="/app/login/passkey" class="stack panel" data-passkey="sign-in" hidden>
      <input type="hidden" name="response" value="" />
      {props.mfaToken ? <input type="hidden" name="mfaToken" value={props.mfaToken} /> : null}
      {props.methods ? <input type="hidden" name="methods" value={props.methods.join(",")} /> : null}
      <input type="hidden" name="next" value={props.next ?? ""} />
      <Status />
      <button type="submit">{props.label}</button>
    </form>
  );
}
