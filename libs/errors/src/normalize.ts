import { HttpException, HttpStatus, Logger, type ArgumentsHost } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-error';
import { capFieldErrors, RequestValidationException, type FieldError } from './request-validation.exception';

/** The parts every filter renders, whatever the exception was. */
export interface NormalizedError {
  status: number;
  code: string;
  message: string;
  /** At most MAX_FIELD_ERRORS field errors. */
  errors?: FieldError[];
  /** How many field errors were left out of `errors` (each shape says so in its message). */
  omittedErrors?: number;
  suggestion?: string;
  headers?: Record<string, string>;
  /** True when the exception was a validation failure from the ValidationPipe. */
  validation: boolean;
  /** True for anything that is not an HttpException (a bug): logged with its stack, never shown. */
  unexpected: boolean;
  /** False when the message may carry internal text (a 5xx that is no `ApiError` with `expose`): hidden in production. */
  exposed?: boolean;
}

export const DEFAULT_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  410: 'GONE',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_ERROR',
  428: 'PRECONDITION_REQUIRED',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  501: 'NOT_IMPLEMENTED',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
};

export const DEFAULT_SUGGESTIONS: Record<number, string> = {
  400: 'Check the request parameters and body against the API documentation at /api/docs, then retry.',
  401: 'Send valid credentials (API key or bearer token) with the request.',
  403: 'Use credentials that are allowed to perform this action, or ask an administrator for access.',
  404: 'Check the identifier and the path; the resource may have been deleted.',
  405: 'Use one of the HTTP methods this path supports (see /api/docs).',
  406: 'Ask for a content type this endpoint produces (usually application/json).',
  408: 'Retry the request; send the body promptly.',
  409: 'Reload the resource and resolve the conflict before retrying.',
  410: 'The resource no longer exists; stop using this identifier.',
  412: 'Reload the resource to get its current version, then retry with the new ETag.',
  413: 'Send a smaller body; see the size limits in the API documentation.',
  415: 'Send the body with a supported Content-Type (usually application/json).',
  422: 'Fix the fields listed in error.errors and retry.',
  428: 'Send the If-Match header with the ETag of the version you edited.',
  429: 'Slow down and retry after the time given in the Retry-After header.',
  500: 'Retry later; if the problem persists, contact support with the requestId.',
  502: 'An upstream service failed; retry later.',
  503: 'The service is temporarily unavailable; retry later.',
  504: 'An upstream service timed out; retry later.',
};

/**
 * What a production answer says instead of a 5xx message that is not meant for the client: the
 * status's own words, nothing from the code that failed (the log line with the request id has it).
 */
export function genericMessage(status: number): string {
  switch (status) {
    case 502:
      return 'Bad gateway: a service this request needs failed';
    case 503:
      return 'Service unavailable: retry later';
    case 504:
      return 'Gateway timeout: a service this request needs did not answer in time';
    default:
      return 'Internal server error';
  }
}

/**
 * In production, a 5xx keeps its status, code and headers but not its message (unless the message was
 * written for the client) nor field details; the request id in the answer finds the logged cause.
 */
export function hideInternalDetails(error: NormalizedError): NormalizedError {
  if (error.status < 500 || error.exposed === true) return error;
  const { errors: _errors, omittedErrors: _omitted, ...rest } = error;
  return { ...rest, message: genericMessage(error.status) };
}

export function defaultCode(status: number): string {
  return DEFAULT_CODES[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : `HTTP_${status}`);
}

export function defaultSuggestion(status: number): string {
  return (
    DEFAULT_SUGGESTIONS[status] ??
    (status >= 500 ? DEFAULT_SUGGESTIONS[500] : 'Check the request against the API documentation at /api/docs.')
  );
}

/** Errors of the http-errors family (body-parser, raw-body, multer) carry a 4xx `status` and `expose`. */
interface HttpLikeError extends Error {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
}

export function normalizeException(exception: unknown): NormalizedError {
  if (exception instanceof RequestValidationException) {
    return {
      status: HttpStatus.BAD_REQUEST,
      code: 'VALIDATION_ERROR',
      message: exception.message,
      errors: exception.errors,
      omittedErrors: exception.omitted,
      validation: true,
      unexpected: false,
    };
  }
  if (exception instanceof ApiError && isErrorStatus(exception.getStatus())) {
    return {
      status: exception.getStatus(),
      code: exception.code,
      message: exception.message,
      ...listed(exception.errors),
      suggestion: exception.suggestion,
      headers: exception.headers,
      validation: false,
      unexpected: false,
      exposed: exception.exposeMessage,
    };
  }
  if (exception instanceof HttpException && isErrorStatus(exception.getStatus())) {
    const status = exception.getStatus();
    return {
      status,
      code: codeFromResponse(exception.getResponse()) ?? defaultCode(status),
      message: messageFromResponse(exception.getResponse()) ?? exception.message,
      validation: false,
      unexpected: false,
      exposed: status < 500,
    };
  }
  const httpLike = exception as HttpLikeError | undefined;
  const status = httpLike?.status ?? httpLike?.statusCode;
  if (httpLike instanceof Error && httpLike.expose === true && typeof status === 'number' && status >= 400 && status < 500) {
    if (httpLike.type === 'entity.parse.failed') {
      return { status: 400, code: 'BAD_REQUEST', message: 'Malformed request body: the body is not valid JSON', validation: false, unexpected: false };
    }
    return { status, code: defaultCode(status), message: httpLike.message, validation: false, unexpected: false };
  }
  return {
    status: HttpStatus.INTERNAL_SERVER_ERROR,
    code: 'INTERNAL_ERROR',
    message: 'Internal server error',
    validation: false,
    unexpected: true,
  };
}

/** An error's own field list, capped like a validation failure's. */
function listed(errors: FieldError[] | undefined): Pick<NormalizedError, 'errors' | 'omittedErrors'> {
  if (!errors) return {};
  const capped = capFieldErrors(errors);
  return { errors: capped.errors, omittedErrors: capped.omitted };
}

function messageFromResponse(response: string | object): string | undefined {
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  return undefined;
}

function codeFromResponse(response: string | object): string | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const code = (response as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : undefined;
}

type RequestWithId = IncomingMessage & { id?: unknown; log?: { error: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void } };

/** The request id given by the platform's logging middleware (`req.id`), or a new one. */
export function requestIdOf(req: RequestWithId, res: ServerResponse): string {
  if (typeof req.id === 'string' && req.id) return req.id;
  const fromHeader = req.headers?.['x-request-id'];
  const id = typeof fromHeader === 'string' && fromHeader ? fromHeader : randomUUID();
  req.id = id;
  if (!res.headersSent) res.setHeader('X-Request-Id', id);
  return id;
}

const fallbackLogger = new Logger('ExceptionFilter');

/** Logs 5xx responses; unexpected errors with their stack (never sent to the client). */
export function logServerError(req: RequestWithId, error: NormalizedError, exception: unknown, requestId: string): void {
  if (error.status < 500) return;
  const err = exception instanceof Error ? exception : new Error(String(exception));
  const message = error.unexpected ? `Unhandled error on ${req.method} ${req.url}` : `${error.status} on ${req.method} ${req.url}`;
  if (req.log) {
    // The platform's request logger already carries the request id.
    if (error.unexpected) req.log.error({ err }, message);
    else req.log.warn({ err }, message);
    return;
  }
  if (error.unexpected) fallbackLogger.error(`${message} (requestId ${requestId})`, err.stack);
  else fallbackLogger.warn(`${message} (requestId ${requestId}): ${err.message}`);
}

/** Writes the JSON body with the error's headers; gives up quietly if the response already started. */
export function send(host: ArgumentsHost, error: NormalizedError, body: unknown): void {
  const res = host.switchToHttp().getResponse<ServerResponse>();
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  const json = JSON.stringify(body);
  res.statusCode = error.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

export type { RequestWithId };

/** An ApiError (any HttpException) stands for an HTTP error: a status outside 400-599 is a bug, answered as one (500). */
function isErrorStatus(status: number): boolean {
  return Number.isInteger(status) && status >= 400 && status < 600;
}
