// autostart-proxy end to end against real protocols: two replicas of the app on one database, the
// Docker Engine API served by the fake engine on a unix socket, the Kubernetes API by the fake API
// server, and each managed service's own HTTP server answering only while its workload runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeDockerEngine, startFakeKubernetesApi, type FakeDockerEngine, type FakeKubernetesApi, type TestApp } from '@platform/testing';
import { call, closeClients, eventually, openUpgrade } from '../test/client';
import { startTwoReplicas } from '../test/replicas';
import { startUpstream, type TestUpstream } from '../test/upstream';
import { CatalogService } from './catalog/catalog.service';
import type { AutostartProxyConfig } from './config';
import { ActivityService } from './workloads/activity.service';
import { Clock } from './workloads/clock';
import { IdleStopWorker } from './workloads/idle-stop.worker';

const IDLE = 1800;

describe('autostart-proxy (two replicas, fake Docker engine and Kubernetes API)', () => {
  let engine: FakeDockerEngine;
  let k8s: FakeKubernetesApi;
  const upstreams: Record<string, TestUpstream> = {};
  let dir: string;
  let configPath: string;
  let a: TestApp<AutostartProxyConfig>;
  let b: TestApp<AutostartProxyConfig>;
  let urlA: string;
  let urlB: string;

  const running = (name: string) => () => {
    const c = engine.container(name);
    return c.State.Running && (c.State.Health === undefined || c.State.Health.Status === 'healthy');
  };

  function yaml(extra = ''): string {
    return `idleTimeout: ${IDLE}
services:
  - name: api
    hosts: [api.test]
    mode: async
    upstream: ${upstreams.api.url}
    provider: docker
    target: api
    healthCheck: /health
    estimatedTime: 12
  - name: whisper
    hosts: [whisper.test, WHISPER.alt.test]
    mode: dynamic
    theme: matrix
    upstream: ${upstreams.whisper.url}
    provider: docker
    target: whisper
    healthCheck: /health
  - name: broken
    hosts: [broken.test]
    mode: async
    upstream: ${upstreams.broken.url}
    provider: docker
    target: broken
    healthCheck: /health
    startTimeout: 1
  - name: sick
    hosts: [sick.test]
    mode: dynamic
    upstream: ${upstreams.sick.url}
    provider: docker
    target: sick
    healthCheck: /health
  - name: chat
    hosts: [chat.test]
    mode: dynamic
    upstream: ${upstreams.chat.url}
    provider: docker
    target: chat
    healthCheck: /health
  - name: legacy
    hosts: [legacy.test]
    mode: async
    upstream: ${upstreams.legacy.url}
    provider: docker
    target: legacy
    healthCheck: /health
    idleTimeout: 600
  - name: ragflow
    hosts: [ragflow.test]
    mode: async
    upstream: ${upstreams.ragflow.url}
    provider: kubernetes
    target: ml/ragflow
    healthCheck: /health
${extra}`;
  }

  beforeAll(async () => {
    engine = await startFakeDockerEngine({
      containers: [
        { name: 'api', health: { becomes: 'healthy', afterMs: 2000 } },
        { name: 'whisper' },
        { name: 'broken', health: { becomes: 'starting' } },
        { name: 'sick', health: { becomes: 'unhealthy', afterMs: 200 } },
        { name: 'chat', health: { becomes: 'healthy', afterMs: 500 } },
        { name: 'legacy', state: 'running' },
      ],
    });
    k8s = await startFakeKubernetesApi({ workloads: [{ namespace: 'ml', name: 'ragflow', replicas: 0, readyAfterMs: 1000 }] });
    upstreams.api = await startUpstream('api', running('api'));
    upstreams.whisper = await startUpstream('whisper', running('whisper'));
    upstreams.broken = await startUpstream('broken', () => engine.container('broken').State.Running);
    upstreams.legacy = await startUpstream('legacy', running('legacy'));
    upstreams.sick = await startUpstream('sick', () => engine.container('sick').State.Running);
    upstreams.chat = await startUpstream('chat', running('chat'));
    upstreams.ragflow = await startUpstream('ragflow', () => (k8s.workload('ml', 'ragflow').status.readyReplicas ?? 0) > 0);
    dir = mkdtempSync(join(tmpdir(), 'autostart-'));
    configPath = join(dir, 'services.yaml');
    writeFileSync(configPath, yaml());
    const env = {
      AUTOSTART_CONFIG: configPath,
      DOCKER_HOST: engine.dockerHost,
      KUBECONFIG: k8s.kubeconfigPath,
      AUTOSTART_HEALTH_POLL_MS: '50',
      AUTOSTART_IDLE_CHECK_MS: '3600000',
      AUTOSTART_FLUSH_MS: '60000',
      AUTOSTART_CONFIG_WATCH_MS: '600000',
    };
    ({ a, b, urlA, urlB } = await startTwoReplicas(env));
  });

  afterAll(async () => {
    closeClients();
    await b?.close();
    await a?.close();
    for (const u of Object.values(upstreams)) await u.close();
    await engine?.close();
    await k8s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const advance = (ms: number) => {
    a.app.get(Clock).advance(ms);
    b.app.get(Clock).advance(ms);
  };
  const idleCheck = async () => (await a.app.get(IdleStopWorker).drain()) + (await b.app.get(IdleStopWorker).drain());
  const ready = (base: string, host: string) => eventually(async () => ((await call(base, `/health/${host}`)).status === 200 ? true : undefined));

  it('a burst of 100 concurrent requests to a stopped async service, over two replicas: 202 each, exactly one start', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call(i % 2 ? urlA : urlB, `/v1/transcribe?n=${i}`, { target: 'api.test', method: 'POST', body: 'x' })),
    );
    for (const res of answers) {
      expect(res.status).toBe(202);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const body = res.json();
      expect(body).toEqual({
        status: 'starting',
        message: expect.stringContaining('api'),
        service: 'api',
        estimatedTime: 12,
        retryAfter: Number(res.headers['retry-after']),
        healthCheckUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/health\/api\.test$/),
      });
    }
    await ready(urlA, 'api.test');
    expect(engine.startCalls('api')).toBe(1);
  });

  it('proxies to the running service: method, path, query, body and headers kept, both ways', async () => {
    const res = await call(urlB, '/v1/items?q=1', { target: 'api.test', method: 'PUT', body: 'payload', headers: { 'x-custom': 'kept', 'content-type': 'text/plain' } });
    expect(res.status).toBe(200);
    expect(res.headers['x-upstream']).toBe('api');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    const echo = res.json();
    expect(echo).toMatchObject({ method: 'PUT', url: '/v1/items?q=1', body: 'payload' });
    expect(echo.headers).toMatchObject({ 'x-custom': 'kept', 'x-autostart-target': 'api.test', 'x-forwarded-proto': 'http' });
    expect(echo.headers['x-forwarded-prefix']).toBeUndefined();
  });

  it('/health/{host} answers ready with the containers once healthy', async () => {
    const res = await call(urlA, '/health/api.test');
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ready', service: 'api', hostname: 'api.test', containers: ['api'] });
  });

  it('dynamic mode: 200 themed waiting page (by Host header) with the name and estimate, then the service itself', async () => {
    const page = await call(urlA, '/', { host: 'Whisper.Alt.Test:8080', headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['cache-control']).toMatch(/no-store/);
    expect(page.text).toContain('data-theme="matrix"');
    expect(page.text).toContain('<h1 id="service">whisper</h1>');
    expect(page.text).toContain('<span id="estimate">30</span>'); // the spec's default for whisper
    expect(page.text).toContain('/health/whisper.alt.test');
    expect(page.text).not.toMatch(/<(script|link)[^>]+(src|href)="http/); // nothing from elsewhere
    await ready(urlA, 'whisper.test');
    const app = await call(urlA, '/', { host: 'whisper.test', headers: { accept: 'text/html' } });
    expect(app.text).toContain('hello from whisper');
    expect(engine.startCalls('whisper')).toBe(1);
  });

  it('while it starts, /health/{host} answers 503 with Retry-After and the estimate', async () => {
    await call(urlA, '/', { target: 'ragflow.test' });
    const res = await call(urlB, '/health/ragflow.test');
    if (res.status === 503) {
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(res.json()).toMatchObject({ status: 'starting', service: 'ragflow', estimatedTime: 45 });
    } else {
      expect(res.status).toBe(200); // already ready: the fake pods take 1 s
    }
    await ready(urlB, 'ragflow.test');
    expect(k8s.workload('ml', 'ragflow').spec.replicas).toBe(1);
  });

  it('an unknown X-Autostart-Target: 404 JSON, nothing started', async () => {
    const before = engine.requests.length;
    const res = await call(urlA, '/', { target: 'nope.test' });
    expect(res.status).toBe(404);
    expect(res.json()).toEqual({ error: expect.stringContaining('nope.test'), host: 'nope.test' });
    expect(engine.requests.filter((r, i) => i >= before && r.method === 'POST')).toEqual([]);
  });

  it('a service that never becomes healthy: 202, then the error once (5xx), then the next request starts it again', async () => {
    const first = await call(urlA, '/x', { target: 'broken.test' });
    expect(first.status).toBe(202);
    await eventually(async () => {
      const list = (await call(urlB, '/api/services')).json();
      return list.services.find((s: any) => s.name === 'broken').status === 'failed' ? true : undefined;
    });
    const failed = await call(urlB, '/x', { target: 'broken.test' });
    expect(failed.status).toBe(502);
    expect(failed.json()).toMatchObject({ status: 'failed', service: 'broken', error: expect.stringContaining('startTimeout of 1 s') });
    expect(engine.container('broken').State.Running).toBe(false); // not left half-started
    const again = await call(urlA, '/x', { target: 'broken.test' });
    expect(again.status).toBe(202);
    await eventually(async () => (engine.startCalls('broken') === 2 ? true : undefined));
  });

  it('a service reported unhealthy while it starts: the error page once (502, in its theme), then a new start', async () => {
    const page = await call(urlA, '/', { target: 'sick.test', headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const failed = await eventually(async () => {
      const res = await call(urlA, '/health/sick.test');
      return res.status === 502 ? res : undefined;
    });
    expect(failed.json()).toMatchObject({ status: 'failed', service: 'sick', error: expect.stringContaining('reports unhealthy') });
    // /health reported the failure (the waiting page shows it): the next request starts it again.
    const again = await call(urlB, '/', { target: 'sick.test', headers: { accept: 'text/html' } });
    expect(again.status).toBe(200);
    await eventually(async () => (engine.startCalls('sick') === 2 ? true : undefined));
    const failedAgain = await eventually(async () => {
      const res = await call(urlA, '/', { target: 'sick.test', headers: { accept: 'text/html' } });
      return res.status === 502 ? res : undefined;
    });
    expect(failedAgain.headers['content-type']).toMatch(/text\/html/);
    expect(failedAgain.text).toContain('sick could not be started');
  });

  it('an upgrade (WebSocket) to a stopped service: 503 with Retry-After and the starting body; once ready, proxied', async () => {
    const refused = await openUpgrade(urlB, '/socket', 'chat.test');
    expect(refused.status).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.head)).toMatchObject({ status: 'starting', service: 'chat', estimatedTime: 30 });
    await ready(urlB, 'chat.test');
    const tunnel = await openUpgrade(urlB, '/socket', 'chat.test');
    expect(tunnel.status).toBe(101);
    tunnel.socket.destroy();
    expect(engine.startCalls('chat')).toBe(1);
  });

  it('GET /api/services lists every service with its state', async () => {
    const res = await call(urlA, '/api/services');
    expect(res.status).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ totalServices: 7, idleTimeout: IDLE });
    expect(body.services.find((s: any) => s.name === 'api')).toMatchObject({
      hostname: 'api.test',
      name: 'api',
      mode: 'async',
      theme: null,
      status: 'running',
      containers: ['api'],
      idleTime: expect.any(Number),
    });
    expect(body.services.find((s: any) => s.name === 'whisper')).toMatchObject({ mode: 'dynamic', theme: 'matrix', hosts: ['whisper.test', 'whisper.alt.test'] });
  });

  it('an open WebSocket counts as activity; idle services are stopped by one replica after their timeout (controllable clock)', async () => {
    const tunnel = await openUpgrade(urlA, '/socket', 'whisper.test');
    expect(tunnel.status).toBe(101);
    const echoed = new Promise<string>((resolve) => tunnel.socket.once('data', (d) => resolve(d.toString())));
    tunnel.socket.write('ping');
    expect(await echoed).toBe('ping');

    await call(urlB, '/touch', { target: 'api.test' });
    advance((IDLE - 60) * 1000);
    await idleCheck();
    expect(engine.stopCalls('api')).toHaveLength(0);
    // legacy was running when the proxy started and never used: its own idle timeout (600 s) applies.
    expect(engine.stopCalls('legacy')).toHaveLength(1);
    expect(engine.container('legacy').State.Running).toBe(false);

    advance(120 * 1000);
    const stopped = await idleCheck();
    expect(stopped).toBeGreaterThanOrEqual(2); // api and ragflow (and broken, left failed-then-restarted)
    expect(engine.stopCalls('api')).toHaveLength(1); // one replica stopped it, not both
    expect(engine.container('api').State.Running).toBe(false);
    expect(k8s.workload('ml', 'ragflow').spec.replicas).toBe(0);
    expect(k8s.scaleCalls('ml', 'ragflow').map((c) => c.replicas)).toEqual([1, 0]);
    expect(engine.stopCalls('whisper')).toHaveLength(0); // its WebSocket is open
    expect(await idleCheck()).toBe(0);

    tunnel.socket.destroy();
    await eventually(async () => (a.app.get(ActivityService).openConnections('whisper') === 0 ? true : undefined));
    advance((IDLE + 1) * 1000);
    await idleCheck();
    expect(engine.stopCalls('whisper')).toHaveLength(1);
  });

  it('a request after the idle stop starts the service again (the replica that did not stop it included)', async () => {
    const res = await call(urlB, '/again', { target: 'api.test' });
    expect(res.status).toBe(202);
    await ready(urlB, 'api.test');
    expect(engine.startCalls('api')).toBe(2);
    expect((await call(urlA, '/again', { target: 'api.test' })).status).toBe(200);
  });

  it('keeps the request history in the database', async () => {
    await eventually(async () => {
      const res = await call(urlA, '/api/services/api/requests?limit=500');
      return res.json().requests.length > 0 ? res : undefined;
    });
    const res = await call(urlA, '/api/services/api/requests?limit=500');
    const outcomes = new Set(res.json().requests.map((r: any) => r.outcome));
    expect(outcomes).toEqual(new Set(['accepted', 'proxied']));
    expect(res.json().requests.every((r: any) => !r.path.includes('?'))).toBe(true);
    expect((await call(urlA, '/api/services/nope/requests')).status).toBe(404);
    expect((await call(urlA, '/api/services/api/requests?limit=0')).status).toBe(400);
  });

  it('counts requests by outcome and the starts and stops in /metrics', async () => {
    const metrics = (await call(urlA, '/metrics')).text + (await call(urlB, '/metrics')).text;
    expect(metrics).toMatch(/autostart_requests_total\{service="api",outcome="accepted"\} \d+/);
    expect(metrics).toMatch(/autostart_requests_total\{service="api",outcome="proxied"\} \d+/);
    expect(metrics).toMatch(/autostart_requests_total\{service="broken",outcome="failed"\} 1/);
    expect(metrics).toMatch(/autostart_lifecycle_total\{service="api",event="started"\} \d+/);
    expect(metrics).toMatch(/autostart_lifecycle_total\{service="api",event="stopped"\} 1/);
  });

  it('reloads the configuration when the file changes; a bad edit keeps the previous one', async () => {
    const catalog = a.app.get(CatalogService);
    writeFileSync(configPath, yaml(`  - name: docs\n    hosts: [docs.test]\n    mode: dynamic\n    upstream: ${upstreams.whisper.url}\n    provider: docker\n    target: whisper\n    healthCheck: /health\n`));
    expect(catalog.reloadIfChanged()).toBe(true);
    expect(catalog.byHost('docs.test')?.estimatedTime).toBe(30);
    writeFileSync(configPath, 'services: [{ name: x }]\n');
    expect(catalog.reloadIfChanged()).toBe(false);
    expect(catalog.byHost('docs.test')?.name).toBe('docs');
  });
});
