// Discovery from labels (fake Docker Engine, its events stream) and annotations (fake Kubernetes API):
// a new workload is picked up, a removed one dropped, and the YAML file wins on conflict.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, startFakeDockerEngine, startFakeKubernetesApi, type FakeDockerEngine, type FakeKubernetesApi, type TestApp } from '@platform/testing';
import { call, closeClients, eventually } from '../../test/client';
import { startUpstream, type TestUpstream } from '../../test/upstream';
import type { AutostartProxyConfig } from '../config';
import { autostartProxyService } from '../service';

const names = async (url: string) =>
  ((await call(url, '/api/services')).json().services as Array<{ name: string; provider: string; hosts: string[] }>).map((s) => `${s.name}:${s.provider}:${s.hosts.join(',')}`).sort();

describe('discovery from Docker labels (AUTOSTART_DISCOVERY=docker)', () => {
  let engine: FakeDockerEngine;
  let upstream: TestUpstream;
  let app: TestApp<AutostartProxyConfig>;
  let url: string;
  let dir: string;

  beforeAll(async () => {
    engine = await startFakeDockerEngine();
    upstream = await startUpstream('disc', () => engine.container('disc').State.Running);
    const labels = (extra: Record<string, string>) => ({ 'autostart.enable': 'true', 'autostart.upstream': upstream.url, 'autostart.health-check': '/health', ...extra });
    engine.addContainer({ name: 'disc', labels: labels({ 'autostart.hosts': 'disc.test', 'autostart.mode': 'async', 'autostart.idle-timeout': '10m' }) });
    engine.addContainer({ name: 'web', labels: labels({ 'autostart.hosts': 'elsewhere.test' }) }); // the file names web: the file wins
    engine.addContainer({ name: 'nolabel' });
    dir = mkdtempSync(join(tmpdir(), 'autostart-disc-'));
    writeFileSync(join(dir, 'services.yaml'), `services:\n  - { name: web, hosts: [web.test], mode: async, upstream: '${upstream.url}', provider: docker, target: web, healthCheck: /health }\n`);
    app = await createTestApp(autostartProxyService, {
      AUTOSTART_CONFIG: join(dir, 'services.yaml'),
      AUTOSTART_DISCOVERY: 'docker',
      AUTOSTART_DISCOVERY_MS: '3600000', // only the events trigger a new listing here
      DOCKER_HOST: engine.dockerHost,
      AUTOSTART_HEALTH_POLL_MS: '50',
    });
    await app.app.listen(0, '127.0.0.1');
    url = await app.app.getUrl();
  });

  afterAll(async () => {
    closeClients();
    await app?.close();
    await upstream?.close();
    await engine?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves the labelled containers from the start, the file winning on a name', async () => {
    expect(await names(url)).toEqual(['disc:docker:disc.test', 'web:docker:web.test']);
    const res = await call(url, '/', { target: 'disc.test' });
    expect(res.status).toBe(202); // async, from its label
    await eventually(async () => ((await call(url, '/x', { target: 'disc.test' })).status === 200 ? true : undefined));
    expect((await call(url, '/api/services')).json().services.find((s: any) => s.name === 'disc')).toMatchObject({ idleTimeout: 600, target: 'disc' });
    expect((await call(url, '/', { target: 'elsewhere.test' })).status).toBe(404);
  });

  it('picks up a new container from its create event, and drops a removed one', async () => {
    engine.addContainer({ name: 'late', labels: { 'autostart.enable': 'true', 'autostart.port': '9', 'autostart.hosts': 'late.test' } });
    await eventually(async () => ((await names(url)).includes('late:docker:late.test') ? true : undefined));
    expect((await call(url, '/api/strategies/dynamic?names=late')).status).toBe(200); // known to Sablier's API too
    engine.removeContainer('late');
    await eventually(async () => ((await names(url)).some((n) => n.startsWith('late:')) ? undefined : true));
    expect((await call(url, '/', { target: 'late.test' })).status).toBe(404);
  });
});

describe('discovery from Kubernetes annotations (AUTOSTART_DISCOVERY=kubernetes)', () => {
  let k8s: FakeKubernetesApi;
  let app: TestApp<AutostartProxyConfig>;
  let url: string;

  beforeAll(async () => {
    k8s = await startFakeKubernetesApi({
      workloads: [
        { namespace: 'ml', name: 'ragflow', replicas: 0, annotations: { 'autostart.enable': 'true', 'autostart.port': '80', 'autostart.group': 'ml' } },
        { namespace: 'ml', name: 'db', kind: 'statefulset', replicas: 0, annotations: { 'autostart.enable': 'true', 'autostart.port': '5432', 'autostart.group': 'ml' } },
        { namespace: 'web', name: 'ignored', replicas: 1 },
      ],
    });
    app = await createTestApp(autostartProxyService, { AUTOSTART_DISCOVERY: 'kubernetes', AUTOSTART_DISCOVERY_MS: '200', KUBECONFIG: k8s.kubeconfigPath });
    await app.app.listen(0, '127.0.0.1');
    url = await app.app.getUrl();
  });

  afterAll(async () => {
    closeClients();
    await app?.close();
    await k8s?.close();
  });

  it('lists the annotated Deployments and StatefulSets (a group from the annotations), then follows them', async () => {
    expect(await names(url)).toEqual(['db:kubernetes:', 'ragflow:kubernetes:']);
    const list = (await call(url, '/api/services')).json().services;
    expect(list.find((s: any) => s.name === 'db')).toMatchObject({ target: 'ml/statefulset/db', upstream: 'http://db.ml.svc:5432' });
    const group = await call(url, '/api/strategies/dynamic?group=ml');
    expect(group.status).toBe(200);
    expect(group.text).toMatch(/data-instance="ragflow"[^]*data-instance="db"|data-instance="db"[^]*data-instance="ragflow"/);
    k8s.addWorkload({ namespace: 'web', name: 'blog', replicas: 0, annotations: { 'autostart.enable': 'true', 'autostart.port': '80', 'autostart.hosts': 'blog.test' } });
    await eventually(async () => ((await names(url)).includes('blog:kubernetes:blog.test') ? true : undefined));
    k8s.removeWorkload('ml', 'ragflow');
    await eventually(async () => ((await names(url)).some((n) => n.startsWith('ragflow:')) ? undefined : true));
  });
});
