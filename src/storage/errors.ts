import { Errors, ServiceError } from '../domain/errors';

/**
 * The file store's failures as the catalogue's errors (docs/architecture.md, Errors), so that the HTTP layer sees
 * no driver's or system's code: a store that cannot be reached is `storage_unavailable` (503, the client tries
 * again), a full disk or quota `storage_not_enough_space_left` (507).
 */
export class StorageDownError extends ServiceError {
  /** Kept for logs and the tests that name it. */
  readonly code = 'FERRY_STORAGE_DOWN';
  constructor(message: string, options?: { cause?: unknown }) {
    super(Errors.storageUnavailable.id, Errors.storageUnavailable.status);
    this.name = 'StorageDownError';
    this.message = `${Errors.storageUnavailable.id}: ${message}`;
    if (options && 'cause' in options) this.cause = options.cause;
  }
}

/** The disk or the owner's quota is full (ENOSPC, EDQUOT). */
export function isNoSpace(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** The catalogue's error for a full disk, else the failure as it was. */
export function fromFileSystem(e: unknown): unknown {
  if (!isNoSpace(e)) return e;
  const out = Errors.storageNotEnoughSpaceLeft();
  out.cause = e;
  return out;
}
