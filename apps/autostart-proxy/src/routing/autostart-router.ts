import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ProxyEngine, takeOverServer } from '@platform/http-proxy';
import { DRAIN_TIMEOUT_MS, MetricsService } from '@platform/platform';
import { Counter } from 'prom-client';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { normalizeHost, type ManagedService } from '../catalog/catalog';
import { CatalogService } from '../catalog/catalog.service';
import { AutostartProxyConfig } from '../config';
import { ActivityService } from '../workloads/activity.service';
import { Clock } from '../workloads/clock';
import { THEMES } from '../waiting/themes';
import { ThemesService } from '../waiting/themes.service';
import { formatGoDuration } from '../catalog/go-duration';
import { combineReadiness, WorkloadsService, type Readiness } from '../workloads/workloads.service';
import { parseFastQuery } from '../sablier/fast-query';
import { SablierService } from '../sablier/sablier.service';
import { sendPage, sendTimedOut, wantsPage, malformedPathBody, notManagedBody, rawAnswer, sendMalformedPath, retryAfterSeconds, sendFailed, sendNotManaged, sendWaiting, startingBody, healthUrlOf } from './answers';

const TARGET_HEADER = 'x-autostart-target';
const HEALTH_PATH = /^\/health\/([^/?#]+)\/?(?:[?#]|$)/;

/**
 * Routes every request by its target host (`X-Autostart-Target`, set by the front reverse proxy, or
 * else `Host`), on the HTTP server's `request` and `upgrade` events, before Express:
 * - a managed service known ready → proxied (@platform/http-proxy: streamed, upgrades, headers kept);
 * - not ready → started once, and answered with the waiting page (dynamic), 202 (async) or the
 *   error of a failed start;
 * - `/health/<managed host>` on any host, and requests for no managed host without the header → the
 *   proxy's own routes (`/api/services`, `/health/{host}`, `/healthz`, docs);
 * - `X-Autostart-Target` naming no managed host → 404 JSON, nothing started.
 */
@Injectable()
export class AutostartRouter implements OnApplicationShutdown {
  private readonly logger = new Logger('AutostartRouter');
  private readonly engine: ProxyEngine;
  private readonly requests: Counter<'service' | 'outcome'>;

  constructor(
    private readonly catalog: CatalogService,
    private readonly workloads: WorkloadsService,
    private readonly activity: ActivityService,
    private readonly clock: Clock,
    private readonly config: AutostartProxyConfig,
    private readonly themes: ThemesService,
    private readonly sablier: SablierService,
    metrics: MetricsService,
  ) {
    this.requests = new Counter({
      name: 'autostart_requests_total',
      help: 'Requests for managed services by outcome: proxied, waiting (page), accepted (202), failed (start failed), unavailable (upstream unreachable, 502)',
      labelNames: ['service', 'outcome'],
      registers: [metrics.registry],
    });
    this.engine = new ProxyEngine({
      timeoutMs: config.AUTOSTART_PROXY_TIMEOUT_MS,
      connectTimeoutMs: config.AUTOSTART_CONNECT_TIMEOUT_MS,
      onComplete: (outcome) => {
        if (outcome.status === 502) {
          this.requests.inc({ service: outcome.service, outcome: 'unavailable' });
          // Stopped from outside, or gone: the next request looks again (and starts it).
          this.workloads.forget(outcome.service);
          this.logger.warn(`${outcome.method} ${outcome.path.split('?', 1)[0]} → ${outcome.service} failed: ${outcome.error ?? 'unavailable'} (request ${outcome.requestId})`);
        }
      },
      faults: {
        registry: metrics.registry,
        onFault: (site, error) => this.logger.error(`${site} listener failed; answered 500 and kept serving: ${(error as Error)?.stack ?? String(error)}`),
      },
    });
  }

  install(app: NestExpressApplication): void {
    takeOverServer(
      app.getHttpServer() as Server,
      this.engine,
      {
        request: (req, res, express) => {
          const routed = this.route(req);
          if (routed.kind === 'own') {
            if (!this.sablierWarm(req, res)) express(req, res);
          }
          else if (routed.kind === 'malformed') sendMalformedPath(req, res);
          else if (routed.kind === 'unknown') sendNotManaged(res, routed.host);
          else this.handle(req, res, routed.service, routed.host);
        },
        upgrade: (req, socket, head) => {
          const routed = this.route(req);
          if (routed.kind === 'service') this.handleUpgrade(req, socket, head, routed.service, routed.host);
          else if (routed.kind === 'malformed') {
            socket.write(rawAnswer(400, 'Bad Request', malformedPathBody()));
            socket.destroySoon();
          } else {
            socket.write(rawAnswer(404, 'Not Found', notManagedBody(routed.kind === 'unknown' ? routed.host : String(req.headers.host ?? ''))));
            socket.destroySoon();
          }
        },
      },
      {
        name: 'autostart-proxy',
        drainTimeoutMs: DRAIN_TIMEOUT_MS,
        onCut: (active) => this.logger.warn(`shutdown: cutting ${active} proxied request(s) still in flight`),
      },
    );
  }

  private route(
    req: IncomingMessage,
  ): { kind: 'own' } | { kind: 'malformed' } | { kind: 'unknown'; host: string } | { kind: 'service'; service: ManagedService; host: string } {
    const header = req.headers[TARGET_HEADER];
    const explicit = typeof header === 'string' && header.length > 0 ? header : undefined;
    const url = req.url ?? '/';
    const health = url.startsWith('/health/') ? HEALTH_PATH.exec(url) : null;
    if (health) {
      const named = decodedSegment(health[1]);
      if (named === undefined) return { kind: 'malformed' };
      if (this.catalog.byHost(named)) return { kind: 'own' };
    }
    const host = normalizeHost(explicit ?? req.headers.host ?? '');
    const service = this.catalog.catalog.byHost.get(host);
    if (service) return { kind: 'service', service, host };
    return explicit !== undefined ? { kind: 'unknown', host } : { kind: 'own' };
  }

  /**
   * Sablier's strategy calls on a warm session (every instance known ready here) answered without
   * Express: what the plugins send for every request they pass. Anything else (a query Nest would
   * refuse, an instance not ready, an unknown name) goes to Nest, which validates and answers it; a
   * failure here does too, so nothing a request sends escapes this path.
   */
  private sablierWarm(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '/';
    if (req.method !== 'GET' || !url.startsWith('/api/strategies/')) return false;
    try {
      const fast = parseFastQuery(url);
      const answer = fast && this.sablier.warm(fast);
      if (!answer) return false;
      res.writeHead(answer.status, {
        'content-type': answer.contentType,
        'content-length': Buffer.byteLength(answer.body),
        'cache-control': 'no-store',
        'x-sablier-session-status': 'ready',
      });
      res.end(answer.body);
      return true;
    } catch (err) {
      this.logger.warn(`Sablier fast path: ${(err as Error).message}; answered by Nest`);
      return false;
    }
  }

  /** The services a request to `service` needs ready: its group's members, or itself. */
  private needs(service: ManagedService): readonly ManagedService[] {
    return (service.group && this.catalog.catalog.groups.get(service.group)) || [service];
  }

  private handle(req: IncomingMessage, res: ServerResponse, service: ManagedService, host: string): void {
    if (service.group ? this.workloads.allReady(this.needs(service)) : this.workloads.isReady(service.name)) {
      this.proxy(req, res, service, host);
      return;
    }
    const started = performance.now();
    const needs = this.needs(service);
    // blocking: the request waits (bounded by blockingTimeout) and is proxied once ready; a failed start ends the wait.
    const pending =
      service.mode === 'blocking'
        ? this.workloads.waitUntilReady(needs, service.blockingTimeout * 1000).then(combineReadiness)
        : this.workloads.resolveAll(needs);
    pending
      .then(
        (readiness) => this.answer(req, res, service, host, readiness, started),
        (err: Error) => {
          this.logger.error(`${service.name}: ${err.message}`);
          this.answer(req, res, service, host, { kind: 'failed', error: `the proxy could not reach its state or the engine: ${err.message}` }, started);
        },
      )
      .catch((err: Error) => {
        // Outside Nest's error handling: this one exchange ends, the process keeps serving.
        this.logger.error(`${service.name}: answering failed: ${err.stack ?? err.message}`);
        if (!res.headersSent) res.destroy();
      });
  }

  private answer(req: IncomingMessage, res: ServerResponse, service: ManagedService, host: string, readiness: Readiness, started: number): void {
    if (res.destroyed) return;
    switch (readiness.kind) {
      case 'ready':
        this.proxy(req, res, service, host);
        return;
      case 'failed':
        req.resume();
        sendFailed(req, res, service, readiness.error);
        this.record(req, service, host, 502, 'failed', started);
        return;
      default: {
        req.resume();
        if (service.mode === 'blocking') {
          sendTimedOut(res, service);
          this.record(req, service, host, 504, 'timeout', started);
          return;
        }
        const since = readiness.kind === 'starting' ? readiness.since : new Date(this.clock.now());
        if (service.mode === 'dynamic' && !(service.theme in THEMES) && wantsPage(req)) {
          sendPage(res, this.customPage(service, readiness), retryAfterSeconds(service, since, this.clock.now()));
          this.record(req, service, host, 200, 'waiting', started);
          return;
        }
        sendWaiting(req, res, service, host, retryAfterSeconds(service, since, this.clock.now()), this.config.AUTOSTART_REFRESH_SECONDS);
        this.record(req, service, host, res.statusCode, res.statusCode === 202 ? 'accepted' : 'waiting', started);
      }
    }
  }

  private proxy(req: IncomingMessage, res: ServerResponse, service: ManagedService, host: string): void {
    const started = performance.now();
    this.activity.touch(service.name);
    // A group is used together, so it goes idle (and is stopped) together.
    if (service.group) for (const member of this.needs(service)) this.activity.touch(member.name);
    this.requests.inc({ service: service.name, outcome: 'proxied' });
    const closed = this.activity.opened(service.name);
    const sampled = this.activity.sampleProxied(service.name);
    res.once('close', () => {
      closed();
      if (sampled) this.record(req, service, host, res.statusCode, 'proxied', started);
    });
    this.engine.forward(req, res, { name: service.name, upstream: service.upstream, path: req.url ?? '/' });
  }

  private handleUpgrade(req: IncomingMessage, socket: Socket, head: Buffer, service: ManagedService, host: string): void {
    const tunnel = (): void => {
      const started = performance.now();
      this.activity.touch(service.name);
      const closed = this.activity.opened(service.name);
      const sampled = this.activity.sampleProxied(service.name);
      socket.once('close', () => {
        closed();
        if (sampled) this.record(req, service, host, 101, 'proxied', started);
      });
      this.engine.upgrade(req, socket, head, { name: service.name, upstream: service.upstream, path: req.url ?? '/' });
    };
    const needs = this.needs(service);
    if (this.workloads.allReady(needs)) {
      tunnel();
      return;
    }
    this.workloads
      .resolveAll(needs)
      .then((readiness) => {
        if (socket.destroyed) return;
        if (readiness.kind === 'ready') return tunnel();
        if (readiness.kind === 'failed') {
          socket.write(rawAnswer(502, 'Bad Gateway', JSON.stringify({ status: 'failed', service: service.name, error: readiness.error })));
        } else {
          const since = readiness.kind === 'starting' ? readiness.since : new Date(this.clock.now());
          const retryAfter = retryAfterSeconds(service, since, this.clock.now());
          socket.write(rawAnswer(503, 'Service Unavailable', JSON.stringify(startingBody(service, retryAfter, healthUrlOf(req, host))), { 'retry-after': String(retryAfter) }));
        }
        socket.destroySoon();
      })
      .catch(() => socket.destroy());
  }

  /** A custom theme's page (AUTOSTART_THEMES_DIR) for a routed request: the group's instances, reloaded by its meta refresh. */
  private customPage(service: ManagedService, readiness: Readiness): string {
    const needs = this.needs(service);
    return this.themes.render(service.theme, {
      displayName: service.group && needs.length > 1 ? service.group : service.displayName,
      showDetails: true,
      instances: needs.map((member) => {
        const state = this.workloads.instanceState(member, this.workloads.isReady(member.name) ? { kind: 'ready' } : readiness);
        const status = state.readiness.kind === 'ready' ? 'ready' : state.readiness.kind === 'failed' ? 'error' : 'not-ready';
        return { name: member.name, status, currentReplicas: state.currentReplicas, desiredReplicas: state.desiredReplicas };
      }),
      sessionDuration: formatGoDuration(service.idleTimeout * 1000),
      refreshSeconds: this.config.AUTOSTART_REFRESH_SECONDS,
    });
  }

  private record(req: IncomingMessage, service: ManagedService, host: string, status: number, outcome: string, started: number): void {
    if (outcome !== 'proxied') this.requests.inc({ service: service.name, outcome });
    this.activity.record({
      service: service.name,
      host,
      method: req.method ?? 'GET',
      // Without the query string: it may carry a key or a token.
      path: (req.url ?? '/').split('?', 1)[0].slice(0, 2048),
      status,
      outcome,
      durationMs: performance.now() - started,
      at: new Date(this.clock.now()),
    });
  }

  onApplicationShutdown(): void {
    this.engine.close();
    this.workloads.close();
  }
}

/** A path segment percent-decoded, or undefined when its encoding is malformed (`%ED%A0%80`, `%zz`). */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
