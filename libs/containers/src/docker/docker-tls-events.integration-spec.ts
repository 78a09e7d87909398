import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDockerTlsMaterial, startFakeDockerEngine, type FakeDockerEngine } from '@platform/testing';
import { createContainerProvider } from '../create-provider';
import { isContainersError } from '../provider';
import { DockerProvider, type ContainerEvent } from './docker-provider';

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  expect(check()).toBe(true);
}

describe('DockerProvider over TLS (DOCKER_TLS_VERIFY, DOCKER_CERT_PATH), as the Docker CLI', () => {
  let dir: string;
  let material: ReturnType<typeof createDockerTlsMaterial>;
  let engine: FakeDockerEngine;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docker-tls-'));
    material = createDockerTlsMaterial(dir);
    engine = await startFakeDockerEngine({ tls: material.daemon, containers: [{ name: 'web' }] });
  });
  afterAll(async () => {
    await engine?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts and inspects a container over TLS with the client certificate of DOCKER_CERT_PATH', async () => {
    const docker = createContainerProvider({ provider: 'docker' }, { DOCKER_HOST: engine.dockerHost, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: material.certPath });
    expect((docker as DockerProvider).tls).toBe(true);
    await docker.ping();
    await docker.start('web');
    expect((await docker.status('web')).state).toBe('running');
    expect(engine.startCalls('web')).toBe(1);
  });

  it('is refused by the daemon with a certificate of another CA, and plain http is refused too', async () => {
    const stranger = createContainerProvider({ provider: 'docker' }, { DOCKER_HOST: engine.dockerHost, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: material.otherCertPath });
    const err = await stranger.ping().then(() => undefined, (e: unknown) => e);
    expect(isContainersError(err, 'PROVIDER_ERROR')).toBe(true);
    const plain = createContainerProvider({ provider: 'docker' }, { DOCKER_HOST: engine.dockerHost });
    expect(isContainersError(await plain.ping().then(() => undefined, (e: unknown) => e), 'PROVIDER_ERROR')).toBe(true);
  });

  it('names a missing certificate file at creation; tcp://host means port 2376 with TLS', () => {
    expect(() => createContainerProvider({ provider: 'docker' }, { DOCKER_HOST: 'tcp://docker', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: join(dir, 'nope') })).toThrow(
      /DOCKER_TLS_VERIFY is set but .*nope\/ca\.pem cannot be read/,
    );
    const docker = createContainerProvider({ provider: 'docker' }, { DOCKER_HOST: 'tcp://docker', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: material.certPath });
    expect((docker as DockerProvider).endpoint).toEqual({ kind: 'tcp', host: 'docker', port: 2376 });
  });
});

describe('DockerProvider events and listing by label', () => {
  let engine: FakeDockerEngine;
  let docker: DockerProvider;
  beforeEach(async () => {
    engine = await startFakeDockerEngine({
      containers: [
        { name: 'a', labels: { 'autostart.enable': 'true', 'autostart.group': 'g' } },
        { name: 'b', labels: { 'autostart.enable': 'true' }, state: 'running' },
        { name: 'c', labels: { other: 'x' } },
      ],
    });
    docker = new DockerProvider({ dockerHost: engine.dockerHost });
  });
  afterEach(() => engine.close());

  it('lists every container with a label, running or not, with its labels', async () => {
    const listed = await docker.list(['autostart.enable=true']);
    expect(listed.map((c) => [c.name, c.engineState, c.labels['autostart.group']])).toEqual([
      ['a', 'exited', 'g'],
      ['b', 'running', undefined],
    ]);
  });

  it('follows start, die and destroy as they happen, filtered by label; reopens a broken stream', async () => {
    const events: ContainerEvent[] = [];
    let opened = 0;
    const stop = docker.watch((e) => events.push(e), { labels: ['autostart.enable'], retryMs: 20, onOpen: () => opened++ });
    await waitFor(() => engine.eventStreams() === 1);
    engine.startFromOutside('a');
    engine.startFromOutside('c'); // not labelled: not reported
    engine.exit('b', 0);
    engine.removeContainer('a');
    await waitFor(() => events.length >= 4);
    expect(events.map((e) => [e.action, e.name])).toEqual([
      ['start', 'a'],
      ['die', 'b'],
      ['die', 'a'],
      ['destroy', 'a'],
    ]);
    expect(events[1]).toMatchObject({ exitCode: 0, labels: { 'autostart.enable': 'true' } });
    expect(events[0].time).toBeGreaterThan(Date.now() - 60_000);
    for (const r of engine.requests.filter((q) => q.path === '/events')) expect(r.query.filters).toContain('autostart.enable');
    // The stream breaks (an engine restart): it is opened again, and events flow again.
    expect(opened).toBe(1);
    engine.dropEventStreams();
    await waitFor(() => opened === 2 && engine.eventStreams() === 1);
    engine.startFromOutside('b');
    await waitFor(() => events.length === 5);
    expect(events[4]).toMatchObject({ action: 'start', name: 'b' });
    stop();
    await waitFor(() => engine.eventStreams() === 0);
  });
});
