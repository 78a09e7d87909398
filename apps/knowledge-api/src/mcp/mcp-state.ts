import type { WorkloadStatus } from '@platform/containers';

/** The MCP server's states as the spec's `GET /api/mcp/status` reports them (Archon's state map). */
export type McpState = 'running' | 'stopped' | 'starting' | 'stopping' | 'not_found' | 'docker_unavailable';

/**
 * A workload status of the containers lib → the spec's state. Docker's engine states map as Archon
 * maps them (running → running; exited, dead, created → stopped; removing → stopping), and the
 * lib's own `starting` (started, its health check not yet passed) stays `starting`. A running server
 * failing its health check is `running` (its `health.status` says `unhealthy`).
 */
export function stateOf(status: WorkloadStatus): McpState {
  const engine = status.containers[0]?.engineState;
  switch (status.state) {
    case 'running':
    case 'unhealthy':
      return 'running';
    case 'starting':
      return 'starting';
    case 'stopping':
      return 'stopping';
    case 'failed':
      return engine === 'removing' ? 'stopping' : 'stopped';
    default:
      return 'stopped';
  }
}

/** Seconds between `start` (ISO) and `now`; null without a start. */
export function uptimeSeconds(start: string | null | undefined, now = Date.now()): number | null {
  if (!start) return null;
  const t = Date.parse(start);
  if (!Number.isFinite(t) || t <= 0) return null;
  return Math.max(0, Math.floor((now - t) / 1000));
}
