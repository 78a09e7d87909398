import { BaseErrorFilter, type NormalizedError } from '@platform/errors';
import { STATUS_CODES } from 'node:http';

/**
 * Sablier's API answers its errors as RFC 7807 problems, `{type, title, status, detail, instance}`
 * (validation: 400 with `errors`), instead of the proxy's own `{error}`. `instance` is the request's path.
 */
export class ProblemErrorFilter extends BaseErrorFilter {
  protected readonly validationStatus = 400;
  /** The proxy always has its database: a lost connection is a 503 problem here too (see BaseErrorFilter). */
  override databaseLoss = true;
  private path = '';

  protected render(error: NormalizedError): unknown {
    return {
      type: `https://developer.mozilla.org/docs/Web/HTTP/Status/${error.status}`,
      title: STATUS_CODES[error.status] ?? 'Error',
      status: error.status,
      detail: error.message,
      instance: this.path,
      ...(error.errors ? { errors: error.errors } : {}),
    };
  }

  override catch(...args: Parameters<BaseErrorFilter['catch']>): void {
    const req = args[1].switchToHttp().getRequest<{ originalUrl?: string; url?: string }>();
    this.path = (req.originalUrl ?? req.url ?? '').slice(0, 2048);
    super.catch(...args);
  }
}
