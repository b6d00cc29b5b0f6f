/**
 * A failure the client reports in one line, with the CLI's exit code (docs/architecture.md, Command line): 1 for what the user can
 * fix in the command or its input (a missing file, a refused address, a bad link), 2 for what failed on the
 * way (the server down after every retry, a download whose SHA-256 does not match).
 */
export class ClientError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

/** The server answered with the spec's error body (or at least an error status). */
export class ApiError extends ClientError {
  constructor(
    readonly status: number,
    readonly id: string,
    readonly details: string[],
    what: string,
  ) {
    super(
      `${what}: the server answered ${status} ${id}${details.length ? ` (${details.join(', ')})` : ''}`,
      status >= 500 && !namedFailure(status, id) ? 2 : 1,
    );
  }
}

/**
 * FileSender answers most refusals with 500 and the refusal's name (`bad_email`, `transfer_files_incomplete`,
 * `auth_remote_signature_check_failed`): asking again cannot change those, and they are the request's to fix.
 * A 500 is a failure on the way only when it has no name (a proxy's page) or is the server's `internal_error`.
 */
export function namedFailure(status: number, id: string): boolean {
  return status === 500 && !id.startsWith('HTTP ') && id !== 'internal_error';
}
