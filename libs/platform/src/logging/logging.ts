import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type DestinationStream, type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import { prettyFactory } from 'pino-pretty';
import type { LogLevel, NodeEnv } from '../config/base.config';

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

/** `json`: one JSON object per line (machines); `pretty`: one human-readable line per entry (a terminal). */
export type LogFormat = 'json' | 'pretty';

/** Pretty while developing at a terminal; JSON when the output is a pipe or a file, and always in production. */
export function logFormatFor(nodeEnv: NodeEnv, output: { isTTY?: boolean } = process.stdout): LogFormat {
  return nodeEnv !== 'production' && output.isTTY === true ? 'pretty' : 'json';
}

/** Fields a pretty line leaves out: shown in its message, or noise at a terminal. */
const PRETTY_HIDDEN = 'pid,hostname,service,context,req,res,responseTime';

/**
 * A destination that turns pino's JSON lines into one readable line each (pino-pretty), written at
 * once (synchronously) so that lines keep their order with anything else written to the same output:
 * `12:00:01.234 INFO: auth-api [DatabaseModule] applied 2 migration(s)`,
 * `12:00:02.345 INFO: auth-api GET /api/v1/auth/me 200 3ms {"requestId":"…"}`.
 */
export function prettyDestination(output: { write(text: string): unknown } = process.stdout, colorize = process.stdout.isTTY === true): DestinationStream {
  const pretty = prettyFactory({
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: PRETTY_HIDDEN,
    messageFormat: (log, messageKey) => {
      const service = typeof log.service === 'string' ? `${log.service} ` : '';
      const req = log.req as { method?: string; url?: string } | undefined;
      const res = log.res as { statusCode?: number } | undefined;
      if (req?.method && res?.statusCode !== undefined) {
        const took = typeof log.responseTime === 'number' ? ` ${log.responseTime}ms` : '';
        return `${service}${req.method} ${req.url ?? ''} ${res.statusCode}${took}`;
      }
      const context = typeof log.context === 'string' ? `[${log.context}] ` : '';
      return `${service}${context}${String(log[messageKey] ?? '')}`;
    },
  });
  return { write: (line: string) => output.write(pretty(line)) };
}

/**
 * The app's root logger: `service` on every line, secrets redacted; JSON to stdout (or `destination`),
 * or readable lines to stdout with `format: 'pretty'` (see logFormatFor).
 */
export function createRootLogger(service: string, level: LogLevel, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    formatters: { level: (label: string) => ({ level: label }) },
  };
  if (destination) return pino(options, destination);
  return format === 'pretty' ? pino(options, prettyDestination()) : pino(options);
}

/** Query parameters whose values never reach the logs (OAuth codes, signed links, keys). */
const SECRET_QUERY_PARAM = /token|key|secret|password|code|state|signature|sig|auth|session|hub\.challenge/i;

/**
 * The request URL for the log line: the path as it is, and the value of every query parameter that
 * may carry a credential replaced by `[redacted]` (an OAuth callback's `code`, a `?token=` link).
 */
export function loggableUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // a malformed escape: match on the raw name
      }
      return SECRET_QUERY_PARAM.test(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, at)}?${query}`;
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
        url: loggableUrl(req.url),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
