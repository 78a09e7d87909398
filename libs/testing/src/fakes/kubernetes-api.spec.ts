import { readFileSync } from 'node:fs';
import { startFakeKubernetesApi, type FakeKubernetesApi } from './kubernetes-api';

describe('fake Kubernetes API server', () => {
  let api: FakeKubernetesApi;
  const call = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${api.token}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const scalePath = '/apis/apps/v1/namespaces/ml/deployments/whisper/scale';

  beforeEach(async () => {
    api = await startFakeKubernetesApi({
      workloads: [
        { namespace: 'ml', name: 'whisper', replicas: 0, readyAfterMs: 50, logs: ['one', 'two'] },
        { namespace: 'db', name: 'pg', kind: 'statefulset', replicas: 1 },
      ],
    });
  });
  afterEach(() => api.close());

  it('writes a kubeconfig whose current context points at it with its token', () => {
    expect(readFileSync(api.kubeconfigPath, 'utf8')).toBe(api.kubeconfig);
    const config = JSON.parse(api.kubeconfig);
    expect(config['current-context']).toBe('fake');
    expect(config.clusters[0].cluster.server).toBe(api.url);
    expect(config.users[0].user.token).toBe(api.token);
  });

  it('lists Deployments and StatefulSets of all namespaces or one, with their annotations; a removed one is gone', async () => {
    api.addWorkload({ namespace: 'web', name: 'blog', annotations: { 'autostart.enable': 'true' } });
    const all = await call('GET', '/apis/apps/v1/deployments');
    expect(all.status).toBe(200);
    expect(all.body.kind).toBe('DeploymentList');
    expect(all.body.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual(['ml/whisper', 'web/blog']);
    expect(all.body.items[1].metadata.annotations).toEqual({ 'autostart.enable': 'true' });
    expect((await call('GET', '/apis/apps/v1/namespaces/ml/deployments')).body.items.map((i: any) => i.metadata.name)).toEqual(['whisper']);
    expect((await call('GET', '/apis/apps/v1/statefulsets')).body.items.map((i: any) => i.metadata.name)).toEqual(['pg']);
    api.removeWorkload('web', 'blog');
    expect((await call('GET', '/apis/apps/v1/deployments')).body.items).toHaveLength(1);
    expect((await call('GET', '/apis/apps/v1/namespaces/web/deployments/blog')).status).toBe(404);
  });

  it('requires the bearer token', async () => {
    const res = await fetch(`${api.url}/apis/apps/v1/namespaces/ml/deployments/whisper`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('serves a Deployment with zero counts omitted, and 404 Status for a missing one', async () => {
    const d = await call('GET', '/apis/apps/v1/namespaces/ml/deployments/whisper');
    expect(d.body).toMatchObject({ kind: 'Deployment', spec: { replicas: 0 }, metadata: { name: 'whisper', namespace: 'ml' } });
    expect(d.body.status.readyReplicas).toBeUndefined();
    const missing = await call('GET', '/apis/apps/v1/namespaces/ml/deployments/nope');
    expect(missing).toEqual({
      status: 404,
      body: expect.objectContaining({ kind: 'Status', reason: 'NotFound', message: 'deployments.apps "nope" not found', code: 404 }),
    });
  });

  it('scales through PATCH (json patch, merge patch) and PUT with resourceVersion conflicts; readiness catches up', async () => {
    const scale = await call('GET', scalePath);
    expect(scale.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 0 } });

    const patched = await call('PATCH', scalePath, [{ op: 'replace', path: '/spec/replicas', value: 2 }], 'application/json-patch+json');
    expect(patched.body.spec.replicas).toBe(2);
    expect((await call('GET', '/apis/apps/v1/namespaces/ml/deployments/whisper')).body.status).toMatchObject({ replicas: 2 });
    for (;;) {
      const s = (await call('GET', '/apis/apps/v1/namespaces/ml/deployments/whisper')).body.status;
      if (s.readyReplicas === 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }

    const stale = { ...scale.body, spec: { replicas: 1 } };
    expect(await call('PUT', scalePath, stale)).toMatchObject({ status: 409, body: { reason: 'Conflict' } });
    const fresh = (await call('GET', scalePath)).body;
    expect((await call('PUT', scalePath, { ...fresh, spec: { replicas: 1 } })).body.spec.replicas).toBe(1);

    expect((await call('PATCH', scalePath, { spec: { replicas: 0 } }, 'application/merge-patch+json')).body.spec.replicas).toBe(0);
    expect(api.scaleCalls('ml', 'whisper')).toEqual([
      { method: 'PATCH', replicas: 2 },
      { method: 'PUT', replicas: 1 },
      { method: 'PATCH', replicas: 0 },
    ]);
    expect(await call('PATCH', scalePath, { spec: { replicas: -1 } }, 'application/merge-patch+json')).toMatchObject({ status: 422, body: { reason: 'Invalid' } });
    expect(await call('PATCH', scalePath, { spec: { replicas: 1 } }, 'application/apply-patch+yaml')).toMatchObject({ status: 415 });
  });

  it('patches annotations of a StatefulSet with a strategic merge patch', async () => {
    const body = { metadata: { annotations: { note: 'x' } } };
    await call('PATCH', '/apis/apps/v1/namespaces/db/statefulsets/pg', body, 'application/strategic-merge-patch+json');
    expect(api.workload('db', 'pg', 'statefulset').metadata.annotations).toEqual({ note: 'x' });
    expect(api.scaleCalls('db', 'pg', 'statefulset')).toEqual([]);
  });

  it('lists the pods of a workload by label selector and serves their logs with tailLines', async () => {
    const pods = await call('GET', '/api/v1/namespaces/db/pods?labelSelector=app%3Dpg');
    expect(pods.body.items.map((p: any) => p.metadata.name)).toEqual(['pg-0']);
    const res = await fetch(`${api.url}/api/v1/namespaces/db/pods/pg-0/log?tailLines=1`, { headers: { authorization: `Bearer ${api.token}` } });
    expect(await res.text()).toBe('');
    await call('PATCH', scalePath, { spec: { replicas: 1 } }, 'application/merge-patch+json');
    const [pod] = (await call('GET', '/api/v1/namespaces/ml/pods?labelSelector=app%3Dwhisper')).body.items;
    const log = await fetch(`${api.url}/api/v1/namespaces/ml/pods/${pod.metadata.name}/log?tailLines=1`, { headers: { authorization: `Bearer ${api.token}` } });
    expect(await log.text()).toBe('two\n');
  });
});
