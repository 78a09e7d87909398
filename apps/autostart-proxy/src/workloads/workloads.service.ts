import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { ContainerProviders, type ContainerProvider, type DockerProvider, type KubernetesProvider } from '@platform/containers';
import { MetricsService } from '@platform/platform';
import { Counter } from 'prom-client';
import http from 'node:http';
import https from 'node:https';
import type { ManagedService } from '../catalog/catalog';
import { AutostartProxyConfig } from '../config';
import { Clock } from './clock';
import { WorkloadsRepository, type RequestRecord, type WorkloadRow } from './workloads.repository';

/** What a request to a managed service finds. */
export type Readiness =
  | { kind: 'ready' }
  | { kind: 'starting'; since: Date }
  | { kind: 'stopped' }
  | { kind: 'failed'; error: string };

/**
 * One readiness for several workloads (a group): the first failure; else ready when all are; else
 * starting since the earliest start; else stopped.
 */
export function combineReadiness(states: readonly Readiness[]): Readiness {
  const failed = states.find((r) => r.kind === 'failed');
  if (failed) return failed;
  if (states.every((r) => r.kind === 'ready')) return { kind: 'ready' };
  const since = states.flatMap((r) => (r.kind === 'starting' ? [r.since.getTime()] : []));
  if (since.length > 0) return { kind: 'starting', since: new Date(Math.min(...since)) };
  return states.find((r) => r.kind === 'stopped') ?? { kind: 'starting', since: new Date() };
}

/** A managed service as Sablier's API reports it (InstanceInfo's core). */
export interface InstanceState {
  name: string;
  readiness: Readiness;
  /** running (and ready) instances, as the engine last reported them */
  currentReplicas: number;
  desiredReplicas: number;
}

/** One look at the workload: its own health (engine), then its health-check path. */
type Probe = { kind: 'ready' } | { kind: 'starting' } | { kind: 'stopped' } | { kind: 'unhealthy'; message: string };

/** Time a finished start's row may stay `starting` past its start timeout before another replica may take over. */
const START_LEASE_MARGIN_MS = 30_000;

/**
 * The life cycle of the managed workloads, shared by every replica through the database:
 *
 *   unknown/stopped ──request──► starting ──healthy──► running ──idle timeout──► stopping ──► stopped
 *                                   │  engine error, reported unhealthy, startTimeout
 *                                   ▼
 *                                 failed ──answered once (5xx)──► stopped (the next request starts again)
 *
 * One start however many requests arrive: requests of this replica share one resolution and one
 * start (single flight), and across replicas the start is claimed by one conditional UPDATE. Ready
 * means healthy: the engine's own health check where there is one, and the service's health-check
 * path answering 2xx, never merely "running". Services known ready are remembered in memory, so
 * proxied requests cost no database or engine call; the memory is dropped on a 502 from the
 * upstream, on this replica's idle stop and when the shared state says otherwise (refresh()).
 */
@Injectable()
export class WorkloadsService implements OnModuleDestroy {
  private readonly logger = new Logger('Workloads');
  private readonly providers: ContainerProviders;
  private readonly ready = new Set<string>();
  private readonly resolving = new Map<string, Promise<Readiness>>();
  private readonly starting = new Map<string, Promise<void>>();
  /** replicas {current, desired} as the engine last reported them, by service */
  private readonly replicas = new Map<string, { current: number; desired: number }>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 8 });
  private closing = false;
  private readonly lifecycle: Counter<'service' | 'event'>;

  constructor(
    private readonly repo: WorkloadsRepository,
    private readonly clock: Clock,
    private readonly config: AutostartProxyConfig,
    metrics: MetricsService,
  ) {
    this.lifecycle = new Counter({
      name: 'autostart_lifecycle_total',
      help: 'Starts (started, start_failed) and idle stops (stopped, stop_failed) done by this replica, by service',
      labelNames: ['service', 'event'],
      registers: [metrics.registry],
    });
    this.providers = new ContainerProviders(
      { docker: {}, kubernetes: {} },
      {
        DOCKER_HOST: config.DOCKER_HOST,
        DOCKER_TLS_VERIFY: config.DOCKER_TLS_VERIFY,
        DOCKER_CERT_PATH: config.DOCKER_CERT_PATH,
        KUBECONFIG: config.KUBECONFIG,
        KUBERNETES_SERVICE_HOST: config.KUBERNETES_SERVICE_HOST,
      },
    );
  }

  provider(service: ManagedService): ContainerProvider {
    return this.providers.get(service.provider);
  }

  /** The Docker provider (events, discovery). */
  docker(): DockerProvider {
    return this.providers.get('docker') as DockerProvider;
  }

  /** The Kubernetes provider (discovery). */
  kubernetes(): KubernetesProvider {
    return this.providers.get('kubernetes') as KubernetesProvider;
  }

  /** Whether this replica is starting the service now (its own start, not one from outside). */
  isStarting(name: string): boolean {
    return this.starting.has(name);
  }

  /** The workload stopped or was removed from outside (an engine event): forgotten, its session ended. */
  async stoppedOutside(name: string): Promise<void> {
    this.ready.delete(name);
    await this.repo.stoppedOutside(name, new Date(this.clock.now()));
  }

  /** The workload was started from outside (an engine event): adopted, active from now, stopped when idle. */
  async startedOutside(name: string): Promise<void> {
    await this.repo.adopt(name, new Date(this.clock.now()));
  }

  /** Known healthy by this replica: proxy at once. */
  isReady(name: string): boolean {
    return this.ready.has(name);
  }

  /** The upstream failed a proxied request (or the service was stopped): look again next time. */
  forget(name: string): void {
    this.ready.delete(name);
  }

  /** Rows for services never seen before (active from now on, so unused ones are stopped after their idle timeout too). */
  async register(services: readonly ManagedService[]): Promise<void> {
    await this.repo.ensure(
      services.map((s) => s.name),
      new Date(this.clock.now()),
    );
  }

  /** Drops what this replica remembers as ready when the shared state says it no longer runs. */
  async refresh(names: string[]): Promise<void> {
    if (this.ready.size === 0) return;
    const rows = await this.repo.list(names.filter((n) => this.ready.has(n)));
    for (const row of rows) if (row.status !== 'running') this.ready.delete(row.name);
  }

  /**
   * For a request to a service not known ready: finds out where it stands and starts it when it is
   * stopped. Concurrent callers of this replica share one resolution. A failed start is reported to
   * one caller, after which the next request starts it again.
   */
  resolveForRequest(service: ManagedService, sessionUntil?: Date): Promise<Readiness> {
    let pending = this.resolving.get(service.name);
    if (!pending) {
      pending = this.resolve(service, true, sessionUntil).finally(() => this.resolving.delete(service.name));
      this.resolving.set(service.name, pending);
    }
    return pending;
  }

  /** Known healthy by this replica, every one of them (a group). */
  allReady(services: readonly ManagedService[]): boolean {
    for (const s of services) if (!this.ready.has(s.name)) return false;
    return true;
  }

  /** resolveForRequest for several services at once (a group), combined into one readiness. */
  async resolveAll(services: readonly ManagedService[]): Promise<Readiness> {
    if (services.length === 1) return this.resolveForRequest(services[0]);
    return combineReadiness(await Promise.all(services.map((s) => this.resolveForRequest(s))));
  }

  /**
   * Resolves (and starts) every service until all are ready, one failed, or `timeoutMs` passed:
   * the blocking strategy and groups. Polls every AUTOSTART_HEALTH_POLL_MS, so a start claimed by
   * another replica is seen as soon as that replica marks it running.
   */
  async waitUntilReady(services: readonly ManagedService[], timeoutMs: number, sessionUntil?: Date): Promise<Readiness[]> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(
        services.map((s) => this.resolveForRequest(s, sessionUntil).catch((err: Error): Readiness => ({ kind: 'failed', error: err.message }))),
      );
      if (states.every((r) => r.kind === 'ready') || states.some((r) => r.kind === 'failed')) return states;
      const left = deadline - performance.now();
      if (left <= 0 || this.closing) return states;
      await sleep(Math.min(this.config.AUTOSTART_HEALTH_POLL_MS, left));
    }
  }

  /** Where each service stands for Sablier's API, starting what is stopped (no waiting). */
  async instances(services: readonly ManagedService[], sessionUntil?: Date): Promise<InstanceState[]> {
    const states = await Promise.all(
      services.map((s) =>
        (this.ready.has(s.name) ? Promise.resolve<Readiness>({ kind: 'ready' }) : this.resolveForRequest(s, sessionUntil)).catch(
          (err: Error): Readiness => ({ kind: 'failed', error: err.message }),
        ),
      ),
    );
    return services.map((s, i) => this.instanceState(s, states[i]));
  }

  /** The replica counts to report with a readiness. */
  instanceState(service: ManagedService, readiness: Readiness): InstanceState {
    const known = this.replicas.get(service.name);
    const desired = Math.max(1, known?.desired ?? 1);
    const current = readiness.kind === 'ready' ? desired : Math.min(known?.current ?? 0, desired);
    return { name: service.name, readiness, currentReplicas: current, desiredReplicas: desired };
  }

  /**
   * Where the service stands, for /health/{host}: without starting it. A failed start is reported
   * (and so acknowledged) here too, so the next request starts it again.
   */
  async readiness(service: ManagedService): Promise<Readiness> {
    if (this.ready.has(service.name)) return { kind: 'ready' };
    return this.resolve(service, false);
  }

  /** The shared rows of the services, for listings. */
  rows(names: string[]): Promise<WorkloadRow[]> {
    return this.repo.list(names);
  }
  /** The newest requests recorded for a service (its request history), newest first. */
  history(name: string, limit: number): Promise<RequestRecord[]> {
    return this.repo.history(name, limit);
  }


  private async resolve(service: ManagedService, startIfStopped: boolean, sessionUntil?: Date): Promise<Readiness> {
    if (this.ready.has(service.name)) return { kind: 'ready' };
    const now = new Date(this.clock.now());
    let row = await this.repo.get(service.name);
    if (!row) {
      await this.repo.ensure([service.name], now);
      row = await this.repo.get(service.name);
    }
    if (row?.status === 'failed') {
      const error = await this.repo.ackFailure(service.name, now);
      if (error !== null) return { kind: 'failed', error };
    }
    if (this.starting.has(service.name)) return { kind: 'starting', since: row?.statusSince ?? now };
    if (row?.status === 'starting' && row.startDeadline && row.startDeadline.getTime() > now.getTime()) {
      return { kind: 'starting', since: row.statusSince };
    }
    const probe = await this.probe(service).catch((err: Error): Probe => ({ kind: 'unhealthy', message: err.message }));
    if (probe.kind === 'ready') {
      await this.repo.markRunning(service.name, now);
      this.ready.add(service.name);
      return { kind: 'ready' };
    }
    if (!startIfStopped) {
      if (probe.kind === 'stopped') {
        await this.repo.markStopped(service.name, now);
        return { kind: 'stopped' };
      }
      return { kind: 'starting', since: row?.statusSince ?? now };
    }
    await this.start(service, sessionUntil);
    return { kind: 'starting', since: now };
  }

  /**
   * Starts the service once (this replica: single flight; all replicas: the database claim).
   * Resolves once the claim is settled (the shared state says `starting`); the start itself goes on
   * in the background.
   */
  async start(service: ManagedService, sessionUntil?: Date): Promise<void> {
    if (this.starting.has(service.name)) return;
    const now = this.clock.now();
    const deadline = new Date(now + (service.startTimeout + service.readyAfter) * 1000 + START_LEASE_MARGIN_MS);
    const claim = this.repo.claimStart(service.name, new Date(now), deadline, sessionUntil);
    const run = claim.then((claimed) => (claimed ? this.runStart(service) : undefined)).finally(() => this.starting.delete(service.name));
    this.starting.set(service.name, run);
    run.catch(() => undefined);
    await claim;
  }

  private async runStart(service: ManagedService): Promise<void> {
    const provider = this.provider(service);
    this.logger.log(`starting ${service.name} (${service.provider} ${service.target})`);
    try {
      await provider.start(service.target);
      await this.waitReady(service);
      // Sablier's ready-after: some upstreams answer their health check before they can serve.
      if (service.readyAfter > 0) await this.pause(service.readyAfter * 1000);
      if (this.closing) throw new ShuttingDown();
      await this.repo.markRunning(service.name, new Date(this.clock.now()));
      this.ready.add(service.name);
      this.lifecycle.inc({ service: service.name, event: 'started' });
      this.logger.log(`${service.name} is ready`);
    } catch (err) {
      if (err instanceof ShuttingDown) {
        // Not a failure of the service: the claim is released, and the next request (to any replica) carries on.
        await this.repo.releaseStart(service.name, new Date(this.clock.now()));
        return;
      }
      const message = (err as Error).message;
      this.lifecycle.inc({ service: service.name, event: 'start_failed' });
      this.logger.warn(`${service.name} could not be started: ${message}`);
      // Left half-started, it would hold resources and look "running": stopped, it starts afresh next time.
      await provider.stop(service.target, { timeoutSeconds: service.stopTimeout }).catch(() => undefined);
      await this.repo.markFailed(service.name, new Date(this.clock.now()), message);
    }
  }

  private async waitReady(service: ManagedService): Promise<void> {
    const started = performance.now();
    const limitMs = service.startTimeout * 1000;
    for (;;) {
      if (this.closing) throw new ShuttingDown();
      const probe = await this.probe(service);
      if (probe.kind === 'ready') return;
      if (probe.kind === 'unhealthy') throw new Error(`${service.name} reports unhealthy: ${probe.message}`);
      if (probe.kind === 'stopped') throw new Error(`${service.name} stopped right after it was started (see its logs)`);
      const elapsed = performance.now() - started;
      if (elapsed >= limitMs) {
        throw new Error(`${service.name} was not healthy within its startTimeout of ${service.startTimeout} s (${service.healthCheck} on ${service.upstream.origin} did not answer 2xx)`);
      }
      await sleep(Math.min(this.config.AUTOSTART_HEALTH_POLL_MS, limitMs - elapsed));
    }
  }

  /** Waits `ms`, cut short (ShuttingDown) when the proxy shuts down. */
  private async pause(ms: number): Promise<void> {
    const until = performance.now() + ms;
    for (let left = ms; left > 0; left = until - performance.now()) {
      if (this.closing) throw new ShuttingDown();
      await sleep(Math.min(left, 100));
    }
  }

  /** Ready only when the engine reports it healthy (or has no check of its own) and its health-check path answers 2xx. */
  private async probe(service: ManagedService): Promise<Probe> {
    const health = await this.provider(service).health(service.target);
    this.replicas.set(service.name, { current: health.ready, desired: health.desired });
    switch (health.status) {
      case 'stopped':
        return { kind: 'stopped' };
      case 'starting':
        return { kind: 'starting' };
      case 'unhealthy':
        return { kind: 'unhealthy', message: health.message ?? 'its health check fails' };
      default:
        return (await this.answersHealthy(service)) ? { kind: 'ready' } : { kind: 'starting' };
    }
  }

  /** GET <upstream><healthCheck>: true on 2xx within AUTOSTART_PROBE_TIMEOUT_MS. */
  private answersHealthy(service: ManagedService): Promise<boolean> {
    const url = new URL(service.healthCheck, service.upstream);
    const secure = url.protocol === 'https:';
    return new Promise((resolve) => {
      const req = (secure ? https : http).get(
        url,
        { agent: secure ? this.httpsAgent : this.agent, timeout: this.config.AUTOSTART_PROBE_TIMEOUT_MS, headers: { 'user-agent': 'autostart-proxy' } },
        (res) => {
          res.resume();
          resolve(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => resolve(false));
    });
  }

  /** Stops the service (idle), forgetting that it was ready. */
  async stop(service: ManagedService): Promise<void> {
    this.ready.delete(service.name);
    try {
      await this.provider(service).stop(service.target, { timeoutSeconds: service.stopTimeout });
      this.lifecycle.inc({ service: service.name, event: 'stopped' });
    } catch (err) {
      this.lifecycle.inc({ service: service.name, event: 'stop_failed' });
      throw err;
    }
  }

  /**
   * A stop taken over from a replica that died mid-stop: stops the service unless the engine reports
   * it stopped already (the first stop went through). True when it stopped it now.
   */
  async stopUnlessStopped(service: ManagedService): Promise<boolean> {
    const status = await this.provider(service).status(service.target);
    // Nothing of it runs any more (a group counts as stopped as soon as one of its containers is).
    if (status.state === 'stopped' && status.replicas.current === 0) {
      this.ready.delete(service.name);
      return false;
    }
    await this.stop(service);
    return true;
  }

  /** Shutdown: starts in progress stop waiting and hand their claim back, while the database is still open. */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.starting.values()]);
  }

  close(): void {
    this.agent.destroy();
    this.httpsAgent.destroy();
  }
}

class ShuttingDown extends Error {
  constructor() {
    super('the proxy is shutting down');
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
