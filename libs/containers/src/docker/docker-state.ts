import { ContainersError, type ContainerDetails, type HealthStatus, type ReplicaCounts, type WorkloadHealth, type WorkloadState } from '../provider';

/** A Docker target: a container name (or id), or every container carrying a label. */
export type DockerTarget = { kind: 'name'; name: string } | { kind: 'label'; label: string };

const NAME = /^\/?[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
const LABEL_KEY = /^[a-zA-Z0-9][a-zA-Z0-9_.\-/]*$/;

/**
 * `whisper` (a container name or id) or `label=key=value` / `label=key` (every container with that
 * label, e.g. `label=com.docker.compose.project=whisper` for a whole compose project).
 */
export function parseDockerTarget(target: string): DockerTarget {
  const t = target.trim();
  if (t.startsWith('label=')) {
    const label = t.slice('label='.length);
    const key = label.split('=')[0];
    if (!LABEL_KEY.test(key)) {
      throw new ContainersError('INVALID_TARGET', `Docker target '${target}': expected label=key=value with a label key like com.example.service`);
    }
    return { kind: 'label', label };
  }
  if (!NAME.test(t)) {
    throw new ContainersError(
      'INVALID_TARGET',
      `Docker target '${target}': expected a container name ([a-zA-Z0-9][a-zA-Z0-9_.-]*) or label=key=value`,
    );
  }
  return { kind: 'name', name: t.replace(/^\//, '') };
}

/** The parts of `GET /containers/{id}/json` the provider reads. */
export interface InspectedContainer {
  Id: string;
  Name: string;
  Config?: { Image?: string; Tty?: boolean; StopTimeout?: number };
  State: {
    Status: string;
    ExitCode?: number;
    StartedAt?: string;
    FinishedAt?: string;
    Health?: { Status: string; Log?: Array<{ ExitCode?: number; Output?: string }> };
  };
}

const NEVER = '0001-01-01T00:00:00Z';

/**
 * One container's state, as sablier reads it: running and healthy (or without a HEALTHCHECK) →
 * running; health `starting` → starting; `unhealthy` → unhealthy; created or restarting → starting;
 * paused or exited → stopped (start() resumes it); dead or being removed → failed.
 */
export function describeContainer(c: InspectedContainer): ContainerDetails {
  const engineState = c.State.Status;
  let state: WorkloadState;
  let health: HealthStatus;
  if (engineState === 'running') {
    health = healthOf(c.State.Health?.Status);
    state = health === 'healthy' || health === 'none' ? 'running' : health === 'unhealthy' ? 'unhealthy' : 'starting';
  } else if (engineState === 'created' || engineState === 'restarting') {
    [state, health] = ['starting', 'starting'];
  } else if (engineState === 'paused' || engineState === 'exited') {
    [state, health] = ['stopped', 'stopped'];
  } else {
    [state, health] = ['failed', 'stopped'];
  }
  return {
    id: c.Id,
    name: c.Name.replace(/^\//, ''),
    image: c.Config?.Image ?? '',
    engineState,
    state,
    health,
    exitCode: engineState === 'running' ? undefined : c.State.ExitCode,
    startedAt: time(c.State.StartedAt),
    finishedAt: engineState === 'running' ? undefined : time(c.State.FinishedAt),
  };
}

function healthOf(status: string | undefined): HealthStatus {
  if (status === undefined || status === 'none' || status === '') return 'none';
  if (status === 'healthy') return 'healthy';
  if (status === 'unhealthy') return 'unhealthy';
  return 'starting';
}

function time(value: string | undefined): string | undefined {
  return value && value !== NEVER ? value : undefined;
}

/** The last failing health-check output of a container, trimmed (what the caller shows as the reason). */
export function lastHealthOutput(c: InspectedContainer): string | undefined {
  const log = c.State.Health?.Log ?? [];
  const last = [...log].reverse().find((entry) => entry.ExitCode !== 0);
  return last?.Output?.trim() || undefined;
}

/**
 * A group of containers as one workload: any failed → failed; any unhealthy → unhealthy; any
 * stopped → stopped (start() starts the rest); any starting → starting; else running.
 * Health: unhealthy, stopped, starting in that order; all healthy → healthy; otherwise (some have
 * no check) none, so the caller probes the workload itself.
 */
export function summarizeContainers(containers: ContainerDetails[]): { state: WorkloadState; health: WorkloadHealth; replicas: ReplicaCounts } {
  const states = new Set(containers.map((c) => c.state));
  const healths = new Set(containers.map((c) => c.health));
  const order: WorkloadState[] = ['failed', 'unhealthy', 'stopped', 'starting'];
  const state = order.find((s) => states.has(s)) ?? 'running';
  const healthOrder: HealthStatus[] = ['unhealthy', 'stopped', 'starting'];
  const status = healthOrder.find((h) => healths.has(h)) ?? (healths.has('none') ? 'none' : 'healthy');
  const replicas: ReplicaCounts = {
    desired: containers.length,
    current: containers.filter((c) => c.engineState === 'running').length,
    ready: containers.filter((c) => c.state === 'running').length,
  };
  return { state, health: { status, ready: replicas.ready, desired: replicas.desired }, replicas };
}
