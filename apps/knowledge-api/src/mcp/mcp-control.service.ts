import { Injectable, Logger } from '@nestjs/common';
import { createContainerProvider, isContainersError, type ContainerProvider, type WorkloadStatus } from '@platform/containers';
import { request } from 'undici';
import { KnowledgeApiConfig } from '../config';
import { McpConfigService } from './mcp-config.service';
import { stateOf, uptimeSeconds, type McpState } from './mcp-state';

/** The spec's MCP status. */
export interface McpStatus {
  status: McpState;
  container_id: string | null;
  container_name: string;
  /** seconds since start_time; null unless running */
  uptime: number | null;
  start_time: string | null;
  health: { status: string; port: number; transport: string };
  /** why, for not_found and docker_unavailable */
  message?: string;
}

export interface McpStartStop {
  success: boolean;
  message: string;
  status: McpState;
  container_id?: string | null;
}

type Observed = { ok: true; status: WorkloadStatus } | { ok: false; state: 'not_found' | 'docker_unavailable'; message: string };

/**
 * The MCP server's workload through the containers lib: Docker (a container) or Kubernetes (a
 * Deployment scaled 0 ↔ 1), MCP_CONTAINER_PROVIDER and MCP_CONTAINER. An engine that is not
 * configured, not reachable or refusing makes the status `docker_unavailable`; never an exception.
 */
@Injectable()
export class McpControlService {
  private readonly logger = new Logger('McpControl');
  private provider?: ContainerProvider;
  private providerError?: string;

  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly mcpConfig: McpConfigService,
  ) {}

  get target(): string {
    return this.config.MCP_CONTAINER;
  }

  /** The provider, created on first use; undefined (and why) when its configuration is unusable. */
  engine(): ContainerProvider | undefined {
    if (this.provider || this.providerError) return this.provider;
    const c = this.config;
    try {
      this.provider =
        c.MCP_CONTAINER_PROVIDER === 'kubernetes'
          ? createContainerProvider({ provider: 'kubernetes' }, { KUBECONFIG: c.KUBECONFIG, KUBERNETES_SERVICE_HOST: c.KUBERNETES_SERVICE_HOST })
          : createContainerProvider(
              { provider: 'docker', dockerHost: c.DOCKER_HOST, timeoutMs: c.MCP_ENGINE_TIMEOUT_MS },
              { DOCKER_HOST: c.DOCKER_HOST, DOCKER_TLS_VERIFY: c.DOCKER_TLS_VERIFY, DOCKER_CERT_PATH: c.DOCKER_CERT_PATH },
            );
    } catch (err) {
      this.providerError = (err as Error).message;
      this.logger.warn(`MCP container control unavailable: ${this.providerError}`);
    }
    return this.provider;
  }

  /** The workload's status, or why there is none. */
  async observe(): Promise<Observed> {
    const engine = this.engine();
    if (!engine) return { ok: false, state: 'docker_unavailable', message: this.unavailable(this.providerError ?? 'not configured') };
    try {
      return { ok: true, status: await this.deadline(engine.status(this.target)) };
    } catch (err) {
      if (isContainersError(err, 'NOT_FOUND')) {
        return { ok: false, state: 'not_found', message: `The MCP server's ${engine.name === 'docker' ? 'container' : 'workload'} '${this.target}' does not exist (MCP_CONTAINER): create it first (docker compose create knowledge-mcp, or the knowledge-mcp Deployment)` };
      }
      return { ok: false, state: 'docker_unavailable', message: this.unavailable((err as Error).message) };
    }
  }

  async status(): Promise<McpStatus> {
    const active = await this.mcpConfig.active();
    const seen = await this.observe();
    const base = { container_name: this.containerName(), health: { status: 'unknown', port: active.port, transport: active.transport } };
    if (!seen.ok) {
      return { status: seen.state, container_id: null, uptime: null, start_time: null, ...base, health: { ...base.health, status: seen.state }, message: seen.message };
    }
    const s = seen.status;
    const state = stateOf(s);
    const container = s.containers[0];
    // Docker gives the container's start; Kubernetes none: the time knowledge-api started it.
    const start = state === 'running' || state === 'starting' ? (container?.startedAt ?? active.started_at ?? null) : null;
    let health = s.health.status as string;
    if (state === 'running' && health === 'none') health = (await this.probe(active.host, active.port)) ? 'healthy' : 'unhealthy';
    return {
      status: state,
      container_id: container?.id ?? null,
      uptime: state === 'running' ? uptimeSeconds(start) : null,
      start_time: start,
      ...base,
      health: { ...base.health, status: health },
    };
  }

  async start(): Promise<McpStartStop> {
    const seen = await this.observe();
    if (!seen.ok) return { success: false, message: seen.message, status: seen.state, container_id: null };
    const before = stateOf(seen.status);
    if (before === 'running' || before === 'starting') {
      return { success: true, message: `The MCP server is already ${before}`, status: before, container_id: seen.status.containers[0]?.id ?? null };
    }
    const engine = this.engine()!;
    const startedAt = new Date();
    await this.mcpConfig.activate(startedAt);
    try {
      await this.deadline(engine.start(this.target));
    } catch (err) {
      return { success: false, message: `The MCP server did not start: ${(err as Error).message}`, status: before, container_id: seen.status.containers[0]?.id ?? null };
    }
    const after = await this.observe();
    const state = after.ok ? stateOf(after.status) : after.state;
    const id = after.ok ? (after.status.containers[0]?.id ?? null) : null;
    this.logger.log(`MCP server started (${state})`);
    return { success: true, message: state === 'running' ? 'MCP server started' : `MCP server starting (${state})`, status: state, container_id: id };
  }

  async stop(): Promise<McpStartStop> {
    const seen = await this.observe();
    if (!seen.ok) return { success: false, message: seen.message, status: seen.state };
    const before = stateOf(seen.status);
    if (before === 'stopped') return { success: true, message: 'The MCP server is already stopped', status: 'stopped' };
    try {
      await this.engine()!.stop(this.target);
    } catch (err) {
      return { success: false, message: `The MCP server did not stop: ${(err as Error).message}`, status: before };
    }
    const after = await this.observe();
    const state = after.ok ? stateOf(after.status) : after.state;
    this.logger.log(`MCP server stopped (${state})`);
    return { success: true, message: state === 'stopped' ? 'MCP server stopped' : `MCP server stopping (${state})`, status: state };
  }

  private containerName(): string {
    return this.target.includes('/') ? this.target.slice(this.target.lastIndexOf('/') + 1) : this.target;
  }

  private unavailable(reason: string): string {
    const which = this.config.MCP_CONTAINER_PROVIDER === 'kubernetes' ? 'The Kubernetes API server' : 'Docker';
    return `${which} is not available to control the MCP server: ${reason}`;
  }

  /** Engine calls bounded by MCP_ENGINE_TIMEOUT_MS (Kubernetes calls have no deadline of their own). */
  private deadline<T>(p: Promise<T>): Promise<T> {
    const ms = this.config.MCP_ENGINE_TIMEOUT_MS;
    let timer: NodeJS.Timeout;
    return Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
        timer.unref();
      }),
    ]).finally(() => clearTimeout(timer));
  }

  /** The MCP server's own liveness (`/healthz`), for a workload without a health check of its own. */
  async probe(host: string, port: number): Promise<boolean> {
    try {
      const res = await request(`http://${host}:${port}/healthz`, { headersTimeout: 2_000, bodyTimeout: 2_000 });
      await res.body.dump();
      return res.statusCode === 200;
    } catch {
      return false;
    }
  }
}
