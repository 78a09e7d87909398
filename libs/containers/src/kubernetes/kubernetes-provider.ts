import type * as KubernetesClient from '@kubernetes/client-node';
import type { AppsV1Api, CoreV1Api, VersionApi } from '@kubernetes/client-node';
import { Writable } from 'node:stream';
import {
  ContainersError,
  LineSplitter,
  logTail,
  splitLines,
  toLine,
  type ContainerProvider,
  type FollowLogsOptions,
  type InstanceLogs,
  type LogEntry,
  type LogFollower,
  type LogsOptions,
  type WorkloadHealth,
  type WorkloadStatus,
} from '../provider';
import { attemptsNote, isTransientFailure, retryPolicy, withRetries, type RetryOptions } from '../retry';
import { describeWorkload, parseKubernetesTarget, replicasToRestore, type KubernetesKind, type KubernetesTarget, type ScalableWorkload } from './kubernetes-state';

export interface KubernetesProviderOptions extends RetryOptions {
  /** How long one API call may take, in ms (each attempt). Default 30 000. */
  timeoutMs?: number;
  /** Path of a kubeconfig file (e.g. from KUBECONFIG). */
  kubeconfig?: string;
  /** Context of the kubeconfig to use; default its current context. */
  context?: string;
  /** Use the pod's service account (in-cluster config); used when no kubeconfig is given. */
  inCluster?: boolean;
  /** Replicas to scale up to when none was remembered; default 1. */
  defaultReplicas?: number;
  /** Annotation on the workload that remembers its replica count while scaled to zero. */
  replicasAnnotation?: string;
}

export const DEFAULT_REPLICAS_ANNOTATION = 'containers.platform/replicas';

/**
 * The official client, loaded when the first KubernetesProvider is created: it is an ES module of
 * about half a second's load time that apps using Docker alone never need.
 */
function kubernetesClient(): typeof KubernetesClient {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@kubernetes/client-node') as typeof KubernetesClient;
}

/**
 * Kubernetes through the official client: a target is `namespace/deployment`,
 * `namespace/deployment/name` or `namespace/statefulset/name`. start() scales it from 0 to the
 * replica count it had when stop() scaled it down (kept in an annotation; default 1), via the
 * `scale` subresource; readiness is `status.readyReplicas` against `spec.replicas`.
 *
 *   const k8s = new KubernetesProvider({ kubeconfig: env.KUBECONFIG });   // or { inCluster: true }
 *   await k8s.start('ml/whisper');
 *   (await k8s.status('ml/whisper')).state;    // 'starting' until every replica is ready
 *
 * RBAC: get and patch on the workloads (the annotation) and on their `scale` subresource, limited
 * by resourceNames; list pods and get pods/log for logs().
 */
/** A workload as discovery lists it. */
export interface ListedWorkload {
  kind: KubernetesKind;
  namespace: string;
  name: string;
  annotations: Record<string, string>;
  replicas: number;
}

export class KubernetesProvider implements ContainerProvider {
  readonly name = 'kubernetes' as const;
  private readonly apps: AppsV1Api;
  private readonly core: CoreV1Api;
  private readonly version: VersionApi;
  private readonly annotation: string;
  private readonly defaultReplicas: number;
  /** The API server in use. */
  readonly server: string;

  private readonly client: typeof KubernetesClient;
  private readonly kc: KubernetesClient.KubeConfig;
  private readonly mergePatch: KubernetesClient.ConfigurationOptions<KubernetesClient.ObservableMiddleware>;
  private readonly timeoutMs: number;
  private readonly retry: Required<RetryOptions>;

  constructor(opts: KubernetesProviderOptions = {}) {
    this.client = kubernetesClient();
    const { KubeConfig, AppsV1Api, CoreV1Api, VersionApi, setHeaderOptions, PatchStrategy } = this.client;
    this.mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const kc = new KubeConfig();
    try {
      if (opts.kubeconfig) kc.loadFromFile(opts.kubeconfig);
      else if (opts.inCluster) {
        kc.loadFromCluster();
        if (kc.getCurrentCluster()?.server.includes('undefined')) {
          throw new Error('KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (they are inside a pod)');
        }
      }
      else throw new Error('neither a kubeconfig path (KUBECONFIG) nor in-cluster configuration was given');
      if (opts.context) kc.setCurrentContext(opts.context);
    } catch (err) {
      const from = opts.kubeconfig ? `kubeconfig ${opts.kubeconfig}` : 'in-cluster configuration';
      throw new ContainersError('INVALID_CONFIG', `Kubernetes ${from} is not usable: ${(err as Error).message}`, { cause: err });
    }
    const cluster = kc.getCurrentCluster();
    if (!cluster) {
      throw new ContainersError('INVALID_CONFIG', `Kubernetes config has no cluster for context '${kc.getCurrentContext()}'`);
    }
    this.server = cluster.server;
    this.kc = kc;
    this.apps = kc.makeApiClient(AppsV1Api);
    this.core = kc.makeApiClient(CoreV1Api);
    this.version = kc.makeApiClient(VersionApi);
    this.annotation = opts.replicasAnnotation ?? DEFAULT_REPLICAS_ANNOTATION;
    const fallback = opts.defaultReplicas ?? 1;
    if (!Number.isInteger(fallback) || fallback < 1) {
      throw new ContainersError('INVALID_CONFIG', `Kubernetes defaultReplicas must be a positive integer (got ${fallback})`);
    }
    this.defaultReplicas = fallback;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    if (!Number.isInteger(this.timeoutMs) || this.timeoutMs < 1) {
      throw new ContainersError('INVALID_CONFIG', `Kubernetes timeoutMs must be a positive integer (got ${opts.timeoutMs})`);
    }
    this.retry = retryPolicy(opts);
  }

  /**
   * Every Deployment and StatefulSet (all namespaces) carrying the annotation `annotation` (any
   * value), with its annotations: discovery. Needs `list` on deployments and statefulsets.
   */
  async list(annotation: string): Promise<ListedWorkload[]> {
    try {
      const [deployments, statefulsets] = await Promise.all([
        this.call('', 'list deployments', (o) => this.apps.listDeploymentForAllNamespaces({}, o)),
        this.call('', 'list statefulsets', (o) => this.apps.listStatefulSetForAllNamespaces({}, o)),
      ]);
      const of = (kind: KubernetesKind, items: Array<{ metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> }; spec?: { replicas?: number } }>) =>
        items
          .filter((i) => i.metadata?.annotations?.[annotation] !== undefined)
          .map((i) => ({
            kind,
            namespace: i.metadata?.namespace ?? 'default',
            name: i.metadata?.name ?? '',
            annotations: { ...i.metadata?.annotations },
            replicas: i.spec?.replicas ?? 0,
          }));
      return [...of('deployment', deployments.items), ...of('statefulset', statefulsets.items)].sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
    } catch (err) {
      throw new ContainersError('PROVIDER_ERROR', `Kubernetes list of deployments and statefulsets failed at ${this.server}: ${(err as Error).message} (RBAC: list on deployments, statefulsets)`, { cause: err });
    }
  }

  async status(target: string): Promise<WorkloadStatus> {
    const t = parseKubernetesTarget(target);
    const { state, health, replicas, message } = describeWorkload(await this.read(target, t));
    return { provider: 'kubernetes', target, kind: t.kind, state, health, replicas, containers: [], ...(message ? { message } : {}) };
  }

  async health(target: string): Promise<WorkloadHealth> {
    return (await this.status(target)).health;
  }

  async start(target: string): Promise<void> {
    const t = parseKubernetesTarget(target);
    const w = await this.read(target, t);
    if ((w.spec?.replicas ?? 1) > 0) return;
    await this.scale(target, t, replicasToRestore(w.metadata?.annotations, this.annotation, this.defaultReplicas));
  }

  async stop(target: string): Promise<void> {
    const t = parseKubernetesTarget(target);
    const w = await this.read(target, t);
    const replicas = w.spec?.replicas ?? 1;
    if (replicas === 0) return;
    // Remember the count first: if the scale fails, the annotation does no harm.
    const body = { metadata: { annotations: { [this.annotation]: String(replicas) } } };
    await this.call(target, 'annotate', (o) =>
      t.kind === 'deployment'
        ? this.apps.patchNamespacedDeployment({ namespace: t.namespace, name: t.name, body }, this.patchOptions(o))
        : this.apps.patchNamespacedStatefulSet({ namespace: t.namespace, name: t.name, body }, this.patchOptions(o)),
    );
    await this.scale(target, t, 0);
  }

  async logs(target: string, opts?: LogsOptions): Promise<InstanceLogs[]> {
    const tailLines = logTail(opts);
    const timestamps = opts?.timestamps ?? false;
    const result: InstanceLogs[] = [];
    for (const { namespace, pod, container, instance } of await this.podContainers(target)) {
      const text = await this.call(target, 'read logs', (o) =>
        this.core.readNamespacedPodLog({ namespace, name: pod, container, tailLines, timestamps, ...sinceSecondsOf(opts?.since) }, o),
      );
      result.push({ instance, lines: splitLines(text, 'stdout', timestamps) });
    }
    return result;
  }

  /**
   * `GET …/pods/{pod}/log?follow=true` of every container of every pod the workload has now (the
   * API server ends the stream when the container stops); RBAC `get` on pods/log.
   */
  async followLogs(target: string, onEntry: (entry: LogEntry) => void, opts: FollowLogsOptions = {}): Promise<LogFollower> {
    if (opts.tail !== undefined) logTail({ tail: opts.tail });
    const timestamps = opts.timestamps ?? true;
    const log = new this.client.Log(this.kc);
    const controllers: AbortController[] = [];
    const ends: Array<Promise<void>> = [];
    const found = await this.podContainers(target);
    try {
      for (const { namespace, pod, container, instance } of found) {
        const splitter = new LineSplitter((text) => onEntry({ instance, line: toLine(text, 'stdout', timestamps) }));
        let finished!: () => void;
        ends.push(new Promise<void>((resolve) => (finished = resolve)));
        const sink = new Writable({
          write(chunk: Buffer, _enc, cb) {
            splitter.write(chunk);
            cb();
          },
          final(cb) {
            splitter.end();
            cb();
          },
        });
        sink.once('finish', () => finished());
        sink.once('close', () => finished());
        sink.once('error', () => finished());
        const controller = await this.call(
          target,
          'follow logs',
          () =>
            log.log(namespace, pod, container, sink, {
              follow: true,
              timestamps,
              ...(opts.tail !== undefined ? { tailLines: opts.tail } : {}),
              ...sinceTimeOf(opts.since),
            }),
          // A stream that opens after the call timed out is closed at once.
          (late) => late.abort(),
        );
        controller.signal.addEventListener('abort', () => sink.destroy());
        controllers.push(controller);
      }
    } catch (err) {
      for (const c of controllers) c.abort();
      throw err;
    }
    return {
      instances: found.map((f) => f.instance),
      ended: Promise.all(ends).then(() => undefined),
      close: () => {
        for (const c of controllers) c.abort();
      },
    };
  }

  /** The workload's pods (by its selector) and their containers, in name order. */
  private async podContainers(target: string): Promise<Array<{ namespace: string; pod: string; container: string; instance: string }>> {
    const t = parseKubernetesTarget(target);
    const w = await this.read(target, t);
    const labelSelector = Object.entries(w.spec?.selector?.matchLabels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const pods = await this.call(target, 'list pods', (o) => this.core.listNamespacedPod({ namespace: t.namespace, labelSelector }, o));
    const out: Array<{ namespace: string; pod: string; container: string; instance: string }> = [];
    for (const pod of [...pods.items].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))) {
      const name = pod.metadata?.name ?? '';
      const containers = pod.spec?.containers ?? [];
      for (const c of containers) out.push({ namespace: t.namespace, pod: name, container: c.name, instance: containers.length > 1 ? `${name}/${c.name}` : name });
    }
    return out;
  }

  async ping(): Promise<void> {
    await this.call('', 'version', (o) => this.version.getCode(o));
  }

  private read(target: string, t: KubernetesTarget): Promise<ScalableWorkload> {
    const params = { namespace: t.namespace, name: t.name };
    return this.call(target, 'read', (o) =>
      t.kind === 'deployment' ? this.apps.readNamespacedDeployment(params, o) : this.apps.readNamespacedStatefulSet(params, o),
    );
  }

  private async scale(target: string, t: KubernetesTarget, replicas: number): Promise<void> {
    const req = { namespace: t.namespace, name: t.name, body: { spec: { replicas } } };
    await this.call(target, 'scale', (o) =>
      t.kind === 'deployment'
        ? this.apps.patchNamespacedDeploymentScale(req, this.patchOptions(o))
        : this.apps.patchNamespacedStatefulSetScale(req, this.patchOptions(o)),
    );
  }

  /** The merge-patch content type and the call's own middleware (its deadline). */
  private patchOptions(o: CallOptions): CallOptions {
    return { ...this.mergePatch, middleware: [...(this.mergePatch.middleware ?? []), ...(o.middleware ?? [])], middlewareMergeStrategy: 'append' };
  }

  /**
   * Runs one API call with its own deadline per attempt (`timeoutMs`: the request is aborted through
   * the options `fn` passes on), retried with backoff on a 429/502/503/504 answer or a refused/reset connection
   * (`retries`, never after a timeout), mapping failures to ContainersError (404 → NOT_FOUND;
   * 401/403 hint at credentials and RBAC). `onLate` gets a result that arrives after the deadline.
   */
  private async call<T>(target: string, what: string, fn: (options: CallOptions) => Promise<T>, onLate?: (late: T) => void): Promise<T> {
    const statusOf = (err: unknown) => (err instanceof this.client.ApiException ? (err.code as number) : undefined);
    try {
      return await withRetries(this.retry, () => this.attempt(fn, onLate), (err) => isTransientFailure(err, statusOf(err)));
    } catch (err) {
      const status = statusOf(err);
      const reason = (err as Error)?.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : apiMessage(err, this.client);
      if (status === 404) {
        throw new ContainersError('NOT_FOUND', `No Kubernetes workload '${target}' (${reason})`, { cause: err, status });
      }
      const hint =
        status === 401 || status === 403
          ? ' (check the credentials, and that the RBAC Role allows get/patch on the workload and its scale subresource)'
          : status === undefined
            ? ` (is the API server at ${this.server} reachable?)`
            : '';
      throw new ContainersError('PROVIDER_ERROR', `Kubernetes ${what}${target ? ` of '${target}'` : ''} failed: ${reason}${attemptsNote(err)}${hint}`, {
        cause: err,
        status,
      });
    }
  }

  private attempt<T>(fn: (options: CallOptions) => Promise<T>, onLate?: (late: T) => void): Promise<T> {
    const controller = new AbortController();
    const { Observable } = this.client;
    const deadline: KubernetesClient.ObservableMiddleware = {
      pre: (context) => {
        context.setSignal(controller.signal);
        return new Observable(Promise.resolve(context));
      },
      post: (response) => new Observable(Promise.resolve(response)),
    };
    return new Promise<T>((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        const err = new Error(`no answer within ${this.timeoutMs} ms`);
        err.name = 'TimeoutError';
        controller.abort(err);
        reject(err);
      }, this.timeoutMs);
      fn({ middleware: [deadline], middlewareMergeStrategy: 'append' }).then(
        (value) => {
          clearTimeout(timer);
          if (timedOut) onLate?.(value);
          else resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          if (!timedOut) reject(err);
        },
      );
    });
  }
}

type CallOptions = KubernetesClient.ConfigurationOptions<KubernetesClient.ObservableMiddleware>;

/** `sinceTime` (RFC 3339; the API server keeps whole seconds) for a Date; nothing for undefined. */
function sinceTimeOf(since: Date | undefined): { sinceTime?: string } {
  if (since === undefined) return {};
  if (!Number.isFinite(since.getTime())) throw new RangeError('logs since must be a valid Date');
  return { sinceTime: since.toISOString().replace(/\.\d+Z$/, 'Z') };
}

/**
 * `sinceSeconds` for a Date (the generated read call has no `sinceTime`): whole seconds back from now,
 * rounded up, so it may include lines of a second earlier (filter by `timestamp`).
 */
function sinceSecondsOf(since: Date | undefined): { sinceSeconds?: number } {
  if (since === undefined) return {};
  if (!Number.isFinite(since.getTime())) throw new RangeError('logs since must be a valid Date');
  return { sinceSeconds: Math.max(1, Math.ceil((Date.now() - since.getTime()) / 1000)) };
}

function apiMessage(err: unknown, client: typeof KubernetesClient): string {
  if (err instanceof client.ApiException) {
    let body: unknown = err.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        return (body as string) || `HTTP ${err.code}`;
      }
    }
    const message = (body as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' ? message : `HTTP ${err.code}`;
  }
  return err instanceof Error ? err.message : String(err);
}
