import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ExpressAnswers, MetricsService, requestIdFrom, type BaseConfig, type ExpressSettings } from '@platform/platform';
import { MailEventsService } from '../mail-events/mail-events.service';
import { clickFlag, openFlag } from './bot-rules';
import { TrackingLinks } from './tracking-links';

/** A transparent 1×1 GIF. */
export const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
export const PIXEL_HEADERS = { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store, max-age=0', 'Content-Length': String(PIXEL.length) };
/** The redirect has no body: `Content-Length: 0` (not an empty chunked body, whose last chunk is one more write). */
export const REDIRECT_HEADERS = { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'Content-Length': '0' };
/** The same as `res.writeHead`'s flat list (name, value, …): no object to build and walk per answer. */
const PIXEL_HEADER_LIST = Object.entries(PIXEL_HEADERS).flat();
const REDIRECT_HEADER_LIST = Object.entries(REDIRECT_HEADERS).flat();

/**
 * `/t/o/<token>` and `/t/c/<token>` whose token is written in the characters a token is made of
 * (nothing to percent-decode), with or without a query. Anything else goes through Express.
 */
const TRACKING_PATH = /^\/t\/([oc])\/([A-Za-z0-9._-]{1,200})(?:\?|$)/;

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The open pixel and the tracked links answered before Express and Nest: recipients' mail clients
 * call them far more often than anything else, and they need none of the per-request stack (no key,
 * no body, no guard). The same answers as TrackingController, which stays the route for every
 * request this path hands on (a token to percent-decode, a wrong click token or link index, whose
 * 404 is the spec's error envelope, a method other than GET or HEAD, an error): the signed token is
 * verified, the hit is buffered in MailEventsService's batch writer (the project's tracking switch
 * and the time rules are applied when the batch is written), the answer carries `X-Request-Id` and is
 * counted in `http_requests_total` / `http_request_duration_seconds` under the controller's route
 * template, and logged at debug only. Nothing it calls can throw out of the listener.
 */
export function installTrackingFastPath(app: NestExpressApplication, config: Pick<BaseConfig, 'LOG_LEVEL'>): void {
  const server = app.getHttpServer() as Server;
  const listeners = server.listeners('request') as RequestListener[];
  if (listeners.length !== 1) throw new Error(`tracking fast path: expected one request listener (Express), found ${listeners.length}`);
  const [express] = listeners;
  const tokens = app.get(TrackingLinks).tokens;
  const events = app.get(MailEventsService);
  const metrics = app.get(MetricsService);
  const logger = new Logger('TrackingFastPath');
  const debug = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace';
  const answers = new ExpressAnswers(app.getHttpAdapter().getInstance() as ExpressSettings);

  const handOn = (req: IncomingMessage, res: ServerResponse, err: unknown) => {
    logger.warn(`${req.method} ${req.url?.slice(0, 64)} handed to the router after: ${(err as Error)?.message ?? String(err)}`);
    if (!res.headersSent) express(req, res);
    else res.destroy();
  };
  const done = (req: IncomingMessage, route: string, status: number, started: bigint) => {
    metrics.observeHttp(req.method!, route, status, Number(process.hrtime.bigint() - started) / 1e9);
    if (debug) logger.debug(`${req.method} ${route} ${status}`);
  };

  const open = (req: IncomingMessage, res: ServerResponse, token: string, started: bigint) => {
    const emailId = tokens.verifyOpen(token);
    if (emailId) {
      const ua = req.headers['user-agent'];
      events.trackOpen(emailId, openFlag(ua, answers.ip(req)), ua);
    }
    res.writeHead(200, [...PIXEL_HEADER_LIST, 'X-Request-Id', requestIdFrom(req)]);
    res.end(PIXEL);
    done(req, '/t/o/:token', 200, started);
  };

  const redirect = (req: IncomingMessage, res: ServerResponse, link: { emailId: string; index: number }, url: string | null, started: bigint) => {
    // A mail without this link: the router answers the 404 in the error envelope.
    if (!url) return express(req, res);
    res.writeHead(302, ['Location', url, ...REDIRECT_HEADER_LIST, 'X-Request-Id', requestIdFrom(req)]);
    const ua = req.headers['user-agent'];
    events.trackClick(link.emailId, link.index, clickFlag(req.method!, ua), ua, req.method!);
    res.end();
    done(req, '/t/c/:token', 302, started);
  };

  const click = (req: IncomingMessage, res: ServerResponse, token: string, started: bigint): boolean => {
    const link = tokens.verifyClick(token);
    if (!link) return false;
    // The mail's links in memory (most clicks): answered now; else read first.
    const known = events.knownClickTarget(link.emailId, link.index);
    if (known !== undefined) {
      redirect(req, res, link, known, started);
      return true;
    }
    events.clickTarget(link.emailId, link.index).then(
      (url) => {
        try {
          redirect(req, res, link, url, started);
        } catch (err) {
          handOn(req, res, err);
        }
      },
      (err: unknown) => handOn(req, res, err),
    );
    return true;
  };

  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const m = req.method === 'GET' || req.method === 'HEAD' ? TRACKING_PATH.exec(req.url ?? '') : null;
    if (!m) return express(req, res);
    try {
      const started = process.hrtime.bigint();
      if (m[1] === 'o') open(req, res, m[2], started);
      else if (!click(req, res, m[2], started)) express(req, res);
    } catch (err) {
      handOn(req, res, err);
    }
  });
}
