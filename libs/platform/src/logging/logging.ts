import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import type { LogLevel } from '../config/base.config';

/** Header and body paths never written to the logs. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'password',
  'token',
  'access_token',
  'refresh_token',
  'api_key',
  'secret',
  '*.password',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.api_key',
  '*.secret',
  '*.*.password',
  '*.*.token',
  '*.*.access_token',
  '*.*.refresh_token',
  '*.*.api_key',
  '*.*.secret',
];

/** Paths whose requests are not logged one by one (probes and scrapes). */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The incoming `X-Request-Id` when it is a sane token, else a new uuid. */
export function requestIdFrom(req: IncomingMessage): string {
  const header = req.headers['x-request-id'];
  const value = Array.isArray(header) ? header[0] : header;
  return value && REQUEST_ID.test(value) ? value : randomUUID();
}

/** The app's root logger: JSON to stdout (or `destination`), `service` on every line, secrets redacted. */
export function createRootLogger(service: string, level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * pino-http middleware: sets `req.id` (incoming X-Request-Id or a new uuid), echoes it in the
 * `X-Request-Id` response header, binds it to `req.log` as `requestId`, logs one line per request.
 */
export function createHttpLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const id = requestIdFrom(req);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customAttributeKeys: { reqId: 'requestId' },
    // Binds `requestId` to req.log, so every line logged during the request carries it.
    quietReqLogger: true,
    autoLogging: { ignore: (req: IncomingMessage) => QUIET_PATHS.has((req.url ?? '').split('?')[0]) },
    customLogLevel: (_req: IncomingMessage, res: ServerResponse, err?: Error) =>
      err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
