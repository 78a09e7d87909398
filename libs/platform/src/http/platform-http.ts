import { EventEmitter } from 'node:events';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ApiError } from '@platform/errors';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { HttpLogger } from 'pino-http';
import { HealthRegistry } from '../health/health.registry';
import { BodyParsers } from './body-limits';
import { rejectDeepJson } from './input-safety';
import type { MetricsService } from '../metrics/metrics.service';

/** Counts requests in flight so that shutdown can wait for them. */
export class InFlightTracker extends EventEmitter {
  count = 0;

  start(): void {
    this.count++;
  }

  end(): void {
    this.count--;
    if (this.count === 0) this.emit('idle');
  }

  /** Resolves when no request is in flight, or after `timeoutMs` (returns false then). */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.off('idle', onIdle);
        resolve(false);
      }, timeoutMs);
      const onIdle = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.once('idle', onIdle);
    });
  }
}

const UNMATCHED_ROUTE = '(unmatched)';

/**
 * Route template of the request (`/api/v1/contacts/:id`), never the raw URL (bounded label values).
 * Middleware that answers without a route (a proxy) names its own template in `res.locals.metricsRoute`.
 */
function routeOf(req: Request, res: Response): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return `${req.baseUrl ?? ''}${path}`;
  const named = res.locals?.metricsRoute;
  return typeof named === 'string' && named ? named : UNMATCHED_ROUTE;
}

/** Request logging, request ids, metrics and in-flight tracking: the first middleware of every app. */
export function installRequestMiddleware(
  app: NestExpressApplication,
  httpLogger: HttpLogger,
  metrics: MetricsService,
  tracker: InFlightTracker,
): void {
  app.use(httpLogger);
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    tracker.start();
    let done = false;
    const finish = (status: number) => {
      if (done) return;
      done = true;
      tracker.end();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observeHttp(req.method, routeOf(req, res), status, seconds);
    };
    res.once('finish', () => finish(res.statusCode));
    // The client went away before the response was complete (nginx's 499).
    res.once('close', () => finish(res.writableFinished ? res.statusCode : 499));
    next();
  });
}

/**
 * `/healthz`, `/readyz`, `/metrics`: plain Express routes, so that no global prefix or Swagger sees them.
 * In production `/readyz` names each check and its state but not a failing check's error (a driver's
 * message with an internal address): that goes to the log.
 */
export function installPlatformRoutes(app: NestExpressApplication, metrics: MetricsService, production = false): void {
  const http = app.getHttpAdapter().getInstance() as express.Express;
  http.get('/healthz', (_req: Request, res: Response) => {
    res.status(200).json({ status: 'ok' });
  });
  http.get('/readyz', (req: Request, res: Response, next: NextFunction) => {
    app
      .get(HealthRegistry, { strict: false })
      .check()
      .then((report) => {
        if (report.status !== 'ok') {
          const down = Object.entries(report.checks).filter(([, c]) => c.status === 'down');
          req.log?.warn({ checks: Object.fromEntries(down) }, 'readiness: dependencies down');
          if (production) for (const [, check] of down) delete check.error;
        }
        res.status(report.status === 'ok' ? 200 : 503).json(report);
      })
      .catch(next);
  });
  http.get('/metrics', (_req: Request, res: Response, next: NextFunction) => {
    metrics.registry
      .metrics()
      .then((text) => res.status(200).type(metrics.registry.contentType).send(text))
      .catch(next);
  });
}

/**
 * JSON and urlencoded parsers (the raw bytes kept on `req.rawBody` for signature checks), limited to
 * `limit` or to the route's `@BodyLimit()` (body-limits.ts). Their errors become ApiErrors so that
 * every filter answers them in the spec's shape: malformed JSON → 400, too large → 413, unsupported
 * charset → 415. Bodies nested deeper than MAX_JSON_DEPTH are refused right after parsing
 * (input-safety.ts). Multipart and other content types pass untouched (uploads keep their own caps).
 */
export function installBodyParsers(app: NestExpressApplication, limit: string): BodyParsers {
  const verify = (req: Request, _res: Response, buf: Buffer) => {
    (req as Request & { rawBody?: Buffer }).rawBody = buf;
  };
  const parsers = new BodyParsers(limit, verify);
  app.use(parsers.middleware);
  app.use((err: unknown, req: Request, _res: Response, next: NextFunction) => next(translateBodyError(err, BodyParsers.limitOf(req, limit))));
  app.use(rejectDeepJson());
  return parsers;
}

export function translateBodyError(err: unknown, limit: string): unknown {
  const type = (err as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return new ApiError(400, 'BAD_REQUEST', 'Malformed request body: the body is not valid JSON', {
        suggestion: 'Send a valid JSON document with Content-Type: application/json.',
      });
    case 'entity.too.large':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limit}`, {
        suggestion: `Send a body smaller than ${limit}.`,
      });
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', (err as Error).message, {
        suggestion: 'Send the body as UTF-8 without an unsupported Content-Encoding.',
      });
    case 'request.aborted':
      return new ApiError(400, 'BAD_REQUEST', 'The request body was not received completely');
    default:
      return err;
  }
}
