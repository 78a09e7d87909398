import { HttpException } from '@nestjs/common';
import type { FieldError } from './request-validation.exception';

export interface ApiErrorOptions {
  /** What the caller should do next; each filter has a default per status when omitted. */
  suggestion?: string;
  errors?: FieldError[];
  /** Response headers (for example `Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
}

/**
 * An error with a machine-readable code, rendered in the spec's shape by every filter:
 * `throw new ApiError(404, 'CONTACT_NOT_FOUND', 'Contact not found')`.
 */
export class ApiError extends HttpException {
  readonly suggestion?: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;

  constructor(
    status: number,
    readonly code: string,
    message: string,
    opts: ApiErrorOptions = {},
  ) {
    super({ code, message, errors: opts.errors }, status);
    this.message = message;
    this.suggestion = opts.suggestion;
    this.errors = opts.errors;
    this.headers = opts.headers;
  }
}
