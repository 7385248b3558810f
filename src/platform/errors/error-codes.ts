// Every error the API answers, in one closed table: a code, its status and its message. `ApiError` takes a code and
// nothing else decides the status, so a new failure means a new line here; the routes that answer it declare it
// (platform/http/route-errors.ts). The keys are what programs see in `details.code`, except for the few entries
// with `wire`: those keep a contract code that is answered with two statuses or two `error` texts
// (see decisions.md § Errors).
import type { ContentfulStatusCode, UnofficialStatusCode } from "hono/utils/http-status";

export type ErrorStatus = Exclude<ContentfulStatusCode, 429>;

/** tus's own 460 (checksum mismatch): a status Hono does not list, typed as its "unofficial status", sent as 460. */
const TUS_CHECKSUM_MISMATCH = 460 as UnofficialStatusCode;

type Spec = {
  status: ErrorStatus;
  /** One line for the OpenAPI document: when this is answered. */
  description: string;
  /** The contract's `error` text when it is not the status's reason phrase. */
  error?: string;
  /** The code programs see, when the key only tells apart two answers (status or `error`) of one contract code. */
  wire?: string;
};

export const ERROR_CODES = {
  // 400
  http_error: { status: 400, description: "Hono refused the request without a code of ours (middleware/error-handler.ts)" },
  validation_error: { status: 400, description: "Invalid input; details.fields lists the failing fields" },
  malformed_json: { status: 400, description: "The request body is not valid JSON" },
  invalid_variant: { status: 400, description: "A variant parameter of a byte link (w, h, fit, q, format) is not valid" },
  cannot_modify_self: { status: 400, description: "Admins cannot ban themselves or give up their own admin role" },
  invalid_verification_token: { status: 400, wire: "invalid_token", description: "The verification token is invalid, used or expired" },
  invalid_reset_token: { status: 400, description: "The reset token is invalid, used, expired or voided by a password change" },
  already_verified: { status: 400, description: "The e-mail address is already verified" },
  missing_signature: { status: 400, description: "The signature header is missing" },
  invalid_signature: { status: 400, description: "The signature header is malformed or does not match the body" },
  stale_signature: { status: 400, description: "The signature timestamp is outside the 5-minute window" },
  upload_mismatch: { status: 400, description: "details.field does not belong to this upload" },
  too_many_parts: { status: 400, description: "More parts than allowed; use a larger partSize" },
  invalid_part_number: { status: 400, description: "partNumber is outside 1 to the upload's partCount" },
  size_mismatch: { status: 400, description: "The bytes received are not the declared size" },
  checksum_mismatch: { status: 400, description: "The SHA-256 of the bytes received is not the declared one" },
  incomplete_body: { status: 400, description: "The request body ended early" },
  invalid_part: { status: 400, description: "The part list does not match the parts received" },
  invalid_form: { status: 400, description: "The body is not multipart/form-data" },
  missing_file: { status: 400, description: "The form has no file in the field `file`" },
  private_requires_account: { status: 400, description: "Anonymous uploads cannot be private" },
  invalid_shard: { status: 400, description: "toShard is not a shard of this deployment, or the one the owner is on" },
  cover_not_in_album: { status: 400, description: "coverImageId is not a file in this album" },
  too_many_keys: { status: 400, description: "The account has the most active API keys allowed" },
  invalid_passkey_challenge: { status: 400, description: "The answer's challenge is unknown, used, expired or another account's: ask for new options" },
  invalid_passkey_registration: { status: 400, description: "The authenticator's answer did not verify (origin, relying party, type, user presence or format)" },
  too_many_passkeys: { status: 400, description: "The account has the most passkeys allowed; remove one first" },
  too_many_webhooks: { status: 400, description: "The account has the most webhook endpoints allowed; delete one first" },
  // extensions.md § 2 (upload from a URL) names it; webhook endpoints follow the same address rules.
  invalid_url: {
    status: 400,
    description: "The URL (or a redirect's) is not one the service may call (scheme, port, credentials or an internal host)",
  },
  invalid_tus_header: { status: 400, description: "Upload-Length, Upload-Offset, Upload-Metadata or Upload-Checksum is malformed (details.header)" },
  deferred_length_unsupported: { status: 400, description: "Upload-Defer-Length is not supported: send Upload-Length" },
  // 401
  unauthorized: { status: 401, description: "Credentials are missing or not accepted here" },
  invalid_token: { status: 401, description: "The access token is invalid, expired or its session ended" },
  invalid_authorization_header: { status: 401, description: "The Authorization header is not 'Bearer <token>'" },
  account_banned: { status: 401, description: "The account behind the token or key is suspended" },
  invalid_api_key: { status: 401, error: "Invalid API key", description: "The API key is malformed or unknown" },
  api_key_revoked: { status: 401, error: "API key has been revoked", description: "The API key has been revoked" },
  api_key_expired: { status: 401, error: "API key has expired", description: "The API key has expired" },
  invalid_refresh_token: { status: 401, description: "The refresh token is unknown" },
  session_revoked: { status: 401, description: "The session was revoked, or its account banned or deleted" },
  refresh_token_reused: { status: 401, description: "A used refresh token came back: the session is revoked" },
  refresh_token_expired: { status: 401, description: "The refresh token or its session expired" },
  invalid_credentials: { status: 401, description: "Wrong e-mail or password" },
  invalid_mfa_token: { status: 401, description: "The mfaToken is unknown, used or older than 5 minutes: sign in again" },
  invalid_mfa_code: { status: 401, description: "The code is wrong, already used or outside its time window" },
  invalid_passkey: { status: 401, description: "The passkey's answer was not accepted (challenge, credential, origin, signature or counter): ask for new options" },
  invalid_upload_token: { status: 401, description: "The upload token is not valid for this upload" },
  album_password_required: { status: 401, description: "The album is password-protected; send X-Album-Password" },
  // 402
  quota_exceeded: { status: 402, description: "The upload would exceed the storage quota" },
  // 403
  api_key_not_allowed: { status: 403, description: "API keys cannot call this endpoint; the message names the routes they can" },
  missing_permission: { status: 403, description: "The API key lacks details.permission" },
  insufficient_role: { status: 403, description: "The caller's role does not allow this" },
  // At login, and for an API key of the account: not "API key has been revoked", the key is fine and works again
  // after an unban. (A session token of the account is refused with account_banned's 401, above.)
  account_suspended: { status: 403, wire: "account_banned", description: "The account is suspended (signing in, or an API key of it)" },
  invalid_password: { status: 403, description: "The (current) password is not correct" },
  invalid_totp_code: { status: 403, description: "The authenticator code is wrong, already used or outside its time window" },
  not_owner: { status: 403, description: "Only the owner can change it" },
  invalid_delete_token: { status: 403, description: "The delete token does not match this file" },
  // Only reads under safe mode (serving/access.ts assertReadable): the owner's PATCH/DELETE and reports skip it.
  content_restricted: { status: 403, description: "The file is age-restricted for this caller" },
  blocked_content: { status: 403, description: "The image matches content removed by moderation" },
  upload_token_scope: { status: 403, description: "An upload token only works for the file it was issued for" },
  invalid_album_password: { status: 403, description: "The album password is wrong" },
  email_not_verified: { status: 403, description: "Verify the e-mail address first" },
  hotlink_refused: { status: 403, description: "The file may not be embedded on the referring site" },
  // Signed links (serving/signed-links.ts) on byte links, outside the API: the contract's invalid_signature is also
  // billing's 400 above, so this key only tells the two statuses apart.
  signed_url_expired: { status: 403, description: "The signed link is past its exp" },
  invalid_link_signature: { status: 403, wire: "invalid_signature", description: "A signed link's parameters were changed, its signature is wrong, or it was revoked" },
  // 404
  totp_not_enabled: { status: 404, description: "The account has no TOTP factor" },
  passkey_not_found: { status: 404, description: "No such passkey on this account (or, for a second step, the account has none)" },
  not_found: { status: 404, description: "No such route or resource" },
  user_not_found: { status: 404, description: "No such account" },
  report_not_found: { status: 404, description: "No such report" },
  content_missing: { status: 404, description: "The file's bytes are no longer stored" },
  file_not_found: { status: 404, description: "No such file (or not visible to the caller)" },
  plan_change_not_found: { status: 404, description: "No such plan change" },
  upload_not_found: { status: 404, description: "No such upload" },
  album_not_found: { status: 404, description: "No such album (or not visible to the caller)" },
  webhook_not_found: { status: 404, description: "No such webhook endpoint on this account" },
  delivery_not_found: { status: 404, description: "No such delivery for this endpoint" },
  file_not_in_album: { status: 404, description: "The file is not in this album" },
  // 409
  offset_mismatch: { status: 409, description: "Upload-Offset is not the upload's offset (details.offset): HEAD it and resume from there" },
  owner_move_under_way: { status: 409, description: "Another move of this owner, to another shard, is under way: run it to the end first" },
  owner_move_unverified: { status: 409, description: "The copy on the new shard lacks rows: nothing was switched, the move copies again when run again" },
  totp_already_enabled: { status: 409, description: "TOTP is already on; turn it off first to enrol another authenticator" },
  totp_not_pending: { status: 409, description: "No TOTP enrolment is waiting for confirmation" },
  passkey_already_registered: { status: 409, description: "This credential is already registered" },
  email_taken: { status: 409, description: "An account with this e-mail exists" },
  username_taken: { status: 409, description: "The username is taken" },
  report_already_resolved: { status: 409, description: "The report was already resolved" },
  file_missing: { status: 409, description: "The reported file no longer exists" },
  no_owner_account: { status: 409, description: "The file was uploaded anonymously: no account to ban" },
  cannot_ban_self: { status: 409, description: "A moderator cannot ban their own account" },
  plan_change_decided: { status: 409, description: "The plan change was already approved or rejected" },
  file_under_review: { status: 409, description: "The file is hidden for moderation review: it can be deleted, not changed, until the review ends" },
  not_uploaded: { status: 409, description: "The bytes have not been received yet: details.flow names the upload's flow, the message where its bytes go" },
  upload_state_changed: { status: 409, description: "The upload changed state meanwhile; try again" },
  not_multipart: { status: 409, description: "The upload is a direct or tus upload: details.flow names it, the message where its bytes go" },
  already_finalized: { status: 409, description: "The upload is finalized; delete the file instead" },
  multipart_upload: { status: 409, description: "The upload is a multipart or tus upload: details.flow names it, the message where its bytes go" },
  already_uploaded: { status: 409, description: "The upload's bytes were already received" },
  webhook_disabled: { status: 409, description: "The endpoint is disabled; enable it first (PATCH enabled: true)" },
  // 410
  file_deleted: { status: 410, description: "The file has been deleted" },
  file_expired: { status: 410, description: "The file has expired" },
  file_banned: { status: 410, description: "The file has been removed by moderation" },
  file_unavailable: { status: 410, description: "The file is not available" },
  upload_ended: { status: 410, description: "The upload ended during completion" },
  upload_aborted: { status: 410, description: "The upload was aborted" },
  upload_failed: { status: 410, description: "The upload failed verification" },
  upload_expired: { status: 410, description: "The upload expired" },
  // 412
  tus_version_unsupported: { status: 412, description: "Tus-Resumable is missing or not 1.0.0 (Tus-Version lists what is supported)" },
  // 411
  length_required: { status: 411, description: "Send a Content-Length" },
  // 413
  body_too_large: { status: 413, description: "The JSON body is over the size limit" },
  file_too_large: { status: 413, description: "The file is over the plan's size limit" },
  upload_length_exceeded: { status: 413, description: "The chunk would end past Upload-Length" },
  use_multipart: { status: 413, description: "Too large for a direct upload; use multipart" },
  // 415
  unsupported_content_type: { status: 415, description: "The endpoint does not accept the request's Content-Type" },
  unsupported_media_type: { status: 415, description: "Only the listed image types can be uploaded" },
  content_type_mismatch: { status: 415, description: "The Content-Type is not the presigned one" },
  magic_mismatch: { status: 415, description: "The file's first bytes are not those of its declared type" },
  offset_octet_stream_required: { status: 415, description: "A chunk's Content-Type must be application/offset+octet-stream" },
  // 423
  upload_busy: { status: 423, description: "Another chunk of this upload is still being received; retry shortly" },
  // 460 (tus's own status)
  tus_checksum_mismatch: { status: TUS_CHECKSUM_MISMATCH, wire: "checksum_mismatch", description: "Upload-Checksum does not match the chunk: none of it was kept" },
  // The site's oEmbed endpoint (pages/file.tsx), outside the API and its document.
  oembed_url: { status: 400, description: "url is not an absolute URL" },
  oembed_format: { status: 501, description: "Only format=json is supported" },
  // 422
  url_fetch_failed: {
    status: 422,
    description: "The remote answered non-2xx (details.status), redirected too often, broke off, sent another length than it announced, or timed out",
  },
  // 5xx
  internal_error: { status: 500, description: "Something went wrong on our side" },
  http_error_internal: { status: 500, wire: "http_error", description: "Hono failed on its side (middleware/error-handler.ts)" },
  owner_moving: {
    status: 503,
    description: "The owner's data is being moved to another database: their changes wait until it is done (Retry-After)",
  },
  webhook_not_configured: { status: 503, description: "Billing webhooks are not configured" },
} as const satisfies Record<string, Spec>;

export type ErrorCode = keyof typeof ERROR_CODES;
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CODES)[C]["status"];
/** The codes answered with status S: for tables of codes that must all share one status. */
export type CodeWithStatus<S extends ErrorStatus> = { [C in ErrorCode]: StatusOf<C> extends S ? C : never }[ErrorCode];

export const errorSpec = (code: ErrorCode): Spec => ERROR_CODES[code];
export const statusOf = <C extends ErrorCode>(code: C): StatusOf<C> => ERROR_CODES[code].status;
/** What `details.code` carries for this code. */
export const wireCode = (code: ErrorCode): string => errorSpec(code).wire ?? code;
