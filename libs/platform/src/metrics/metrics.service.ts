import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { heapUsedAfterLastGc } from './heap-after-gc';

/**
 * The Prometheus registry of one app (never prom-client's global registry: several apps share one
 * process under `npm start`). Apps add their own metrics with `registers: [metrics.registry]`.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;

  constructor(service: string) {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    heapUsedAfterLastGc();
    new Gauge({
      name: 'nodejs_heap_used_after_gc_bytes',
      help: 'V8 heap used right after the last full garbage collection of the process (0 before the first): rising from one collection to the next is a leak',
      registers: [this.registry],
      collect() {
        this.set(heapUsedAfterLastGc() ?? 0);
      },
    });
    this.httpRequests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration in seconds, by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
  }

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }
}
