import { Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { boundedError } from './bounded';
import { asDatabaseUnavailable } from './connection-loss';
import type { ServerResponse } from 'node:http';
import { hideInternalDetails, logServerError, normalizeException, requestIdOf, send, type NormalizedError, type RequestWithId } from './normalize';

const logger = new Logger('ExceptionFilter');

/** Shared flow of the three filters: normalize, log 5xx with the request id, render the spec's body. */
export abstract class BaseErrorFilter implements ExceptionFilter {
  /**
   * Production answers (the platform sets this when NODE_ENV=production): a 5xx message that was not
   * written for the client (an `ApiError` without `expose: true`, Nest's 5xx exceptions) is replaced by
   * the status's generic message. Unexpected errors never show theirs, in any environment.
   */
  production = false;

  /**
   * Set by the platform for an app with a database (DATABASE_LOSS_AS_503): an error that says the
   * database connection was lost or refused is answered `databaseUnavailable()` (503, Retry-After)
   * instead of a 500, wherever it was thrown — handler, guard, middleware or raw route.
   */
  databaseLoss = false;

  /** Status of a ValidationPipe failure in this spec. */
  protected abstract readonly validationStatus: number;

  protected abstract render(error: NormalizedError, requestId: string): unknown;

  /** Lets a subclass rename codes (for example 429 → THROTTLER_LIMIT_EXCEEDED). */
  protected adjust(error: NormalizedError): NormalizedError {
    return error;
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') {
      // WebSocket and RPC contexts have their own error channels; this filter only speaks HTTP.
      logger.error(`Unhandled ${host.getType()} error`, exception instanceof Error ? exception.stack : String(exception));
      return;
    }
    const http = host.switchToHttp();
    const req = http.getRequest<RequestWithId>();
    const res = http.getResponse<ServerResponse>();
    // A lost database connection, from wherever it was thrown (a guard too), is a 503 with Retry-After.
    if (this.databaseLoss) exception = asDatabaseUnavailable(exception);
    let error = normalizeException(exception);
    if (error.validation) error = { ...error, status: this.validationStatus };
    error = this.adjust(error);
    if (this.production) error = hideInternalDetails(error);
    error = boundedError(error);
    const requestId = requestIdOf(req, res);
    logServerError(req, error, exception, requestId);
    send(host, error, this.render(error, requestId));
  }
}
