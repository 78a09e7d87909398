import { Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { logServerError, normalizeException, requestIdOf, send, type NormalizedError, type RequestWithId } from './normalize';

const logger = new Logger('ExceptionFilter');

/** Shared flow of the three filters: normalize, log 5xx with the request id, render the spec's body. */
export abstract class BaseErrorFilter implements ExceptionFilter {
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
    let error = normalizeException(exception);
    if (error.validation) error = { ...error, status: this.validationStatus };
    error = this.adjust(error);
    const requestId = requestIdOf(req, res);
    logServerError(req, error, exception, requestId);
    send(host, error, this.render(error, requestId));
  }
}
