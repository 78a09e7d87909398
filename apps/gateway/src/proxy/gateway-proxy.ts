import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ProxyEngine, takeOverServer, type ProxyOutcome, type ProxyTarget } from '@platform/http-proxy';
import { DRAIN_TIMEOUT_MS, MetricsService } from '@platform/platform';
import type { Server } from 'node:http';
import { Counter, Histogram } from 'prom-client';
import { GatewayConfig } from '../config';
import { RouteTable, type RouteMatch } from '../routes/route-table';

/**
 * Puts the proxy in front of the gateway's own routes, on the HTTP server's `request` and `upgrade`
 * events. Requests whose first path segment is no known prefix fall through to the gateway's routes.
 */
@Injectable()
export class GatewayProxy implements OnApplicationShutdown {
  private readonly logger = new Logger('GatewayProxy');
  private readonly engine: ProxyEngine;
  private readonly requests: Counter<'upstream' | 'status'>;
  private readonly duration: Histogram<'upstream'>;

  constructor(
    private readonly routes: RouteTable,
    config: GatewayConfig,
    metrics: MetricsService,
  ) {
    this.requests = new Counter({
      name: 'gateway_proxy_requests_total',
      help: 'Requests and upgrades proxied, by upstream service and status (502: upstream unreachable, 499: client left)',
      labelNames: ['upstream', 'status'],
      registers: [metrics.registry],
    });
    this.duration = new Histogram({
      name: 'gateway_proxy_duration_seconds',
      help: 'Time from request to the end of the upstream response, by upstream service',
      labelNames: ['upstream'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
    this.engine = new ProxyEngine({
      timeoutMs: config.GATEWAY_TIMEOUT_MS,
      connectTimeoutMs: config.GATEWAY_CONNECT_TIMEOUT_MS,
      onComplete: (outcome) => this.record(outcome),
      faults: {
        registry: metrics.registry,
        onFault: (site, error) => this.logger.error(`${site} listener failed; answered 500 and kept serving: ${(error as Error)?.stack ?? String(error)}`),
      },
    });
  }

  /**
   * Takes over the HTTP server's `request` event: a request under a known prefix goes straight to the
   * proxy (no Express routing, no per-request logger: the upstream logs it with the same X-Request-Id),
   * anything else to the gateway's own Express/Nest routes. This keeps the proxy's overhead small.
   */
  install(app: NestExpressApplication): void {
    takeOverServer(
      app.getHttpServer() as Server,
      this.engine,
      {
        request: (req, res, express) => {
          const match = this.routes.match(req.url ?? '/');
          if (match === undefined) express(req, res);
          else this.engine.forward(req, res, targetOf(match));
        },
        upgrade: (req, socket, head) => {
          const match = this.routes.match(req.url ?? '/');
          if (match === undefined) {
            const body = JSON.stringify({
              statusCode: 404,
              error: 'Not Found',
              message: `No service is routed at ${req.url}. Known prefixes: ${this.routes.prefixes.join(', ')}`,
              prefixes: this.routes.prefixes,
            });
            socket.write(
              `HTTP/1.1 404 Not Found\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
            );
            socket.destroySoon();
            return;
          }
          this.engine.upgrade(req, socket, head, targetOf(match));
        },
      },
      {
        name: 'gateway',
        drainTimeoutMs: DRAIN_TIMEOUT_MS,
        onCut: (active) => this.logger.warn(`shutdown: cutting ${active} proxied request(s) still in flight`),
      },
    );
  }

  onApplicationShutdown(): void {
    this.engine.close();
  }

  private record(outcome: ProxyOutcome): void {
    this.requests.inc({ upstream: outcome.service, status: String(outcome.status) });
    this.duration.observe({ upstream: outcome.service }, outcome.durationMs / 1000);
    if (outcome.status === 502) {
      // Without the query string: it may carry a key or token (webhook verification, Socket.IO auth).
      const path = outcome.path.split('?', 1)[0];
      this.logger.warn(`${outcome.method} ${path} → ${outcome.service} failed: ${outcome.error ?? 'unavailable'} (request ${outcome.requestId})`);
    }
  }
}

/** A matched route as the proxy engine's target: the service, its upstream, the path, its prefix. */
function targetOf(match: RouteMatch): ProxyTarget {
  const { route, path } = match;
  return { name: route.name, upstream: route.upstream, path, prefix: route.prefix };
}
