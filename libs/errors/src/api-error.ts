import { HttpException } from '@nestjs/common';
import type { FieldError } from './request-validation.exception';

export interface ApiErrorOptions {
  /** What the caller should do next; each filter has a default per status when omitted. */
  suggestion?: string;
  errors?: FieldError[];
  /** Response headers (for example `Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
  /**
   * Whether the message may be shown in production. Default: yes below 500; for a 5xx no, because
   * such messages tend to carry an upstream's or a library's own text (an address, a driver error):
   * with NODE_ENV=production a 5xx is answered with its code and the status's generic message unless
   * the message was written for the client (`expose: true`).
   */
  expose?: boolean;
}

/**
 * An error with a machine-readable code, rendered in the spec's shape by every filter:
 * `throw new ApiError(404, 'CONTACT_NOT_FOUND', 'Contact not found')`.
 */
export class ApiError extends HttpException {
  readonly suggestion?: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  /** Whether the message is shown in production (option `expose`; not http-errors' `expose`, which the filters read on other errors). */
  readonly exposeMessage: boolean;

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
    this.exposeMessage = opts.expose ?? status < 500;
  }
}
