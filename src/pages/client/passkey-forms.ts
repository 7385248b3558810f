// The passkey forms (pages/app/passkey-views.tsx): "Add a passkey", "Sign in with a passkey" and the second step's
// "Use a passkey", hidden until this script finds WebAuthn. On submit: options from the API (a registration's with the
// session token from GET /app/token; a sign-in's anonymous, with the mfaToken at the second step), the ceremony through
// @simplewebauthn/browser (webauthn.js, fetched only when a form is used), the answer into the hidden `response`
// field, and the form posted on for the page route to sign in (docs/accounts.md § Passkeys).
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { loadApi } from "./api-loader";

type Library = typeof import("@simplewebauthn/browser");

/** The API's options for this form, or its error (the API's message) thrown. */
async function optionsFor(form: HTMLFormElement): Promise<unknown> {
  const { answerOf, api, call } = await loadApi();
  if (form.dataset.passkey === "register") return answerOf(call(api().raw, "auth.passkeys.registrationOptions"));
  // A sign-in is anonymous (or the second step's mfaToken): no session, no token.
  const mfaToken = form.elements.namedItem("mfaToken");
  const body = mfaToken instanceof HTMLInputElement && mfaToken.value ? { mfaToken: mfaToken.value } : {};
  return answerOf(call(api({ anonymous: true }).raw, "auth.passkeys.loginOptions", { body }));
}

/** A sentence for a person from what the ceremony threw (WebAuthnError names, DOMException names). */
function explain(err: unknown): string {
  const name = err instanceof Error ? `${err.name} ${(err as Error & { code?: string }).code ?? ""}` : "";
  if (/NotAllowed|ERROR_CEREMONY_ABORTED/.test(name)) return "The passkey prompt was closed or timed out: try again.";
  if (/InvalidState|ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED/.test(name)) return "This device already holds a passkey for your account.";
  return err instanceof Error && err.message ? err.message : "Something went wrong: try again.";
}

async function ceremony(form: HTMLFormElement, libraryUrl: string): Promise<string> {
  const [library, options] = await Promise.all([import(libraryUrl) as Promise<Library>, optionsFor(form)]);
  const answer =
    form.dataset.passkey === "register"
      ? await library.startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON })
      : await library.startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON });
  return JSON.stringify(answer);
}

export function initPasskeyForms(libraryUrl: string | null): void {
  const forms = [...document.querySelectorAll<HTMLFormElement>("form[data-passkey]")];
  if (!forms.length || !libraryUrl || typeof window.PublicKeyCredential !== "function") return;
  for (const note of document.querySelectorAll<HTMLElement>("[data-passkey-unsupported]")) note.hidden = true;
  for (const form of forms) {
    form.hidden = false;
    const field = form.elements.namedItem("response");
    const status = form.querySelector("[data-passkey-status]");
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
    if (!(field instanceof HTMLInputElement)) continue;
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      if (button) button.disabled = true;
      if (status) status.textContent = "Waiting for your passkey…";
      ceremony(form, libraryUrl)
        .then((answer) => {
          field.value = answer;
          form.submit(); // no submit event: straight to the page route
        })
        .catch((err: unknown) => {
          if (status) status.textContent = explain(err);
          if (button) button.disabled = false;
        });
    });
  }
}
