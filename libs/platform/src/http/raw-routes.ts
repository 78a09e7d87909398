import { IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DATABASE_LOSS_AS_503, type BaseErrorFilter } from '@platform/errors';
import type { Request, Response } from 'express';
import type { BaseConfig } from '../config/base.config';
import { appState, provides } from '../create-service-app';
import { requestIdFrom } from '../logging/logging';
import { MetricsService } from '../metrics/metrics.service';
import { firstTooDeep, MAX_JSON_DEPTH } from './input-safety';
import { ExpressAnswers, type ExpressSettings } from './express-answers';
import { securityHeaders } from './security-headers';

/**
 * What a raw route's handler gets: the request and response as Node's HTTP server gives them (no
 * Express methods: giving Node's objects Express's prototypes slows every later access to them, a
 * tenth to a third of a light route's throughput), Express's answers written on them (`redirect`,
 * `json`, `send`: byte for byte what Express writes), and `express()` for a path that needs
 * Express's methods after all.
 */
export interface RawExchange {
  /** The request, its `id` the request id (X-Request-Id). */
  req: IncomingMessage & { id: string; url: string; method: string };
  res: ServerResponse;
  /** The client's address as Express's `req.ip` gives it (the app's `trust proxy`). */
  ip(): string | undefined;
  /** Express's `res.redirect(status, url)`. */
  redirect(status: number, url: string): void;
  /** Express's `res.status(status).json(body)`. */
  json(status: number, body: unknown): void;
  /** Express's `res.status(status).send(text)` with the Content-Type `type` (its charset added as Express adds it). */
  send(status: number, text: string, type: string): void;
  /** The request and response with Express's methods (its prototypes, as Express's own first step gives them), for a rare path. */
  express(): { req: Request; res: Response };
  /** Answers `err` as the app's routes do (`mapError`, then the app's error filter). */
  fail(err: unknown): void;
  /** Gives the request to Express and Nest after all (nothing may have been answered yet); `body` replays a body already read. */
  handOn(body?: Buffer): void;
  /**
   * Reads a JSON body the platform's parser would read as it is — `application/json` in UTF-8, not
   * compressed, not chunked, a Content-Length of 1 to `maxBytes` — and calls `onBody` with its bytes
   * (what it throws goes to `fail`); any other request is handed on unread, for the platform's
   * parsers to answer.
   */
  readJson(maxBytes: number, onBody: (raw: Buffer) => void): void;
  /**
   * {@link readJson}, parsed as the platform's parser parses it, for routes that take a JSON object:
   * `onBody` gets the object and its bytes; a body that is not an object from its first character (the
   * parser's strict mode), malformed, or nested deeper than MAX_JSON_DEPTH is handed on with its bytes
   * replayed, for the platform's parsers to answer.
   */
  readJsonObject(maxBytes: number, onBody: (body: Record<string, unknown>, raw: Buffer) => void): void;
}

/**
 * A JSON body as the platform's parser reads it for a route taking an object (RawExchange.readJsonObject);
 * undefined where the parser would read it otherwise or refuse it: not an object from its first
 * character (its strict mode), malformed, or nested deeper than MAX_JSON_DEPTH.
 */
export function jsonObjectOf(raw: Buffer): Record<string, unknown> | undefined {
  if (raw[0] !== 0x7b) return undefined; // body-parser's strict mode reads an object or an array from the first character: objects only here
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
  return firstTooDeep(body, MAX_JSON_DEPTH) === null ? (body as Record<string, unknown>) : undefined;
}

/** The JSON bodies the platform's parser reads as they are: no charset but UTF-8. */
const PLAIN_JSON_TYPE = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

/** True when `req` carries a body `readJson` reads itself (see RawExchange.readJson). */
function plainJson(req: IncomingMessage, maxBytes: number): boolean {
  const length = req.headers['content-length'];
  const encoding = req.headers['content-encoding'];
  return (
    PLAIN_JSON_TYPE.test(req.headers['content-type'] ?? '') &&
    (encoding === undefined || encoding.toLowerCase() === 'identity') &&
    req.headers['transfer-encoding'] === undefined &&
    length !== undefined &&
    /^\d{1,9}$/.test(length) &&
    Number(length) > 0 &&
    Number(length) <= maxBytes
  );
}

/**
 * A hot public route answered before Express and Nest. `match` looks at the method and the raw URL
 * only and returns the route template (counted in the metrics) or null; `handle` answers (or hands
 * on) and must not throw.
 */
export interface RawRoute {
  match(method: string, url: string): string | null;
  handle(x: RawExchange): void;
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** The headers helmet (the platform's securityHeaders) puts on every answer of the app, in its order. */
function securityHeaderList(production: boolean): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const res = { setHeader: (name: string, value: string) => headers.push([name, String(value)]), removeHeader: () => undefined, getHeader: () => undefined };
  (securityHeaders(production) as unknown as (req: unknown, res: unknown, next: () => void) => void)({ headers: {} }, res, () => undefined);
  return headers;
}

/** A request whose body was read already, replayed for Express's body parsers. */
function replayed(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  Object.assign(copy, {
    method: req.method,
    url: req.url,
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    httpVersion: req.httpVersion,
    httpVersionMajor: req.httpVersionMajor,
    httpVersionMinor: req.httpVersionMinor,
    // Complete, or its end would destroy the socket (a request cut short) and the kept-alive connection with it.
    complete: true,
  });
  copy.push(body);
  copy.push(null);
  return copy;
}

export interface RawRoutesOptions {
  config: Pick<BaseConfig, 'LOG_LEVEL' | 'NODE_ENV'>;
  /** the app's error filter (the one its service definition installs) */
  filter: BaseErrorFilter;
  routes: RawRoute[];
  /** what the app's interceptors would make of an error first (a lost database connection needs nothing here: the filter answers it 503, as for the app's routes) */
  mapError?: (err: unknown) => unknown;
}

/**
 * Answers an app's hottest public routes (a click redirect, a platform's webhook deliveries)
 * without Express's and Nest's per-request stack, and hands every other request to Express. The
 * answers are the routes' own, byte for byte: the same request id (`X-Request-Id`), the platform's
 * security headers, Express's `res.redirect` / `res.json` / `res.send` (written on Node's request
 * and response by ExpressAnswers; they get Express's prototypes only where a path needs Express's
 * methods: `express()`, an error), errors through `mapError` and the app's error filter; each
 * request is counted in `http_requests_total` / `http_request_duration_seconds` under its route
 * template and logged at debug only (the access log line of the Express routes is not
 * written for them), and holds the graceful shutdown's drain until it is answered (or handed on),
 * as an Express request does. Call it from the service definition's `configure`, after the routes'
 * services exist.
 */
export function installRawRoutes(app: NestExpressApplication, { config, filter, routes, mapError = (err) => err }: RawRoutesOptions): void {
  const server = app.getHttpServer() as Server;
  const listeners = server.listeners('request') as RequestListener[];
  if (listeners.length !== 1) throw new Error(`raw routes: expected one request listener (Express), found ${listeners.length}`);
  const [express] = listeners;
  const expressApp = app.getHttpAdapter().getInstance() as ExpressSettings & { request: object; response: object };
  const answers = new ExpressAnswers(expressApp);
  const metrics = app.get(MetricsService);
  const logger = new Logger('RawRoutes');
  const debug = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace';
  const production = config.NODE_ENV === 'production';
  filter.production = production;
  filter.databaseLoss = provides(app, DATABASE_LOSS_AS_503);
  const security = securityHeaderList(production);
  const tracker = appState(app)?.tracker;

  const serve = (route: RawRoute, template: string, req: IncomingMessage, res: ServerResponse) => {
    const started = process.hrtime.bigint();
    const id = requestIdFrom(req);
    const request = req as RawExchange['req'];
    request.id = id;
    res.setHeader('X-Request-Id', id);
    for (const [name, value] of security) res.setHeader(name, value);
    let counted = false;
    // In flight for the graceful shutdown until answered, closed or handed on (Express's middleware then tracks it).
    let inFlight = true;
    tracker?.start();
    const landed = () => {
      if (!inFlight) return;
      inFlight = false;
      tracker?.end();
    };
    const count = (status: number) => {
      landed();
      if (counted) return;
      counted = true;
      metrics.observeHttp(req.method!, template, status, Number(process.hrtime.bigint() - started) / 1e9);
      if (debug) logger.debug(`${req.method} ${template} ${status}`);
    };
    res.once('finish', () => count(res.statusCode));
    res.once('close', () => count(res.writableFinished ? res.statusCode : 499));
    let withExpress: { req: Request; res: Response } | undefined;
    const expressMethods = () => {
      if (!withExpress) {
        // What Express does first for every request: its request and response methods.
        Object.assign(req, { res });
        Object.assign(res, { req, locals: Object.create(null) as object });
        Object.setPrototypeOf(req, expressApp.request);
        Object.setPrototypeOf(res, expressApp.response);
        withExpress = { req: req as Request, res: res as Response };
      }
      return withExpress;
    };
    const exchange: RawExchange = {
      req: request,
      res,
      ip: () => answers.ip(req),
      redirect: (status, url) => {
        if (!answers.redirect(req, res, status, url)) expressMethods().res.redirect(status, url);
      },
      json: (status, body) => {
        if (!answers.json(req, res, status, body)) expressMethods().res.status(status).json(body);
      },
      send: (status, text, type) => {
        if (!answers.send(req, res, status, text, type)) expressMethods().res.status(status).type(type).send(text);
      },
      express: expressMethods,
      fail: (err) => {
        try {
          const exchanged = expressMethods();
          filter.catch(mapError(err), { getType: () => 'http', switchToHttp: () => ({ getRequest: () => exchanged.req, getResponse: () => exchanged.res, getNext: () => undefined }) } as never);
        } catch (e) {
          logger.error(`${req.method} ${template}: ${(e as Error).message}`);
          res.destroy();
        }
      },
      handOn: (body) => {
        counted = true; // Express's own middleware counts it
        landed();
        for (const [name] of security) res.removeHeader(name);
        express(body ? replayed(req, body) : req, res);
      },
      readJson: (maxBytes, onBody) => {
        if (!plainJson(req, maxBytes)) return exchange.handOn();
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          try {
            onBody(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
          } catch (err) {
            exchange.fail(err);
          }
        });
      },
      readJsonObject: (maxBytes, onBody) =>
        exchange.readJson(maxBytes, (raw) => {
          const body = jsonObjectOf(raw);
          if (body === undefined) exchange.handOn(raw);
          else onBody(body, raw);
        }),
    };
    // Should the request emit 'error' while a route reads its body (its socket failing), no listener
    // would make that end the process; the answer has nowhere to go then.
    req.on('error', () => res.destroy());
    route.handle(exchange);
  };

  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    for (const route of routes) {
      const template = route.match(req.method ?? '', req.url ?? '');
      if (template === null) continue;
      try {
        return serve(route, template, req, res);
      } catch (err) {
        logger.warn(`${req.method} ${template}: ${(err as Error).message}`);
        if (!res.headersSent) res.destroy();
        return;
      }
    }
    express(req, res);
  });
}
