// `?error=` names a code, never text. A page that redirects after a failed form post puts the code of what went
// wrong in the query: the API's `details.code` (one of the closed set in platform/errors/error-codes.ts) or one of the
// pages' own below. The page it lands on shows that code's message from these tables, and nothing at all for
// any other value: a link such as `?error=Your account is locked. Call …` must not put someone's words on our
// page (phishing).
import { ERROR_CODES, type ErrorCode } from "../../platform/errors/error-codes";
import { Notice } from "./ui";

/** The pages' own failures, which no API call answers. */
const PAGE_ERRORS = {
  no_selection: "Select at least one file first.",
  no_album: "Create an album first (Albums).",
  no_images: "Choose at least one image.",
  no_passkey_answer: "Your browser sent no passkey: try again.",
  passwords_differ: "The two new passwords are not the same.",
  rate_limited: "Too many requests: please wait a moment and try again.",
  request_failed: "That did not work: please try again.",
} as const;

/**
 * The API's codes in a person's words where the table's description is written for programs; any other code
 * reads as its description.
 */
const API_WORDS: Partial<Record<ErrorCode, string>> = {
  http_error: "The request was not understood: please try again.",
  validation_error: "Something in the form is not valid: check it and try again.",
  malformed_json: "The request was not understood: please try again.",
  unauthorized: "Your session ended: log in again.",
  invalid_token: "Your session ended: log in again.",
  account_banned: "This account is suspended.",
  account_suspended: "This account is suspended.",
  insufficient_role: "Your account may not do this.",
  not_owner: "Only the owner can change it.",
  invalid_password: "The password is not correct.",
  invalid_passkey_challenge: "The passkey request expired: try again.",
  invalid_passkey_registration: "Your passkey could not be verified: try again.",
  cover_not_in_album: "The cover must be an image of this album.",
  file_not_found: "That file was not found.",
  album_not_found: "That album was not found.",
  file_not_in_album: "That file is not in this album.",
  passkey_not_found: "That passkey was not found.",
  report_not_found: "That report was not found.",
  totp_not_enabled: "Two-factor sign-in is not on.",
  totp_already_enabled: "Two-factor sign-in is already on.",
  totp_not_pending: "No authenticator is waiting for confirmation: set it up again.",
  already_verified: "Your e-mail address is already verified.",
  username_taken: "That username is taken.",
  internal_error: "Something went wrong on our side: please try again.",
  http_error_internal: "Something went wrong on our side: please try again.",
  owner_moving: "Your files are being moved to another database: try again in a minute.",
};

export type PageErrorCode = keyof typeof PAGE_ERRORS;
export type ErrorParam = PageErrorCode | ErrorCode;

const known = <T extends object>(table: T, key: string): key is Extract<keyof T, string> => Object.hasOwn(table, key);
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** The code a refused in-process API call leaves in `?error=`: its `details.code` when it is one of ours. */
export function errorCodeOf(r: { status: number; body?: { details?: { code?: unknown } } }): ErrorParam {
  if (r.status === 429) return "rate_limited";
  const code = r.body?.details?.code;
  return typeof code === "string" && known(ERROR_CODES, code) ? code : "request_failed";
}

/** `error=<code>` for a redirect's query (codes are [a-z_], nothing to escape). */
export const errorQuery = (code: ErrorParam) => `error=${code}`;

/** What `?error=` says on a page: the message of a code of the closed set; undefined for anything else. */
export function errorText(param: string | undefined): string | undefined {
  if (!param) return undefined;
  if (known(PAGE_ERRORS, param)) return PAGE_ERRORS[param];
  if (known(ERROR_CODES, param)) return API_WORDS[param] ?? sentence(ERROR_CODES[param].description);
  return undefined;
}

/** The error notice for a page's `?error=` (none for an unknown value). */
export function ErrorNotice(props: { param: string | undefined }) {
  const text = errorText(props.param);
  return text ? <Notice kind="error">{text}</Notice> : null;
}
