import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { request as tlsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDockerTlsMaterial, startFakeDockerEngine, type FakeDockerEngine } from './docker-engine';

/** One raw Engine API call over the unix socket. */
function call(engine: FakeDockerEngine, method: string, path: string): Promise<{ status: number; type?: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: engine.socketPath, method, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}
const json = (r: { body: Buffer }) => JSON.parse(r.body.toString()) as any;

describe('fake Docker Engine API', () => {
  let engine: FakeDockerEngine;
  beforeEach(async () => {
    engine = await startFakeDockerEngine({
      containers: [
        // healthy a second after each start: long enough that the test reads `starting` first on a busy machine
        { name: 'web', labels: { tier: 'front', app: 'shop' }, health: { becomes: 'healthy', afterMs: 1_000 } },
        { name: 'web-admin', labels: { tier: 'back', app: 'shop' }, state: 'running' },
        { name: 'sleepy', state: 'paused' },
      ],
    });
  });
  afterEach(() => engine.close());

  it('listens on a unix socket given as DOCKER_HOST', async () => {
    expect(engine.dockerHost).toBe(`unix://${engine.socketPath}`);
    const r = await call(engine, 'GET', '/_ping');
    expect([r.status, r.body.toString()]).toEqual([200, 'OK']);
  });

  it('lists running (and paused) containers, all with all=1, filtered by label and by name (a pattern, as the engine does)', async () => {
    expect(json(await call(engine, 'GET', '/v1.47/containers/json')).map((c: any) => c.Names[0])).toEqual(['/web-admin', '/sleepy']);
    const all = json(await call(engine, 'GET', '/containers/json?all=1'));
    expect(all.map((c: any) => [c.Names[0], c.State])).toEqual([['/web', 'exited'], ['/web-admin', 'running'], ['/sleepy', 'paused']]);
    const byLabel = encodeURIComponent(JSON.stringify({ label: ['app=shop', 'tier=front'] }));
    expect(json(await call(engine, 'GET', `/containers/json?all=true&filters=${byLabel}`)).map((c: any) => c.Names[0])).toEqual(['/web']);
    const byName = encodeURIComponent(JSON.stringify({ name: ['web'] }));
    expect(json(await call(engine, 'GET', `/containers/json?all=1&filters=${byName}`))).toHaveLength(2);
  });

  it('starts (204, then 304), moves health from starting to healthy, and stops (204, then 304) with t', async () => {
    const { Id } = engine.container('web');
    expect((await call(engine, 'POST', `/containers/${Id.slice(0, 12)}/start`)).status).toBe(204);
    expect((await call(engine, 'POST', '/containers/web/start')).status).toBe(304);
    expect(engine.startCalls('web')).toBe(2);
    const starting = json(await call(engine, 'GET', '/containers/web/json'));
    expect(starting.State).toMatchObject({ Status: 'running', Running: true, Health: { Status: 'starting' } });
    for (;;) {
      const s = json(await call(engine, 'GET', '/containers/web/json')).State;
      if (s.Health.Status !== 'starting') {
        expect(s.Health).toMatchObject({ Status: 'healthy', FailingStreak: 0 });
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await call(engine, 'POST', '/containers/web/stop?t=5')).status).toBe(204);
    expect((await call(engine, 'POST', '/containers/web/stop')).status).toBe(304);
    expect(engine.stopCalls('web')).toEqual([{ t: 5 }, {}]);
    expect(engine.container('web').State).toMatchObject({ Status: 'exited', Running: false, ExitCode: 0 });
  });

  it('answers 404 with the engine’s message for an unknown container, and 409 to unpause a running or start a paused one', async () => {
    const r = await call(engine, 'POST', '/containers/nope/start');
    expect([r.status, json(r)]).toEqual([404, { message: 'No such container: nope' }]);
    expect((await call(engine, 'GET', '/containers/nope/json')).status).toBe(404);
    expect((await call(engine, 'POST', '/containers/web-admin/unpause')).status).toBe(409);
    expect(json(await call(engine, 'POST', '/containers/sleepy/start'))).toEqual({ message: 'cannot start a paused container, try unpause instead' });
    expect((await call(engine, 'POST', '/containers/sleepy/unpause')).status).toBe(204);
    expect(engine.container('sleepy').State.Status).toBe('running');
  });

  it('frames logs as a multiplexed stream with tail, and refuses a request without a stream', async () => {
    engine.addContainer({ name: 'log', logs: [{ stream: 'stdout', text: 'a' }, { stream: 'stderr', text: 'bb' }, { stream: 'stdout', text: 'c' }] });
    const r = await call(engine, 'GET', '/containers/log/logs?stdout=1&stderr=1&tail=2');
    expect(r.type).toBe('application/vnd.docker.multiplexed-stream');
    expect([...r.body]).toEqual([2, 0, 0, 0, 0, 0, 0, 3, ...Buffer.from('bb\n'), 1, 0, 0, 0, 0, 0, 0, 2, ...Buffer.from('c\n')]);
    expect((await call(engine, 'GET', '/containers/log/logs?stdout=1')).body.includes(Buffer.from('bb'))).toBe(false);
    expect((await call(engine, 'GET', '/containers/log/logs')).status).toBe(400);
  });

  it('can fail a start once, make a container unhealthy, or let it exit', async () => {
    engine.addContainer({ name: 'oops', failStart: { status: 500, message: 'no such image' } });
    expect((await call(engine, 'POST', '/containers/oops/start')).status).toBe(500);
    expect((await call(engine, 'POST', '/containers/oops/start')).status).toBe(204);
    engine.addContainer({ name: 'hc', state: 'running', health: { becomes: 'starting' } });
    engine.setHealth('hc', 'unhealthy');
    expect(engine.container('hc').State.Health).toMatchObject({ Status: 'unhealthy', FailingStreak: 1 });
    engine.exit('hc', 2);
    expect(engine.container('hc').State).toMatchObject({ Status: 'exited', ExitCode: 2 });
  });

  it('streams container events as JSON lines, filtered by event and label, as they happen', async () => {
    const lines: any[] = [];
    const req = request({ socketPath: engine.socketPath, path: `/v1.47/events?filters=${encodeURIComponent(JSON.stringify({ type: ['container'], event: ['start', 'die', 'destroy'], label: ['app=shop'] }))}` });
    const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => req.on('response', resolve).on('error', reject).end());
    let buffered = '';
    res.on('data', (c: Buffer) => {
      buffered += c.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      lines.push(...parts.filter(Boolean).map((l) => JSON.parse(l)));
    });
    while (engine.eventStreams() === 0) await new Promise((r) => setTimeout(r, 10));
    engine.startFromOutside('web');
    engine.startFromOutside('sleepy'); // no app=shop label
    engine.exit('web', 3);
    engine.removeContainer('web-admin');
    while (lines.length < 4) await new Promise((r) => setTimeout(r, 10));
    expect(lines.map((l) => [l.Action, l.Actor.Attributes.name])).toEqual([
      ['start', 'web'],
      ['die', 'web'],
      ['die', 'web-admin'],
      ['destroy', 'web-admin'],
    ]);
    expect(lines[1]).toMatchObject({ Type: 'container', status: 'die', Actor: { Attributes: { exitCode: '3', tier: 'front', image: 'web:latest' } } });
    expect(engine.startCalls('web')).toBe(0); // started from outside, not through the API
    res.destroy();
  });
});

describe('fake Docker Engine API over TLS', () => {
  it('requires a client certificate of its CA, as a daemon started with --tlsverify', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-docker-tls-'));
    const material = createDockerTlsMaterial(dir);
    const engine = await startFakeDockerEngine({ tls: material.daemon });
    try {
      expect(engine.dockerHost).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
      const port = Number(engine.dockerHost.split(':').pop());
      const ping = (certPath: string) =>
        new Promise<number>((resolve, reject) => {
          const file = (f: string) => readFileSync(join(certPath, f));
          tlsRequest({ host: '127.0.0.1', port, path: '/_ping', ca: file('ca.pem'), cert: file('cert.pem'), key: file('key.pem') }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
            .on('error', reject)
            .end();
        });
      expect(await ping(material.certPath)).toBe(200);
      await expect(ping(material.otherCertPath)).rejects.toThrow();
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
