import { startFakeKubernetesApi, type FakeKubernetesApi } from '@platform/testing';
import { writeFileSync } from 'node:fs';
import { createContainerProvider } from '../create-provider';
import { isContainersError } from '../provider';
import { rejection, until } from '../test/helpers';
import { DEFAULT_REPLICAS_ANNOTATION, KubernetesProvider } from './kubernetes-provider';

describe('KubernetesProvider against a fake Kubernetes API server', () => {
  let api: FakeKubernetesApi;
  let k8s: KubernetesProvider;

  beforeEach(async () => {
    api = await startFakeKubernetesApi({
      workloads: [
        { namespace: 'ml', name: 'whisper', replicas: 0, readyAfterMs: 1500, logs: ['loading model', 'listening on :8000'] },
        { namespace: 'ml', name: 'ragflow', replicas: 3, readyAfterMs: 200 },
        { namespace: 'ml', name: 'broken', replicas: 0, neverReady: true, progressDeadlineMs: 300 },
        { namespace: 'ml', name: 'plain', replicas: 1, readinessProbe: false },
        { namespace: 'data', name: 'vectors', kind: 'statefulset', replicas: 0, readyAfterMs: 100, terminateAfterMs: 300 },
      ],
    });
    k8s = new KubernetesProvider({ kubeconfig: api.kubeconfigPath });
  });
  afterEach(() => api.close());

  it('lists the Deployments and StatefulSets of all namespaces carrying an annotation (discovery)', async () => {
    api.addWorkload({ namespace: 'web', name: 'blog', replicas: 0, annotations: { 'autostart.enable': 'true', 'autostart.port': '80' } });
    api.addWorkload({ namespace: 'db', name: 'pg', kind: 'statefulset', replicas: 1, annotations: { 'autostart.enable': 'false' } });
    const listed = await k8s.list('autostart.enable');
    expect(listed).toEqual([
      { kind: 'statefulset', namespace: 'db', name: 'pg', annotations: { 'autostart.enable': 'false' }, replicas: 1 },
      { kind: 'deployment', namespace: 'web', name: 'blog', annotations: { 'autostart.enable': 'true', 'autostart.port': '80' }, replicas: 0 },
    ]);
    expect(api.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/apis/apps/v1/deployments', '/apis/apps/v1/statefulsets']));
  });

  it('answers ping through /version', async () => {
    await expect(k8s.ping()).resolves.toBeUndefined();
  });

  it('scales a Deployment 0 → 1 → 0 and reports readiness as the replicas catch up', async () => {
    expect(await k8s.status('ml/whisper')).toMatchObject({
      provider: 'kubernetes',
      kind: 'deployment',
      state: 'stopped',
      health: { status: 'stopped', ready: 0, desired: 0 },
      replicas: { desired: 0, current: 0, ready: 0 },
      containers: [],
    });

    await k8s.start('ml/whisper');
    expect(api.scaleCalls('ml', 'whisper')).toEqual([{ method: 'PATCH', replicas: 1 }]);
    const scaleRequest = api.requests.find((r) => r.method === 'PATCH' && r.path.endsWith('/whisper/scale'));
    expect(scaleRequest).toMatchObject({ contentType: 'application/merge-patch+json', body: { spec: { replicas: 1 } }, status: 200 });
    expect(await k8s.status('ml/whisper')).toMatchObject({ state: 'starting', health: { status: 'starting', ready: 0, desired: 1 } });
    expect(await k8s.health('ml/whisper')).toEqual({ status: 'starting', ready: 0, desired: 1 });

    const running = await until(k8s, 'ml/whisper', (s) => s.state !== 'starting');
    expect(running).toMatchObject({ state: 'running', health: { status: 'healthy', ready: 1, desired: 1 }, replicas: { desired: 1, current: 1, ready: 1 } });

    await k8s.start('ml/whisper'); // already up: no second scale
    expect(api.scaleCalls('ml', 'whisper')).toHaveLength(1);

    await k8s.stop('ml/whisper');
    expect(api.scaleCalls('ml', 'whisper')).toEqual([
      { method: 'PATCH', replicas: 1 },
      { method: 'PATCH', replicas: 0 },
    ]);
    expect(api.workload('ml', 'whisper').metadata.annotations[DEFAULT_REPLICAS_ANNOTATION]).toBe('1');
    expect(await k8s.status('ml/whisper')).toMatchObject({ state: 'stopped', health: { status: 'stopped' } });
    await k8s.stop('ml/whisper'); // already stopped: nothing more
    expect(api.scaleCalls('ml', 'whisper')).toHaveLength(2);
  });

  it('remembers the replica count it scaled down from and restores it', async () => {
    await until(k8s, 'ml/ragflow', (s) => s.state === 'running');
    await k8s.stop('ml/ragflow');
    expect(api.workload('ml', 'ragflow').spec.replicas).toBe(0);
    expect(api.workload('ml', 'ragflow').metadata.annotations[DEFAULT_REPLICAS_ANNOTATION]).toBe('3');
    await k8s.start('ml/ragflow');
    expect(api.workload('ml', 'ragflow').spec.replicas).toBe(3);
    expect(await until(k8s, 'ml/ragflow', (s) => s.state === 'running')).toMatchObject({ health: { status: 'healthy', ready: 3, desired: 3 } });
  });

  it('scales to defaultReplicas when nothing was remembered', async () => {
    const two = new KubernetesProvider({ kubeconfig: api.kubeconfigPath, defaultReplicas: 2 });
    await two.start('ml/whisper');
    expect(api.workload('ml', 'whisper').spec.replicas).toBe(2);
  });

  it('reports a Deployment that never becomes ready as unhealthy once its progress deadline passes', async () => {
    await k8s.start('ml/broken');
    expect((await k8s.status('ml/broken')).state).toBe('starting');
    const s = await until(k8s, 'ml/broken', (x) => x.state !== 'starting');
    expect(s).toMatchObject({ state: 'unhealthy', health: { status: 'unhealthy', ready: 0, desired: 1 }, message: expect.stringContaining('timed out progressing') });
  });

  it('reports ready pods without a readiness probe as running with health none', async () => {
    expect(await k8s.status('ml/plain')).toMatchObject({ state: 'running', health: { status: 'none', ready: 1, desired: 1 } });
  });

  it('scales a StatefulSet, and reports stopping while its pods terminate', async () => {
    await k8s.start('data/statefulset/vectors');
    expect(await until(k8s, 'data/statefulset/vectors', (s) => s.state === 'running')).toMatchObject({ kind: 'statefulset', replicas: { ready: 1 } });
    await k8s.stop('data/statefulset/vectors');
    expect(api.scaleCalls('data', 'vectors', 'statefulset').map((c) => c.replicas)).toEqual([1, 0]);
    expect(await k8s.status('data/statefulset/vectors')).toMatchObject({ state: 'stopping', replicas: { desired: 0, current: 1, ready: 0 } });
    expect((await until(k8s, 'data/statefulset/vectors', (s) => s.state !== 'stopping')).state).toBe('stopped');
  });

  it('reads the last log lines of every pod', async () => {
    await k8s.start('ml/whisper');
    expect(await k8s.logs('ml/whisper', { tail: 1 })).toEqual([
      { instance: expect.stringMatching(/^whisper-/), lines: [{ stream: 'stdout', text: 'listening on :8000' }] },
    ]);
    const logRequest = api.requests.find((r) => r.path.endsWith('/log'));
    expect(logRequest?.query).toMatchObject({ tailLines: '1', container: 'whisper' });
  });

  it('rejects NOT_FOUND for a missing workload or namespace, and scales nothing', async () => {
    for (const target of ['ml/nope', 'other/whisper', 'ml/statefulset/whisper']) {
      for (const call of [() => k8s.status(target), () => k8s.start(target), () => k8s.stop(target), () => k8s.logs(target)]) {
        const err = await rejection(call());
        expect(isContainersError(err, 'NOT_FOUND')).toBe(true);
      }
    }
    const err = (await rejection(k8s.status('ml/nope'))) as Error;
    expect(err.message).toBe(`No Kubernetes workload 'ml/nope' (deployments.apps "nope" not found)`);
    expect(api.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('rejects malformed targets before calling the API server', async () => {
    for (const target of ['whisper', 'ml/Whisper', 'ml/daemonset/x', 'a/b/c/d', 'ML/x']) {
      expect(isContainersError(await rejection(k8s.status(target)), 'INVALID_TARGET')).toBe(true);
    }
    expect(api.requests).toEqual([]);
  });

  it('says to check credentials and RBAC when the API server refuses', async () => {
    const wrong = api.kubeconfig.replace(api.token, 'wrong-token');
    const path = `${api.kubeconfigPath}.wrong`;
    writeFileSync(path, wrong);
    const err = await rejection(new KubernetesProvider({ kubeconfig: path }).status('ml/whisper'));
    expect(isContainersError(err, 'PROVIDER_ERROR')).toBe(true);
    expect(err).toMatchObject({ status: 401, message: expect.stringContaining('RBAC Role') });
  });

  it('refuses an unusable kubeconfig at construction', () => {
    expect(() => new KubernetesProvider({ kubeconfig: '/nonexistent/kubeconfig' })).toThrow(/kubeconfig \/nonexistent\/kubeconfig is not usable/);
    expect(() => new KubernetesProvider({})).toThrow(/neither a kubeconfig path/);
    expect(() => new KubernetesProvider({ kubeconfig: api.kubeconfigPath, defaultReplicas: 0 })).toThrow(/defaultReplicas/);
  });

  it('is built by the factory from KUBECONFIG', async () => {
    const provider = createContainerProvider({ provider: 'kubernetes' }, { KUBECONFIG: `${api.kubeconfigPath}:/elsewhere` });
    expect(provider.name).toBe('kubernetes');
    expect((await provider.status('ml/plain')).state).toBe('running');
  });

  it('follows the logs of every pod with timestamps until the workload is scaled to 0', async () => {
    await k8s.start('ml/whisper');
    await until(k8s, 'ml/whisper', (s) => s.state === 'running');
    const seen: Array<{ instance: string; text: string; timestamp?: string }> = [];
    const follower = await k8s.followLogs('ml/whisper', (e) => seen.push({ instance: e.instance, text: e.line.text, timestamp: e.line.timestamp }), { tail: 1 });
    expect(follower.instances).toEqual([expect.stringMatching(/^whisper-/)]);
    for (let i = 0; i < 200 && api.logFollowers('ml', 'whisper') < 1; i++) await new Promise((r) => setTimeout(r, 10));
    const ts = api.appendLog('ml', 'whisper', 'GET /health 200');
    for (let i = 0; i < 200 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(seen.map((l) => l.text)).toEqual(['listening on :8000', 'GET /health 200']);
    expect(seen[1]).toMatchObject({ instance: follower.instances[0], timestamp: ts });
    expect(seen[0].timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/);
    const logRequest = api.requests.filter((r) => r.path.endsWith('/log')).at(-1);
    expect(logRequest?.query).toMatchObject({ follow: 'true', timestamps: 'true', tailLines: '1', container: 'whisper' });
    await k8s.stop('ml/whisper');
    await follower.ended;
    expect(api.logFollowers('ml', 'whisper')).toBe(0);
  });

  it('reads lines `since` a time, with their timestamps', async () => {
    await k8s.start('ml/whisper');
    await until(k8s, 'ml/whisper', (s) => s.state === 'running');
    const future = await k8s.logs('ml/whisper', { since: new Date(Date.now() + 5_000), timestamps: true });
    expect(future[0].lines).toEqual([]);
    const all = await k8s.logs('ml/whisper', { since: new Date(Date.now() - 60_000), timestamps: true });
    expect(all[0].lines.map((l) => l.text)).toEqual(['loading model', 'listening on :8000']);
    expect(all[0].lines[0].timestamp).toEqual(expect.any(String));
  });
});
