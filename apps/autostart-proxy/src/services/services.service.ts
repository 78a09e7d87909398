import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import type { ManagedService } from '../catalog/catalog';
import { CatalogService } from '../catalog/catalog.service';
import { Clock } from '../workloads/clock';
import { WorkloadsService } from '../workloads/workloads.service';
import type { HealthAnswer, RequestHistoryDto, ServiceListDto, ServiceViewDto } from './services.dto';

/** What GET /api/services and GET /health/{host} report, from the catalog, the shared state and the engines. */
@Injectable()
export class ServicesService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly workloads: WorkloadsService,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<ServiceListDto> {
    const { services, idleTimeout } = this.catalog.catalog;
    const rows = new Map((await this.workloads.rows(services.map((s) => s.name))).map((r) => [r.name, r]));
    const now = this.clock.now();
    const views = await Promise.all(
      services.map(async (service): Promise<ServiceViewDto> => {
        const row = rows.get(service.name);
        const live = await this.workloads
          .provider(service)
          .status(service.target)
          .then((s) => ({ state: s.state, containers: s.containers.map((c) => c.name), replicas: s.replicas, error: undefined as string | undefined }))
          .catch((err: Error) => ({ state: 'unknown', containers: [] as string[], replicas: undefined, error: err.message }));
        return {
          hostname: service.hosts[0] ?? null,
          hosts: [...service.hosts],
          name: service.name,
          mode: service.mode,
          theme: service.mode === 'dynamic' ? service.theme : null,
          status: row?.status ?? 'unknown',
          engineState: live.state,
          containers: live.containers,
          replicas: live.replicas ?? null,
          provider: service.provider,
          group: service.group ?? null,
          source: service.source,
          target: service.target,
          upstream: service.upstream.origin,
          estimatedTime: service.estimatedTime,
          idleTimeout: service.idleTimeout,
          startTimeout: service.startTimeout,
          idleTime: row ? Math.max(0, Math.floor((now - row.lastActivity.getTime()) / 1000)) : 0,
          lastActivity: row?.lastActivity.toISOString() ?? null,
          lastError: row?.lastError ?? live.error ?? null,
          starts: row?.starts ?? 0,
          stops: row?.stops ?? 0,
          requests: row?.requests ?? 0,
        };
      }),
    );
    return { totalServices: views.length, idleTimeout, services: views };
  }

  async health(host: string): Promise<HealthAnswer> {
    const service = this.require(host);
    const readiness = await this.workloads.readiness(service);
    const base = { service: service.name, hostname: host.toLowerCase() };
    switch (readiness.kind) {
      case 'ready': {
        const containers = await this.workloads
          .provider(service)
          .status(service.target)
          .then((s) => s.containers.map((c) => c.name))
          .catch(() => []);
        return { status: 200, body: { status: 'ready', ...base, containers } };
      }
      case 'failed':
        return { status: 502, body: { status: 'failed', ...base, error: readiness.error, message: 'The start failed; the next request to the service starts it again' } };
      case 'stopped':
        return { status: 503, body: { status: 'stopped', ...base, estimatedTime: service.estimatedTime, message: 'Stopped; a request to the service starts it' } };
      default: {
        const elapsed = Math.max(0, (this.clock.now() - readiness.since.getTime()) / 1000);
        const retryAfter = Math.max(1, Math.ceil(service.estimatedTime - elapsed));
        return {
          status: 503,
          retryAfter,
          body: { status: 'starting', ...base, estimatedTime: service.estimatedTime, retryAfter, elapsed: Math.floor(elapsed), message: `${service.name} is starting` },
        };
      }
    }
  }

  async history(name: string, limit: number): Promise<RequestHistoryDto> {
    if (!this.catalog.catalog.byName.has(name)) throw new ApiError(404, 'NOT_FOUND', `No managed service is named "${name}"`);
    const records = await this.workloads.history(name, limit);
    return { service: name, requests: records.map((r) => ({ ...r, at: r.at.toISOString() })) };
  }

  private require(host: string): ManagedService {
    const service = this.catalog.byHost(host);
    if (!service) throw new ApiError(404, 'NOT_FOUND', `No managed service answers for host "${host}"`);
    return service;
  }
}
