/**
 * The one error type of ferry. Domain code throws it with a message id from design.md §5; the HTTP layer
 * turns it into the spec's error body in one place, and the CLI prints its message.
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

export const badParameter = (...details: string[]) => new ServiceError('rest_bad_parameter', 400, details);
export const missingParameter = (...details: string[]) => new ServiceError('rest_missing_parameter', 400, details);
export const notFound = (id: string, ...details: string[]) => new ServiceError(id, 404, details.length ? details : null);
