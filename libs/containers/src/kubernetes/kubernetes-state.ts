import { ContainersError, type HealthStatus, type ReplicaCounts, type WorkloadHealth, type WorkloadState } from '../provider';

export type KubernetesKind = 'deployment' | 'statefulset';

export interface KubernetesTarget {
  namespace: string;
  kind: KubernetesKind;
  name: string;
}

/** DNS-1123 label (namespaces) and subdomain (workload names), as the API server validates them. */
const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KINDS: Record<string, KubernetesKind> = {
  deployment: 'deployment',
  deployments: 'deployment',
  deploy: 'deployment',
  statefulset: 'statefulset',
  statefulsets: 'statefulset',
  sts: 'statefulset',
};

/** `namespace/deployment`, `namespace/deployment/name` or `namespace/statefulset/name`. */
export function parseKubernetesTarget(target: string): KubernetesTarget {
  const parts = target.trim().split('/');
  const expected = 'expected namespace/deployment, namespace/deployment/name or namespace/statefulset/name';
  let namespace: string;
  let kind: KubernetesKind | undefined = 'deployment';
  let name: string;
  if (parts.length === 2) [namespace, name] = parts;
  else if (parts.length === 3) {
    [namespace, , name] = parts;
    kind = KINDS[parts[1].toLowerCase()];
  } else throw new ContainersError('INVALID_TARGET', `Kubernetes target '${target}': ${expected}`);
  if (!kind) throw new ContainersError('INVALID_TARGET', `Kubernetes target '${target}': kind '${parts[1]}' is not deployment or statefulset`);
  if (!LABEL.test(namespace)) throw new ContainersError('INVALID_TARGET', `Kubernetes target '${target}': '${namespace}' is not a valid namespace; ${expected}`);
  if (!SUBDOMAIN.test(name)) throw new ContainersError('INVALID_TARGET', `Kubernetes target '${target}': '${name}' is not a valid ${kind} name; ${expected}`);
  return { namespace, kind, name };
}

/** The parts of a Deployment or StatefulSet the provider reads. */
export interface ScalableWorkload {
  metadata?: { annotations?: Record<string, string> };
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> };
    template?: { spec?: { containers?: Array<{ name: string; readinessProbe?: unknown }> } };
  };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

/**
 * A workload's state from its own object (no pod listing needed), as sablier reads it:
 * `spec.replicas` 0 → stopped (stopping while pods remain); ready replicas ≥ desired → running;
 * a Deployment whose rollout exceeded its progress deadline → unhealthy; `ReplicaFailure` → failed;
 * otherwise starting. Without a readiness probe in the pod template, ready only means started:
 * health is then `none` and the caller probes the workload itself.
 */
export function describeWorkload(w: ScalableWorkload): { state: WorkloadState; health: WorkloadHealth; replicas: ReplicaCounts; message?: string } {
  const replicas: ReplicaCounts = {
    desired: w.spec?.replicas ?? 1,
    current: w.status?.replicas ?? 0,
    ready: w.status?.readyReplicas ?? 0,
  };
  const conditions = w.status?.conditions ?? [];
  const failure = conditions.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  const deadline = conditions.find((c) => c.type === 'Progressing' && c.status === 'False' && c.reason === 'ProgressDeadlineExceeded');
  const probed = (w.spec?.template?.spec?.containers ?? []).some((c) => c.readinessProbe);
  let state: WorkloadState;
  let status: HealthStatus;
  let message: string | undefined;
  if (replicas.desired === 0) {
    state = replicas.current > 0 ? 'stopping' : 'stopped';
    status = 'stopped';
  } else if (replicas.ready >= replicas.desired) {
    state = 'running';
    status = probed ? 'healthy' : 'none';
  } else if (failure) {
    [state, status, message] = ['failed', 'unhealthy', failure.message ?? failure.reason];
  } else if (deadline) {
    [state, status, message] = ['unhealthy', 'unhealthy', deadline.message ?? deadline.reason];
  } else {
    [state, status] = ['starting', 'starting'];
  }
  const health: WorkloadHealth = { status, ready: replicas.ready, desired: replicas.desired, ...(message ? { message } : {}) };
  return { state, health, replicas, ...(message ? { message } : {}) };
}

/** The replica count to scale up to: the remembered one when it is a positive integer, else `fallback`. */
export function replicasToRestore(annotations: Record<string, string> | undefined, annotation: string, fallback: number): number {
  const raw = annotations?.[annotation];
  const n = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}
