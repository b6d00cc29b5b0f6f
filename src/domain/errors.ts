/**
 * The one error type of ferry and the catalogue of its errors. Every message id that ferry answers with is
 * named here once, with its HTTP status (docs/architecture.md, Errors), so no throw site writes a status. A throw site calls
 * the entry with the offending fields: `throw Errors.transferNotFound()`, `throw Errors.badEmail('from')`.
 * The HTTP layer turns a ServiceError into the spec's error body in one place, and the CLI prints its message.
 */
export class ServiceError extends Error {
  constructor(
    readonly id: string,
    readonly status: number,
    readonly details: string[] | null = null,
  ) {
    super(id);
    this.name = 'ServiceError';
  }
}

/** A catalogue entry: call it with the details (offending fields) to get the error to throw. */
export interface ErrorEntry<I extends string = string> {
  (...details: string[]): ServiceError;
  readonly id: I;
  readonly status: number;
}

function entry<I extends string>(id: I, status: number): ErrorEntry<I> {
  // No details is `null` in the body, as the spec's examples have it, never an empty list.
  const make = (...details: string[]) => new ServiceError(id, status, details.length ? details : null);
  return Object.assign(make, { id, status });
}

export const Errors = {
  // 400: the request is malformed or a value is refused
  restMissingParameter: entry('rest_missing_parameter', 400),
  restBadParameter: entry('rest_bad_parameter', 400),
  restSanityCheckFailed: entry('rest_sanity_check_failed', 400),
  badRequestBody: entry('bad_request_body', 400),
  badEmail: entry('bad_email', 400),
  badExpire: entry('bad_expire', 400),
  badOptionName: entry('bad_option_name', 400),
  badLangCode: entry('bad_lang_code', 400),
  transferNoFiles: entry('transfer_no_files', 400),
  transferNoRecipients: entry('transfer_no_recipients', 400),
  transferTooManyFiles: entry('transfer_too_many_files', 400),
  transferTooManyRecipients: entry('transfer_too_many_recipients', 400),
  transferMaximumSizeExceeded: entry('transfer_maximum_size_exceeded', 400),
  fileChunkOutOfBounds: entry('file_chunk_out_of_bounds', 400),
  transferMustBeEncrypted: entry('transfer_must_be_encrypted', 400),
  encryptionNotEnabled: entry('encryption_not_enabled', 400),
  encryptedFilesNotArchivable: entry('encrypted_files_not_archivable', 400),
  // 401: who is asking is unknown or not proven
  restAuthenticationRequired: entry('rest_authentication_required', 401),
  authRemoteSignatureCheckFailed: entry('auth_remote_signature_check_failed', 401),
  authRemoteTooLate: entry('auth_remote_too_late', 401),
  authRemoteUnknownApplication: entry('auth_remote_unknown_application', 401),
  authRemoteUserRejected: entry('auth_remote_user_rejected', 401),
  guestTokenInvalid: entry('guest_token_invalid', 401),
  // The transfer's links ask for a password (docs/sharing.md, Link password): none given, or a wrong one
  downloadPasswordRequired: entry('download_password_required', 401),
  downloadPasswordIncorrect: entry('download_password_incorrect', 401),
  // 403: known, but not allowed
  restAccessForbidden: entry('rest_access_forbidden', 403),
  restAdminRequired: entry('rest_admin_required', 403),
  restSecurityTokenDidNotMatch: entry('rest_security_token_did_not_match', 403),
  // An admin may not remove their own account nor withdraw their own admin: another admin must
  userCannotChangeSelf: entry('user_cannot_change_self', 403),
  // The password given as the current one is wrong (own password change)
  userPasswordIncorrect: entry('user_password_incorrect', 403),
  // FileSender's answer to a round-trip token that is not the Transfer's (its clients send one with chunks)
  restRoundtripTokenInvalid: entry('rest_roundtrip_token_invalid', 403),
  // An identity provider vouched for a user id that another provider's account has (src/domain/sign-in.ts)
  loginAccountElsewhere: entry('login_account_elsewhere', 403),
  // 404: unknown (and, so ids cannot be probed, another user's)
  transferNotFound: entry('transfer_not_found', 404),
  fileNotFound: entry('file_not_found', 404),
  recipientNotFound: entry('recipient_not_found', 404),
  guestNotFound: entry('guest_not_found', 404),
  userNotFound: entry('user_not_found', 404),
  restEndpointNotFound: entry('rest_endpoint_not_found', 404),
  // 405
  restMethodNotAllowed: entry('rest_method_not_allowed', 405),
  restJsonpGetOnly: entry('rest_jsonp_get_only', 405),
  // 409: the state of the resource does not allow it
  cannotAddDataToCompleteTransfer: entry('cannot_add_data_to_complete_transfer', 409),
  cannotAlterClosedTransfer: entry('cannot_alter_closed_transfer', 409),
  fileIncomplete: entry('file_incomplete', 409),
  transferFilesIncomplete: entry('transfer_files_incomplete', 409),
  transferExpiryExtensionCountExceeded: entry('transfer_expiry_extension_count_exceeded', 409),
  transferNotAvailable: entry('transfer_not_available', 409),
  // A transfer shared by a link only: no recipient to remind, none to add (docs/web-behaviour.md)
  transferLinkOnly: entry('transfer_link_only', 409),
  // Virus scanning (docs/sharing.md): its files are being checked (or held, the scanner down)
  transferBeingChecked: entry('transfer_being_checked', 409),
  guestClosed: entry('guest_closed', 409),
  userExists: entry('user_exists', 409),
  // 410: it existed and is gone
  transferExpired: entry('transfer_expired', 410),
  transferClosed: entry('transfer_closed', 410),
  /** The link of a recipient the sender removed (the row is kept, marked deleted). */
  recipientWithdrawn: entry('recipient_withdrawn', 410),
  guestExpired: entry('guest_expired', 410),
  // Every download the link's limit allows of the file(s) is taken (docs/sharing.md, Download limits)
  downloadLimitReached: entry('download_limit_reached', 410),
  // A virus scan found an infected file and antivirus.on_infected is "block" (docs/sharing.md, Virus scanning)
  transferInfected: entry('transfer_infected', 410),
  // 413, 416, 429
  storageChunkTooLarge: entry('storage_chunk_too_large', 413),
  requestBodyTooLarge: entry('request_body_too_large', 413),
  // A new transfer would pass its owner's quota, or the instance's (details: quota=, used=, requested= bytes)
  transferUserQuotaExceeded: entry('transfer_user_quota_exceeded', 413),
  transferHostQuotaExceeded: entry('transfer_host_quota_exceeded', 413),

  rangeNotSatisfiable: entry('range_not_satisfiable', 416),
  rateLimitExceeded: entry('rate_limit_exceeded', 429),
  // 5xx: never for a client's mistake
  internalError: entry('internal_error', 500),
  databaseUnavailable: entry('database_unavailable', 503),
  storageUnavailable: entry('storage_unavailable', 503),
  loginProviderUnavailable: entry('login_provider_unavailable', 503),
  storageNotEnoughSpaceLeft: entry('storage_not_enough_space_left', 507),
} as const satisfies Record<string, ErrorEntry>;

/** Whether err is the catalogue's error `entry` (`isError(e, Errors.transferExpired)`): ids compared in one place. */
/** The message id of an entry of the catalogue: a text of the pages has the same key (src/i18n/). */
export type ErrorId = (typeof Errors)[keyof typeof Errors]['id'];

export function isError(err: unknown, entry: ErrorEntry): err is ServiceError {
  return err instanceof ServiceError && err.id === entry.id;
}

/** The detail that tells a client when to try again (`retry_after=N`, seconds), as rate_limit_exceeded carries it. */
export function retryAfter(seconds: number): string {
  return `retry_after=${Math.max(1, Math.ceil(seconds))}`;
}

/** The seconds a refused request carries in its `retry_after=N` detail, or null when it carries none. */
export function retryAfterOf(err: ServiceError): number | null {
  for (const d of err.details ?? []) {
    const m = /^retry_after=(\d+)$/.exec(d);
    if (m) return Number(m[1]);
  }
  return null;
}

/**
 * True for a full disk, under the file data or under the database: the adapters turn ENOSPC, EDQUOT, SQLite's
 * SQLITE_FULL and PostgreSQL's SQLSTATE 53100 into 507 storage_not_enough_space_left (src/db/errors.ts,
 * src/storage/errors.ts).
 */
export function isOutOfSpace(err: unknown): boolean {
  return err instanceof ServiceError && err.id === Errors.storageNotEnoughSpaceLeft.id;
}
