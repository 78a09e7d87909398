// Sablier's HTTP API, field by field as the contract table of the README writes it, against two
// replicas on one database, the fake Docker Engine and the fake Kubernetes API. Sessions asked for on
// one replica are the workloads, activity and idle stops of both.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeDockerEngine, startFakeKubernetesApi, type FakeDockerEngine, type FakeKubernetesApi, type TestApp } from '@platform/testing';
import { call, closeClients, eventually, type Answer } from '../../test/client';
import { startTwoReplicas } from '../../test/replicas';
import { startUpstream, type TestUpstream } from '../../test/upstream';
import type { AutostartProxyConfig } from '../config';
import { ActivityService } from '../workloads/activity.service';
import { EngineEventsService } from '../workloads/engine-events.service';
import { Clock } from '../workloads/clock';
import { IdleStopWorker } from '../workloads/idle-stop.worker';

const IDLE = 1800;

describe("Sablier's API (two replicas, fake Docker engine and Kubernetes API)", () => {
  let engine: FakeDockerEngine;
  let k8s: FakeKubernetesApi;
  const upstreams: TestUpstream[] = [];
  let dir: string;
  let a: TestApp<AutostartProxyConfig>;
  let b: TestApp<AutostartProxyConfig>;
  let urlA: string;
  let urlB: string;

  const up = (name: string) => () => {
    const c = engine.container(name);
    return c.State.Running && (c.State.Health === undefined || c.State.Health.Status === 'healthy');
  };

  beforeAll(async () => {
    engine = await startFakeDockerEngine({
      containers: [
        { name: 'web', health: { becomes: 'healthy', afterMs: 1_500 } }, // read not-ready twice first, on a busy machine too
        { name: 'stuck', health: { becomes: 'starting' } },
        { name: 'front' },
        { name: 'slow' },
        { name: 'kept' },
        { name: 'waiter', health: { becomes: 'healthy', afterMs: 300 } },
        { name: 'nostart', failStart: { status: 500, message: 'OCI runtime create failed: no such file' } },
        { name: 'forever', health: { becomes: 'starting' } },
        { name: 'p1', health: { becomes: 'healthy', afterMs: 100 } },
        { name: 'p2', health: { becomes: 'healthy', afterMs: 900 } },
        { name: 'ev' },
        { name: 'adopted' },
      ],
    });
    k8s = await startFakeKubernetesApi({ workloads: [{ namespace: 'ml', name: 'ragflow', replicas: 0, readyAfterMs: 300 }] });
    const svc = async (name: string, isUp: () => boolean) => {
      const u = await startUpstream(name, isUp);
      upstreams.push(u);
      return u.url;
    };
    const yaml = `idleTimeout: ${IDLE}
services:
  - { name: web, hosts: [web.test], mode: dynamic, theme: ghost, displayName: Web site, upstream: '${await svc('web', up('web'))}', provider: docker, target: web, healthCheck: /health }
  - { name: stuck, hosts: [stuck.test], mode: async, upstream: '${await svc('stuck', up('stuck'))}', provider: docker, target: stuck, healthCheck: /health, startTimeout: 60 }
  - { name: ragflow, hosts: [ragflow.test], mode: async, group: stack, upstream: '${await svc('ragflow', () => (k8s.workload('ml', 'ragflow').status.readyReplicas ?? 0) > 0)}', provider: kubernetes, target: ml/ragflow, healthCheck: /health }
  - { name: front, hosts: [front.test], mode: dynamic, group: stack, upstream: '${await svc('front', up('front'))}', provider: docker, target: front, healthCheck: /health }
  - { name: slow, hosts: [slow.test], mode: async, readyAfter: 1, upstream: '${await svc('slow', up('slow'))}', provider: docker, target: slow, healthCheck: /health }
  - { name: kept, hosts: [kept.test], mode: async, upstream: '${await svc('kept', up('kept'))}', provider: docker, target: kept, healthCheck: /health }
  - { name: waiter, hosts: [waiter.test], mode: blocking, upstream: '${await svc('waiter', up('waiter'))}', provider: docker, target: waiter, healthCheck: /health }
  - { name: nostart, hosts: [nostart.test], mode: blocking, upstream: '${await svc('nostart', up('nostart'))}', provider: docker, target: nostart, healthCheck: /health }
  - { name: forever, hosts: [forever.test], mode: blocking, blockingTimeout: 1, upstream: '${await svc('forever', up('forever'))}', provider: docker, target: forever, healthCheck: /health }
  - { name: p1, hosts: [p1.test], mode: async, group: pair, upstream: '${await svc('p1', up('p1'))}', provider: docker, target: p1, healthCheck: /health }
  - { name: ev, hosts: [ev.test], mode: async, upstream: '${await svc('ev', up('ev'))}', provider: docker, target: ev, healthCheck: /health }
  - { name: adopted, hosts: [adopted.test], mode: async, upstream: '${await svc('adopted', up('adopted'))}', provider: docker, target: adopted, healthCheck: /health }
  - { name: p2, hosts: [p2.test], mode: async, group: pair, upstream: '${await svc('p2', up('p2'))}', provider: docker, target: p2, healthCheck: /health }
`;
    dir = mkdtempSync(join(tmpdir(), 'autostart-sablier-'));
    writeFileSync(join(dir, 'services.yaml'), yaml);
    const env = {
      AUTOSTART_CONFIG: join(dir, 'services.yaml'),
      DOCKER_HOST: engine.dockerHost,
      KUBECONFIG: k8s.kubeconfigPath,
      AUTOSTART_HEALTH_POLL_MS: '50',
      AUTOSTART_IDLE_CHECK_MS: '3600000',
      AUTOSTART_FLUSH_MS: '60000',
    };
    ({ a, b, urlA, urlB } = await startTwoReplicas(env));
  });

  afterAll(async () => {
    closeClients();
    await b?.close();
    await a?.close();
    for (const u of upstreams) await u.close();
    await engine?.close();
    await k8s?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const problem = (res: Answer, status: number, detail: RegExp) => {
    expect(res.status).toBe(status);
    expect(res.json()).toEqual({
      type: `https://developer.mozilla.org/docs/Web/HTTP/Status/${status}`,
      title: expect.any(String),
      status,
      detail: expect.stringMatching(detail),
      instance: expect.stringMatching(/^\/api\//),
      ...(status === 400 && res.json().errors ? { errors: expect.any(Array) } : {}),
    });
  };

  it('dynamic: 200 themed page and not-ready, started once across replicas, then ready', async () => {
    const first = await call(urlA, '/api/strategies/dynamic?names=web&session_duration=5m&refresh_frequency=2s&show_details=true');
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/html/);
    expect(first.headers['x-sablier-session-status']).toBe('not-ready');
    expect(first.headers['cache-control']).toMatch(/no-store/);
    expect(first.text).toContain('<meta http-equiv="refresh" content="2">');
    expect(first.text).toContain('data-theme="ghost"'); // the service's theme
    expect(first.text).toContain('<h1 id="service">Web site</h1>'); // its displayName
    expect(first.text).toMatch(/data-instance="web"[^]*not-ready · 0\/1/);
    expect(first.text).toContain('5m0s');
    const again = await call(urlB, '/api/strategies/dynamic?names=web&display_name=Mine&theme=matrix&show_details=false');
    expect(again.headers['x-sablier-session-status']).toBe('not-ready');
    expect(again.text).toContain('<h1 id="service">Mine</h1>');
    expect(again.text).toContain('data-theme="matrix"');
    expect(again.text).not.toContain('data-instance=');
    const ready = await eventually(async () => {
      const res = await call(urlB, '/api/strategies/dynamic?names=web');
      return res.headers['x-sablier-session-status'] === 'ready' ? res : undefined;
    });
    expect(ready.status).toBe(200);
    expect(ready.text).toMatch(/data-instance="web"[^]*ready · 1\/1/);
    expect(engine.startCalls('web')).toBe(1);
  });

  it('blocking: waits for the Kubernetes Deployment, then 200 with the session', async () => {
    const res = await call(urlB, '/api/strategies/blocking?names=ragflow&timeout=20s&session_duration=10m');
    expect(res.status).toBe(200);
    expect(res.headers['x-sablier-session-status']).toBe('ready');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      session: {
        status: 'ready',
        instances: {
          ragflow: { instance: { name: 'ragflow', status: 'ready', currentReplicas: 1, desiredReplicas: 1, provider: 'kubernetes', groups: ['stack'] }, error: null },
        },
      },
    });
    expect(k8s.workload('ml', 'ragflow').spec.replicas).toBe(1);
    // Warm now: answered by the raw fast path (no Express: no X-Request-Id), with the same contract.
    expect(res.headers['x-request-id']).toBeDefined();
    const warm = await call(urlB, '/api/strategies/blocking?names=ragflow&timeout=20s&session_duration=10m');
    expect(warm.headers['x-request-id']).toBeUndefined();
    expect([warm.status, warm.headers['x-sablier-session-status'], warm.headers['content-type'], warm.headers['cache-control']]).toEqual([
      200,
      'ready',
      res.headers['content-type'],
      res.headers['cache-control'],
    ]);
    expect(warm.json()).toEqual(res.json());
    const page = await call(urlB, '/api/strategies/dynamic?names=ragflow&show_details=true&theme=ghost');
    expect(page.headers['x-request-id']).toBeUndefined();
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toMatch(/data-instance="ragflow"[^]*ready · 1\/1/);
    // An odd query on a warm session still goes through Nest's validation.
    expect((await call(urlB, '/api/strategies/blocking?names=ragflow&timeout=soon')).status).toBe(400);
  });

  it('blocking: 504 problem and not-ready when the timeout passes first; the start goes on', async () => {
    const res = await call(urlA, '/api/strategies/blocking?names=stuck&timeout=300ms');
    problem(res, 504, /stuck not ready within 300ms/);
    expect(res.headers['x-sablier-session-status']).toBe('not-ready');
    await eventually(async () => (engine.startCalls('stuck') === 1 ? true : undefined));
    const other = await call(urlB, '/api/strategies/blocking?names=stuck&timeout=200ms');
    expect(other.status).toBe(504);
    expect(engine.startCalls('stuck')).toBe(1); // one start, shared by both replicas
  });

  it('a group: every member started, ready together (names of several services alike)', async () => {
    const res = await call(urlA, '/api/strategies/blocking?group=stack&timeout=20s');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json().session.instances).sort()).toEqual(['front', 'ragflow']);
    expect(engine.startCalls('front')).toBe(1);
    expect(engine.container('front').State.Running).toBe(true);
    const several = await call(urlB, '/api/strategies/dynamic?names=front,ragflow');
    expect(several.headers['x-sablier-session-status']).toBe('ready');
    const repeated = await call(urlB, '/api/strategies/blocking?names=front&names=ragflow&timeout=5s');
    expect(repeated.json().session.status).toBe('ready');
  });

  it('ready-after: healthy is not ready until the delay has passed', async () => {
    const early = await call(urlA, '/api/strategies/blocking?names=slow&timeout=500ms');
    expect(early.status).toBe(504);
    await eventually(async () => (engine.container('slow').State.Running ? true : undefined));
    const res = await call(urlA, '/api/strategies/blocking?names=slow&timeout=10s');
    expect(res.status).toBe(200);
    expect(res.json().session.instances.slow.instance).toMatchObject({ status: 'ready', readyAfter: '1s' });
  });

  it.each([
    ['/api/strategies/blocking?names=nope', 404, /No managed service is named "nope"/],
    ['/api/strategies/dynamic?names=web,nope', 404, /"nope"/],
    ['/api/strategies/dynamic?group=nope', 404, /No managed service is in group "nope"/],
    ['/api/strategies/dynamic?names=web&theme=nope', 404, /Theme "nope" does not exist/],
    ['/api/strategies/blocking?names=web&group=stack', 400, /either names or group/],
    ['/api/strategies/blocking', 400, /Give names/],
    ['/api/strategies/blocking?names=web&timeout=soon', 400, /timeout must be a Go duration/],
    ['/api/strategies/dynamic?names=web&session_duration=-5m', 400, /session_duration must be a Go duration/],
    ['/api/strategies/dynamic?names=web&show_details=maybe', 400, /show_details/],
    ['/api/strategies/dynamic?names=Web!', 400, /each of names must be a service name/],
    ['/api/strategies/dynamic?names[x]=web', 400, /names/],
    ['/api/strategies/dynamic?names=web&refresh_frequency=0s', 400, /refresh_frequency/],
    ['/api/strategies/dynamic?names=web&extra=1', 400, /extra/],
  ])('%s → %d problem', async (path, status, detail) => {
    const before = engine.requests.filter((r) => r.method === 'POST').length;
    problem(await call(urlA, path), status, detail);
    expect(engine.requests.filter((r) => r.method === 'POST').length).toBe(before); // nothing started
  });

  it('GET /api/themes and /api/dynamic/themes list the themes; GET /health says ok', async () => {
    for (const path of ['/api/themes', '/api/dynamic/themes']) {
      const res = await call(urlA, path);
      expect(res.status).toBe(200);
      expect(res.json().themes).toEqual(expect.arrayContaining(['ghost', 'hacker-terminal', 'matrix', 'shuffle']));
    }
    const health = await call(urlB, '/health');
    expect(health.status).toBe(200);
    expect(health.headers['content-type']).toMatch(/^text\/plain/);
    expect(health.text).toBe('ok');
  });

  it("a session ends the workload after its session_duration on every replica, not after the service's idleTimeout", async () => {
    const started = await call(urlA, '/api/strategies/blocking?names=kept&session_duration=1m&timeout=10s');
    expect(started.status).toBe(200);
    await call(urlB, '/api/strategies/dynamic?names=kept&session_duration=2m'); // renewed on the other replica
    await a.app.get(ActivityService).flush();
    await b.app.get(ActivityService).flush();
    const advance = (ms: number) => [a, b].forEach((t) => t.app.get(Clock).advance(ms));
    const idleCheck = async () => (await a.app.get(IdleStopWorker).drain()) + (await b.app.get(IdleStopWorker).drain());
    advance(90_000);
    await idleCheck();
    expect(engine.stopCalls('kept')).toHaveLength(0); // 2m from the renewal
    advance(60_000);
    await idleCheck();
    expect(engine.stopCalls('kept')).toHaveLength(1); // one replica stopped it
    expect(engine.container('kept').State.Running).toBe(false);
    expect(engine.stopCalls('web')).toHaveLength(0); // its session of 5m still runs
  });

  describe('routed requests', () => {
    it('blocking mode: the request waits for the start, then is proxied with its body', async () => {
      const res = await call(urlA, '/v1/do?x=1', { target: 'waiter.test', method: 'POST', body: 'kept' });
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ service: 'waiter', method: 'POST', url: '/v1/do?x=1', body: 'kept' });
      expect(engine.startCalls('waiter')).toBe(1);
    });

    it('blocking mode: a start that fails is answered 502 at once, not waited out', async () => {
      const res = await call(urlB, '/', { target: 'nostart.test' });
      expect(res.status).toBe(502);
      expect(res.json()).toMatchObject({ status: 'failed', service: 'nostart', error: expect.stringContaining('OCI runtime create failed') });
    });

    it('blocking mode: not ready within blockingTimeout → 504 with a clear body', async () => {
      const res = await call(urlA, '/', { target: 'forever.test' });
      expect(res.status).toBe(504);
      expect(res.json()).toEqual({
        status: 'timeout',
        message: expect.stringContaining('not ready within its blockingTimeout of 1 s'),
        service: 'forever',
        estimatedTime: 30,
        blockingTimeout: 1,
      });
    });

    it('a group: a request to one member starts all of them and passes only once all are ready', async () => {
      const first = await call(urlA, '/', { target: 'p1.test' });
      expect(first.status).toBe(202);
      await eventually(async () => (engine.container('p2').State.Running ? true : undefined)); // started with it, by the same request
      expect(engine.startCalls('p2')).toBe(1);
      const passed = await eventually(async () => {
        const res = await call(urlB, '/hello', { target: 'p1.test' });
        return res.status === 200 ? res : undefined;
      });
      expect(passed.json()).toMatchObject({ service: 'p1' });
      expect(engine.container('p2').State.Health?.Status).toBe('healthy');
      expect(engine.startCalls('p1')).toBe(1);
      expect(engine.startCalls('p2')).toBe(1);
    });
  });

  describe('Docker events (each replica follows the engine)', () => {
    const settled = async () => {
      await a.app.get(EngineEventsService).settled();
      await b.app.get(EngineEventsService).settled();
    };
    const status = async (name: string) => (await call(urlA, '/api/services')).json().services.find((s: any) => s.name === name).status;

    it('a container stopped from outside ends its session on every replica; the next call starts it again', async () => {
      expect((await call(urlA, '/api/strategies/blocking?names=ev&session_duration=1h&timeout=10s')).status).toBe(200);
      expect((await call(urlB, '/api/strategies/dynamic?names=ev')).headers['x-sablier-session-status']).toBe('ready');
      expect(await status('ev')).toBe('running');
      engine.exit('ev', 0); // docker stop, by someone else
      await eventually(async () => ((await status('ev')) === 'stopped' ? true : undefined));
      await settled();
      const next = await call(urlB, '/api/strategies/dynamic?names=ev'); // B forgot it was ready, at once
      expect(next.headers['x-sablier-session-status']).toBe('not-ready');
      await eventually(async () => (engine.startCalls('ev') === 2 ? true : undefined));
    });

    it('a container started from outside is adopted: active from then on, stopped after its idle timeout', async () => {
      const advance = (ms: number) => [a, b].forEach((t) => t.app.get(Clock).advance(ms));
      const idleCheck = async () => (await a.app.get(IdleStopWorker).drain()) + (await b.app.get(IdleStopWorker).drain());
      advance((IDLE - 60) * 1000);
      engine.startFromOutside('adopted');
      await eventually(async () => ((await status('adopted')) === 'unknown' && engine.container('adopted').State.Running ? true : undefined));
      await settled();
      advance(120_000); // past the idle timeout since the proxy started, not since the adoption
      await idleCheck();
      expect(engine.stopCalls('adopted')).toHaveLength(0);
      advance(IDLE * 1000);
      await idleCheck();
      expect(engine.stopCalls('adopted')).toHaveLength(1);
      expect(engine.container('adopted').State.Running).toBe(false);
    });
  });
});
