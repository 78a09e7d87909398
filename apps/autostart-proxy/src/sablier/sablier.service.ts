import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import type { ManagedService } from '../catalog/catalog';
import { CatalogService } from '../catalog/catalog.service';
import { ThemesService } from '../waiting/themes.service';
import { ActivityService } from '../workloads/activity.service';
import { Clock } from '../workloads/clock';
import { WorkloadsService, type InstanceState, type Readiness } from '../workloads/workloads.service';
import type { BlockingAnswerDto, BlockingQueryDto, DynamicQueryDto, InstanceInfoDto, StrategyQueryDto } from './sablier.dto';
import { formatGoDuration, parseGoDuration } from '../catalog/go-duration';
import type { FastQuery } from './fast-query';

export const DEFAULT_REFRESH_MS = 5_000;
const READY: Readiness = { kind: 'ready' };
export const DEFAULT_BLOCKING_TIMEOUT_MS = 60_000;

export const SESSION_STATUS_HEADER = 'X-Sablier-Session-Status';
const NOT_READY = { [SESSION_STATUS_HEADER]: 'not-ready' };

export type SessionStatus = 'ready' | 'not-ready';

export interface DynamicAnswer {
  status: SessionStatus;
  html: string;
}

export interface BlockingAnswer {
  status: SessionStatus;
  body: BlockingAnswerDto;
}

/**
 * Sablier's HTTP API over the managed services: the instances named by `names` or `group` are
 * resolved (and started) exactly as a routed request would (one start across replicas), and the
 * call is their activity: with `session_duration` a session every replica shares, else a request
 * under the service's own idleTimeout.
 */
@Injectable()
export class SablierService implements BeforeApplicationShutdown {
  private terminating = false;

  constructor(
    private readonly catalog: CatalogService,
    private readonly workloads: WorkloadsService,
    private readonly activity: ActivityService,
    private readonly themes: ThemesService,
    private readonly clock: Clock,
  ) {}

  async dynamic(q: DynamicQueryDto): Promise<DynamicAnswer> {
    const services = this.select(q);
    const theme = this.theme(q, services);
    const sessionMs = this.session(services, q.session_duration);
    const states = await this.workloads.instances(services, this.until(sessionMs));
    return this.page(q, services, theme, sessionMs, states);
  }

  /**
   * The raw fast path (routing/): the answer of a call whose instances this replica knows ready, with
   * no I/O (the session is written with the activity, every AUTOSTART_FLUSH_MS). Undefined when the
   * call needs more (an instance not ready, an unknown name, group or theme): Nest answers it then.
   */
  warm(fast: FastQuery): { status: 200; contentType: string; body: string } | undefined {
    const { byName, groups } = this.catalog.catalog;
    const q = fast.query;
    const services = q.group ? groups.get(q.group) : q.names?.every((n) => byName.has(n)) ? [...new Set(q.names)].map((n) => byName.get(n)!) : undefined;
    if (!services || !this.workloads.allReady(services)) return undefined;
    if (fast.kind === 'dynamic') {
      const theme = fast.query.theme ?? services[0].theme;
      if (!this.themes.has(theme)) return undefined;
      const sessionMs = this.session(services, q.session_duration);
      const states = services.map((s) => this.workloads.instanceState(s, READY));
      return { status: 200, contentType: 'text/html; charset=utf-8', body: this.page(fast.query, services, theme, sessionMs, states).html };
    }
    this.session(services, q.session_duration);
    const states = services.map((s) => this.workloads.instanceState(s, READY));
    return { status: 200, contentType: 'application/json; charset=utf-8', body: JSON.stringify(this.sessionBody(services, states, 'ready')) };
  }

  private theme(q: DynamicQueryDto, services: readonly ManagedService[]): string {
    const theme = q.theme ?? services[0].theme;
    if (!this.themes.has(theme)) {
      throw new ApiError(404, 'THEME_NOT_FOUND', `Theme "${theme}" does not exist; GET /api/themes lists the built-in and custom ones`);
    }
    return theme;
  }

  private page(q: DynamicQueryDto, services: readonly ManagedService[], theme: string, sessionMs: number | undefined, states: InstanceState[]): DynamicAnswer {
    const status = overall(states.map((s) => s.readiness));
    const html = this.themes.render(theme, {
      displayName: q.display_name ?? q.group ?? services.map((s) => s.displayName).join(', '),
      showDetails: q.show_details ?? true,
      instances: states.map((s) => ({
        name: s.name,
        status: sablierStatus(s.readiness),
        error: s.readiness.kind === 'failed' ? s.readiness.error : undefined,
        currentReplicas: s.currentReplicas,
        desiredReplicas: s.desiredReplicas,
      })),
      sessionDuration: formatGoDuration(sessionMs ?? Math.max(...services.map((s) => s.idleTimeout)) * 1000),
      refreshSeconds: Math.max(1, Math.round((parseGoDuration(q.refresh_frequency) ?? DEFAULT_REFRESH_MS) / 1000)),
    });
    return { status, html };
  }

  private sessionBody(services: readonly ManagedService[], states: InstanceState[], status: SessionStatus): BlockingAnswerDto {
    return {
      session: {
        instances: Object.fromEntries(
          states.map((s, i) => [s.name, { instance: this.info(services[i], s), error: s.readiness.kind === 'failed' ? s.readiness.error : null }]),
        ),
        status,
      },
    };
  }

  async blocking(q: BlockingQueryDto): Promise<BlockingAnswer> {
    const services = this.select(q);
    const sessionMs = this.session(services, q.session_duration);
    const timeoutMs = parseGoDuration(q.timeout) ?? DEFAULT_BLOCKING_TIMEOUT_MS;
    const readiness = await this.workloads.waitUntilReady(services, timeoutMs, this.until(sessionMs));
    const states = services.map((s, i) => this.workloads.instanceState(s, readiness[i]));
    const status = overall(readiness);
    const body = this.sessionBody(services, states, status);
    const failed = states.filter((s) => s.readiness.kind === 'failed');
    if (failed.length > 0) {
      throw new ApiError(
        502,
        'START_FAILED',
        failed.map((s) => `${s.name} could not be started: ${(s.readiness as { error: string }).error}`).join('; ') + '; the next call starts it again',
        { headers: NOT_READY },
      );
    }
    if (status !== 'ready') {
      const waiting = states.filter((s) => s.readiness.kind !== 'ready').map((s) => s.name);
      throw new ApiError(504, 'NOT_READY', `${waiting.join(', ')} not ready within ${formatGoDuration(timeoutMs)}; call again to keep waiting (the start goes on)`, {
        headers: NOT_READY,
      });
    }
    return { status, body };
  }

  themeNames(): string[] {
    return [...this.themes.names].sort();
  }

  /** 200 while serving, 503 once shutdown has begun (Sablier's /health). */
  health(): { status: number; text: string } {
    return this.terminating ? { status: 503, text: 'terminating' } : { status: 200, text: 'ok' };
  }

  beforeApplicationShutdown(): void {
    this.terminating = true;
  }

  /** The services a call names: `names` or `group`, exactly one; each must exist. */
  private select(q: StrategyQueryDto): ManagedService[] {
    const { byName, groups } = this.catalog.catalog;
    if (q.names && q.group) throw new ApiError(400, 'BAD_REQUEST', 'Give either names or group, not both');
    if (q.group) {
      const members = groups.get(q.group);
      if (!members) throw new ApiError(404, 'GROUP_NOT_FOUND', `No managed service is in group "${q.group}"; groups: ${[...groups.keys()].join(', ') || 'none'}`);
      return [...members];
    }
    if (!q.names) throw new ApiError(400, 'BAD_REQUEST', 'Give names (the managed services to start) or group');
    const missing = q.names.filter((n) => !byName.has(n));
    if (missing.length > 0) throw new ApiError(404, 'INSTANCE_NOT_FOUND', `No managed service is named ${missing.map((n) => `"${n}"`).join(', ')}; GET /api/services lists them`);
    return [...new Set(q.names)].map((n) => byName.get(n)!);
  }

  /** Records the call as the instances' activity: a session when a duration is given, else a request. */
  private session(services: readonly ManagedService[], duration: string | undefined): number | undefined {
    const ms = parseGoDuration(duration);
    for (const s of services) {
      if (ms === undefined) this.activity.touch(s.name);
      else this.activity.session(s.name, ms);
    }
    return ms;
  }

  private until(ms: number | undefined): Date | undefined {
    return ms === undefined ? undefined : new Date(this.clock.now() + ms);
  }

  private info(service: ManagedService, s: InstanceState): InstanceInfoDto {
    return {
      name: s.name,
      status: sablierStatus(s.readiness),
      currentReplicas: s.currentReplicas,
      desiredReplicas: s.desiredReplicas,
      provider: service.provider,
      groups: service.group ? [service.group] : [],
      ...(s.readiness.kind === 'failed' ? { message: s.readiness.error } : {}),
      ...(service.readyAfter > 0 ? { readyAfter: formatGoDuration(service.readyAfter * 1000) } : {}),
    };
  }
}

function sablierStatus(r: Readiness): string {
  return r.kind === 'ready' ? 'ready' : r.kind === 'failed' ? 'error' : 'not-ready';
}

function overall(states: Readiness[]): SessionStatus {
  return states.every((r) => r.kind === 'ready') ? 'ready' : 'not-ready';
}
