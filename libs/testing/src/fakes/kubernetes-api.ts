import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logClockNs, rfc3339Nano } from './log-clock';

/**
 * A fake Kubernetes API server (HTTP on 127.0.0.1, port 0) for apps/v1 Deployments and
 * StatefulSets, enough for `@kubernetes/client-node`: their lists (all namespaces or one, with their
 * annotations), `GET`/`PATCH` of the workload, its `scale`
 * subresource (`GET`, `PUT` with resourceVersion conflicts, `PATCH` as JSON patch, merge patch or
 * strategic merge patch: the content types the official client sends), the pods the workload owns
 * and their logs (`tailLines`, `timestamps`, `sinceTime`, `sinceSeconds`, and `follow`: lines written
 * later with `appendLog` are streamed until the pod goes away), and `GET /version`. A bearer token is required (401 otherwise). Errors are
 * `Status` objects as the real server sends them (404 NotFound, 409 Conflict, 415, 422 Invalid).
 *
 * Scaling behaves like the controllers: `status.replicas` follows at once, `readyReplicas` catches
 * up after `readyAfterMs` (never with `neverReady`, and a Deployment then reports
 * `ProgressDeadlineExceeded` after `progressDeadlineMs`); scaled down, pods go after `terminateAfterMs`.
 * Zero counts are omitted from `status`, as the server omits them.
 *
 *   const k8s = await startFakeKubernetesApi({ workloads: [
 *     { namespace: 'ml', name: 'whisper', replicas: 0, readyAfterMs: 1500 },
 *     { namespace: 'ml', name: 'db', kind: 'statefulset', replicas: 1 },
 *   ] });
 *   // kubeconfig file: k8s.kubeconfigPath (current context points here)
 *   k8s.workload('ml', 'whisper').spec.replicas;
 *   await k8s.close();
 */

export type FakeWorkloadKind = 'deployment' | 'statefulset';

export interface FakeWorkloadSpec {
  name: string;
  /** Default `default`. */
  namespace?: string;
  /** Default `deployment`. */
  kind?: FakeWorkloadKind;
  /** `spec.replicas`; default 1. Pods start ready. */
  replicas?: number;
  annotations?: Record<string, string>;
  /** Delay before scaled-up pods are ready; default 0. */
  readyAfterMs?: number;
  /** Pods never become ready. */
  neverReady?: boolean;
  /** With `neverReady`, a Deployment reports ProgressDeadlineExceeded this long after scaling up. */
  progressDeadlineMs?: number;
  /** Delay before scaled-down pods are gone (`status.replicas` drops); default 0. */
  terminateAfterMs?: number;
  /** The pod template has a readiness probe; default true. */
  readinessProbe?: boolean;
  /** Log lines of each pod. */
  logs?: string[];
}

export interface RecordedKubernetesRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType?: string;
  body?: unknown;
  status?: number;
}

export interface FakeKubernetesApi {
  url: string;
  token: string;
  /** A kubeconfig file whose current context points at this server (with `token`). */
  kubeconfigPath: string;
  /** The kubeconfig's text. */
  kubeconfig: string;
  requests: RecordedKubernetesRequest[];
  /** The workload as `GET` answers it (a copy). */
  workload(namespace: string, name: string, kind?: FakeWorkloadKind): any;
  /** Requests that changed the replica count (scale PATCH/PUT, or a PATCH of spec.replicas). */
  scaleCalls(namespace: string, name: string, kind?: FakeWorkloadKind): Array<{ method: string; replicas: number }>;
  addWorkload(spec: FakeWorkloadSpec): void;
  /** The workload is deleted (`kubectl delete deployment`). */
  removeWorkload(namespace: string, name: string, kind?: FakeWorkloadKind): void;
  /** Every pod of the workload writes a log line now (streamed to `follow` readers); its timestamp is returned. */
  appendLog(namespace: string, name: string, text: string, kind?: FakeWorkloadKind): string;
  /** Clients following logs of the workload's pods now. */
  logFollowers(namespace: string, name: string, kind?: FakeWorkloadKind): number;
  close(): Promise<void>;
}

interface StoredLine {
  text: string;
  /** RFC 3339 with nanoseconds, as the kubelet writes it */
  timestamp: string;
  ms: number;
}

interface Workload {
  spec: FakeWorkloadSpec;
  kind: FakeWorkloadKind;
  doc: any;
  logLines: StoredLine[];
  followers: Set<{ pod: string; res: ServerResponse; timestamps: boolean }>;
  scales: Array<{ method: string; replicas: number }>;
  timers: NodeJS.Timeout[];
}

const RESOURCES: Record<string, FakeWorkloadKind> = { deployments: 'deployment', statefulsets: 'statefulset' };
const KINDS: Record<FakeWorkloadKind, { kind: string; resource: string }> = {
  deployment: { kind: 'Deployment', resource: 'deployments' },
  statefulset: { kind: 'StatefulSet', resource: 'statefulsets' },
};

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export async function startFakeKubernetesApi(opts: { workloads?: FakeWorkloadSpec[]; token?: string } = {}): Promise<FakeKubernetesApi> {
  const token = opts.token ?? randomBytes(16).toString('hex');
  const workloads = new Map<string, Workload>();
  const requests: RecordedKubernetesRequest[] = [];
  let resourceVersion = 1000;
  const key = (kind: FakeWorkloadKind, ns: string, name: string) => `${kind}/${ns}/${name}`;

  const touch = (w: Workload): void => {
    w.doc.metadata.resourceVersion = String(++resourceVersion);
  };

  /** Writes the counts into `status`, omitting zeros as the API server does. */
  const setStatus = (w: Workload, counts: { replicas?: number; ready?: number; updated?: number }): void => {
    const s = w.doc.status;
    const put = (field: string, value: number | undefined) => {
      if (value === undefined) return;
      if (value > 0) s[field] = value;
      else delete s[field];
    };
    put('replicas', counts.replicas);
    put('updatedReplicas', counts.updated);
    put('readyReplicas', counts.ready);
    put('availableReplicas', counts.ready);
    if (w.kind === 'statefulset') put('currentReplicas', counts.replicas);
    s.observedGeneration = w.doc.metadata.generation;
    if (w.kind === 'deployment') {
      const desired = w.doc.spec.replicas;
      const available = s.availableReplicas ?? 0;
      const now = new Date().toISOString();
      const progressing = s.conditions?.find((c: any) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded');
      s.conditions = [
        { type: 'Available', status: available >= desired ? 'True' : 'False', reason: available >= desired ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable', lastUpdateTime: now, lastTransitionTime: now },
        progressing ?? { type: 'Progressing', status: 'True', reason: available >= desired ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated', lastUpdateTime: now, lastTransitionTime: now },
      ];
    }
    touch(w);
    // The API server ends a follow stream when its pod is gone.
    if (w.followers.size === 0) return;
    const pods = new Set(podsOf(w).map((p) => p.metadata.name));
    for (const f of w.followers) {
      if (pods.has(f.pod)) continue;
      f.res.end();
      w.followers.delete(f);
    }
  };

  const later = (w: Workload, ms: number, fn: () => void): void => {
    if (ms <= 0) {
      fn();
      return;
    }
    const t = setTimeout(fn, ms);
    t.unref();
    w.timers.push(t);
  };

  /** The controllers' answer to a new `spec.replicas`. */
  const reconcile = (w: Workload): void => {
    for (const t of w.timers) clearTimeout(t);
    w.timers = [];
    const desired: number = w.doc.spec.replicas;
    const ready: number = w.doc.status.readyReplicas ?? 0;
    const current: number = w.doc.status.replicas ?? 0;
    if (w.kind === 'deployment') w.doc.status.conditions = [];
    if (desired > ready) {
      setStatus(w, { replicas: Math.max(desired, current), updated: desired });
      if (w.spec.neverReady) {
        if (w.kind === 'deployment' && w.spec.progressDeadlineMs !== undefined) {
          later(w, w.spec.progressDeadlineMs, () => {
            const now = new Date().toISOString();
            const rs = `${w.doc.metadata.name}-5d8c7b9f6`;
            w.doc.status.conditions = [
              ...w.doc.status.conditions.filter((c: any) => c.type !== 'Progressing'),
              { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rs}" has timed out progressing.`, lastUpdateTime: now, lastTransitionTime: now },
            ];
            touch(w);
          });
        }
        return;
      }
      later(w, w.spec.readyAfterMs ?? 0, () => setStatus(w, { replicas: desired, ready: desired, updated: desired }));
    } else {
      setStatus(w, { ready: desired, updated: desired });
      later(w, w.spec.terminateAfterMs ?? 0, () => setStatus(w, { replicas: desired }));
    }
  };

  const addWorkload = (spec: FakeWorkloadSpec): void => {
    const kind = spec.kind ?? 'deployment';
    const namespace = spec.namespace ?? 'default';
    const replicas = spec.replicas ?? 1;
    const labels = { app: spec.name };
    const container = {
      name: spec.name,
      image: `${spec.name}:latest`,
      ...(spec.readinessProbe === false ? {} : { readinessProbe: { httpGet: { path: '/health', port: 8000 }, periodSeconds: 5 } }),
    };
    const w: Workload = {
      spec,
      kind,
      scales: [],
      timers: [],
      logLines: (spec.logs ?? []).map((text) => ({ text, ...lineTime() })),
      followers: new Set(),
      doc: {
        apiVersion: 'apps/v1',
        kind: KINDS[kind].kind,
        metadata: {
          name: spec.name,
          namespace,
          uid: randomUUID(),
          resourceVersion: String(++resourceVersion),
          generation: 1,
          creationTimestamp: new Date().toISOString(),
          labels,
          annotations: { ...spec.annotations },
        },
        spec: {
          replicas,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [container] } },
          ...(kind === 'statefulset' ? { serviceName: spec.name } : { strategy: { type: 'RollingUpdate' } }),
        },
        status: {},
      },
    };
    workloads.set(key(kind, namespace, spec.name), w);
    setStatus(w, { replicas, ready: spec.neverReady ? 0 : replicas, updated: replicas });
  };
  for (const spec of opts.workloads ?? []) addWorkload(spec);

  const get = (kind: FakeWorkloadKind, ns: string, name: string): Workload => {
    const w = workloads.get(key(kind, ns, name));
    if (!w) throw new ApiError(404, 'NotFound', `${KINDS[kind].resource}.apps "${name}" not found`, { name, group: 'apps', kind: KINDS[kind].resource });
    return w;
  };

  const scaleOf = (w: Workload) => ({
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: w.doc.metadata.name,
      namespace: w.doc.metadata.namespace,
      uid: w.doc.metadata.uid,
      resourceVersion: w.doc.metadata.resourceVersion,
      creationTimestamp: w.doc.metadata.creationTimestamp,
    },
    spec: { replicas: w.doc.spec.replicas },
    status: { replicas: w.doc.status.replicas ?? 0, selector: `app=${w.doc.metadata.name}` },
  });

  const setReplicas = (w: Workload, replicas: unknown, method: string): void => {
    if (!Number.isInteger(replicas) || (replicas as number) < 0) {
      throw new ApiError(422, 'Invalid', `${KINDS[w.kind].kind}.apps "${w.doc.metadata.name}" is invalid: spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`);
    }
    w.scales.push({ method, replicas: replicas as number });
    if (replicas === w.doc.spec.replicas) return;
    w.doc.spec.replicas = replicas;
    w.doc.metadata.generation += 1;
    reconcile(w);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://k8s');
    const method = req.method ?? 'GET';
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const contentType = req.headers['content-type']?.split(';')[0].trim();
    const recorded: RecordedKubernetesRequest = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), contentType };
    requests.push(recorded);
    res.on('finish', () => (recorded.status = res.statusCode));
    const json = (status: number, body: unknown) => {
      const out = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) }).end(out);
    };
    try {
      if (req.headers.authorization !== `Bearer ${token}`) throw new ApiError(401, 'Unauthorized', 'Unauthorized');
      let body: unknown;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          throw new ApiError(400, 'BadRequest', 'the body of the request was in an unknown format');
        }
        recorded.body = body;
      }
      if (method === 'GET' && url.pathname === '/version') {
        json(200, { major: '1', minor: '31', gitVersion: 'v1.31.0-fake', platform: 'linux/amd64' });
        return;
      }
      const pods = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+)\/log)?$/.exec(url.pathname);
      if (pods && method === 'GET') {
        servePods(pods[1], pods[2], url.searchParams, res, json);
        return;
      }
      const listing = /^\/apis\/apps\/v1\/(?:namespaces\/([^/]+)\/)?(deployments|statefulsets)$/.exec(url.pathname);
      if (listing && method === 'GET') {
        const kind = RESOURCES[listing[2]];
        const ns = listing[1] === undefined ? undefined : decodeURIComponent(listing[1]);
        const items = [...workloads.values()].filter((w) => w.kind === kind && (ns === undefined || w.doc.metadata.namespace === ns)).map((w) => w.doc);
        json(200, { kind: `${KINDS[kind].kind}List`, apiVersion: 'apps/v1', metadata: { resourceVersion: String(Date.now()) }, items });
        return;
      }
      const m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/(deployments|statefulsets)\/([^/]+)(\/scale)?$/.exec(url.pathname);
      if (!m) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      const w = get(RESOURCES[m[2]], decodeURIComponent(m[1]), decodeURIComponent(m[3]));
      const scale = Boolean(m[4]);
      if (method === 'GET') {
        json(200, scale ? scaleOf(w) : w.doc);
      } else if (method === 'PUT' && scale) {
        const b = body as any;
        if (b?.metadata?.resourceVersion && b.metadata.resourceVersion !== w.doc.metadata.resourceVersion) {
          throw new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${KINDS[w.kind].resource}.apps "${w.doc.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`);
        }
        setReplicas(w, b?.spec?.replicas, 'PUT');
        json(200, scaleOf(w));
      } else if (method === 'PATCH') {
        const patched = applyPatch(scale ? scaleOf(w) : structuredClone(w.doc), body, contentType);
        if (!scale) w.doc.metadata.annotations = patched.metadata?.annotations ?? {};
        if (patched.spec?.replicas !== w.doc.spec.replicas) setReplicas(w, patched.spec?.replicas, 'PATCH');
        touch(w);
        json(200, scale ? scaleOf(w) : w.doc);
      } else {
        throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      json(err.code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: err.message, reason: err.reason, ...(err.details ? { details: err.details } : {}), code: err.code });
    }
  };

  const podsOf = (w: Workload) => {
    const count: number = w.doc.status.replicas ?? 0;
    const ready: number = w.doc.status.readyReplicas ?? 0;
    return Array.from({ length: count }, (_, i) => ({
      metadata: { name: w.kind === 'statefulset' ? `${w.doc.metadata.name}-${i}` : `${w.doc.metadata.name}-5d8c7b9f6-${'abcdefghij'[i % 10]}${i}`, namespace: w.doc.metadata.namespace, labels: { ...w.doc.spec.selector.matchLabels } },
      spec: { containers: w.doc.spec.template.spec.containers.map((c: any) => ({ name: c.name, image: c.image })) },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: i < ready ? 'True' : 'False' }] },
      workload: w,
    }));
  };

  const servePods = (ns: string, podName: string | undefined, q: URLSearchParams, res: ServerResponse, json: (s: number, b: unknown) => void): void => {
    const all = [...workloads.values()].filter((w) => w.doc.metadata.namespace === ns).flatMap(podsOf);
    if (podName === undefined) {
      const selector = (q.get('labelSelector') ?? '').split(',').filter(Boolean).map((s) => s.split('='));
      const items = all.filter((p) => selector.every(([k, v]) => (p.metadata.labels as Record<string, string>)[k] === v)).map(({ workload: _w, ...p }) => p);
      json(200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(resourceVersion) }, items });
      return;
    }
    const pod = all.find((p) => p.metadata.name === podName);
    if (!pod) throw new ApiError(404, 'NotFound', `pods "${podName}" not found`, { name: podName, kind: 'pods' });
    const container = q.get('container');
    if (pod.spec.containers.length > 1 && !container) {
      throw new ApiError(400, 'BadRequest', `a container name must be specified for pod ${podName}`);
    }
    const w = pod.workload;
    let lines = w.logLines;
    const sinceTime = q.get('sinceTime');
    const sinceSeconds = q.get('sinceSeconds');
    if (sinceTime && sinceSeconds) throw new ApiError(422, 'Invalid', 'at most one of sinceTime or sinceSeconds may be specified');
    const since = sinceTime ? Date.parse(sinceTime) : sinceSeconds ? Date.now() - Number(sinceSeconds) * 1000 : undefined;
    if (since !== undefined) lines = lines.filter((l) => l.ms >= since);
    const tail = q.get('tailLines');
    if (tail !== null) lines = Number(tail) > 0 ? lines.slice(-Number(tail)) : [];
    const timestamps = q.get('timestamps') === 'true';
    const text = lines.map((l) => `${timestamps ? `${l.timestamp} ` : ''}${l.text}\n`).join('');
    if (q.get('follow') !== 'true') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end(text);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    if (text) res.write(text);
    const follower = { pod: pod.metadata.name, res, timestamps };
    w.followers.add(follower);
    res.on('close', () => w.followers.delete(follower));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const kubeconfig = JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      // The client refuses plain http unless TLS verification is explicitly off (as for `kubectl proxy`).
      clusters: [{ name: 'fake', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'fake', user: { token } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace: 'default' } }],
      'current-context': 'fake',
    },
    null,
    2,
  );
  const dir = mkdtempSync(join(tmpdir(), 'fake-k8s-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfig);

  const must = (ns: string, name: string, kind: FakeWorkloadKind = 'deployment') => {
    const w = workloads.get(key(kind, ns, name));
    if (!w) throw new Error(`fake kubernetes api: no ${kind} ${ns}/${name}`);
    return w;
  };

  return {
    url,
    token,
    kubeconfigPath,
    kubeconfig,
    requests,
    workload: (ns, name, kind) => structuredClone(must(ns, name, kind).doc),
    scaleCalls: (ns, name, kind) => [...must(ns, name, kind).scales],
    addWorkload,
    removeWorkload: (ns, name, kind) => {
      const w = must(ns, name, kind);
      for (const t of w.timers) clearTimeout(t);
      workloads.delete(key(w.kind, ns, name));
    },
    appendLog: (ns, name, text, kind) => {
      const w = must(ns, name, kind);
      const line: StoredLine = { text, ...lineTime() };
      w.logLines.push(line);
      for (const f of w.followers) f.res.write(`${f.timestamps ? `${line.timestamp} ` : ''}${text}\n`);
      return line.timestamp;
    },
    logFollowers: (ns, name, kind) => must(ns, name, kind).followers.size,
    close: async () => {
      for (const w of workloads.values()) {
        for (const t of w.timers) clearTimeout(t);
        for (const f of w.followers) f.res.end();
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A log line's time: now to the nanosecond (./log-clock). */
function lineTime(): { timestamp: string; ms: number } {
  const ns = logClockNs();
  return { timestamp: rfc3339Nano(ns), ms: Number(ns / 1_000_000n) };
}

/** Applies a PATCH body by its content type, as the API server does for these simple objects. */
function applyPatch(doc: any, patch: unknown, contentType: string | undefined): any {
  switch (contentType) {
    case 'application/merge-patch+json':
    case 'application/strategic-merge-patch+json':
      return mergePatch(doc, patch);
    case 'application/json-patch+json':
      return jsonPatch(doc, patch);
    default:
      throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`);
  }
}

/** RFC 7386. */
function mergePatch(target: any, patch: any): any {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** RFC 6902 (add, replace, remove, test) on object paths. */
function jsonPatch(doc: any, ops: unknown): any {
  if (!Array.isArray(ops)) throw new ApiError(400, 'BadRequest', 'json patch must be an array of operations');
  for (const op of ops as Array<{ op: string; path: string; value?: unknown }>) {
    const parts = String(op.path).split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop();
    let parent = doc;
    for (const p of parts) {
      if (parent[p] === undefined && op.op === 'add') parent[p] = {};
      parent = parent[p];
      if (parent === undefined || parent === null) throw new ApiError(422, 'Invalid', `jsonpatch ${op.op} operation does not apply: doc is missing path: ${op.path}`);
    }
    if (last === undefined) throw new ApiError(422, 'Invalid', `jsonpatch path ${op.path} is invalid`);
    if (op.op === 'add' || op.op === 'replace') {
      if (op.op === 'replace' && !(last in parent)) throw new ApiError(422, 'Invalid', `jsonpatch replace operation does not apply: doc is missing key: ${op.path}`);
      parent[last] = op.value;
    } else if (op.op === 'remove') {
      if (!(last in parent)) throw new ApiError(422, 'Invalid', `jsonpatch remove operation does not apply: doc is missing key: ${op.path}`);
      delete parent[last];
    } else if (op.op === 'test') {
      if (JSON.stringify(parent[last]) !== JSON.stringify(op.value)) throw new ApiError(422, 'Invalid', `testing value ${op.path} failed`);
    } else {
      throw new ApiError(422, 'Invalid', `unsupported json patch operation ${op.op}`);
    }
  }
  return doc;
}
