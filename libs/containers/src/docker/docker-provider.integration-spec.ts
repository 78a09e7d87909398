import { startFakeDockerEngine, type FakeDockerEngine } from '@platform/testing';
import { isContainersError } from '../provider';
import { rejection, until } from '../test/helpers';
import { DockerProvider } from './docker-provider';

describe('DockerProvider against a fake Docker Engine API on a unix socket', () => {
  let engine: FakeDockerEngine;
  let docker: DockerProvider;

  beforeEach(async () => {
    engine = await startFakeDockerEngine({
      containers: [
        { name: 'whisper', image: 'whisper:1', health: { becomes: 'healthy', afterMs: 2000 }, labels: { 'autostart.group': 'asr' } },
        { name: 'whisper-worker', health: { becomes: 'healthy', afterMs: 100 }, labels: { 'autostart.group': 'asr' } },
        { name: 'broken', health: { becomes: 'unhealthy', afterMs: 1_000 } }, // read starting first, on a busy machine too
        { name: 'stuck', health: { becomes: 'starting' } },
        { name: 'plain', state: 'running' },
        { name: 'napping', state: 'paused' },
        { name: 'gone', state: 'dead' },
      ],
    });
    docker = new DockerProvider({ dockerHost: engine.dockerHost });
  });
  afterEach(() => engine.close());

  it('answers ping', async () => {
    await expect(docker.ping()).resolves.toBeUndefined();
    expect(engine.requests.some((r) => r.path === '/_ping')).toBe(true);
  });

  it('starts a stopped container that becomes healthy after a few seconds: stopped → starting → running', async () => {
    const before = await docker.status('whisper');
    expect(before).toMatchObject({
      provider: 'docker',
      target: 'whisper',
      state: 'stopped',
      health: { status: 'stopped', ready: 0, desired: 1 },
      replicas: { desired: 1, current: 0, ready: 0 },
    });
    expect(before.containers).toEqual([
      expect.objectContaining({ name: 'whisper', image: 'whisper:1', engineState: 'exited', state: 'stopped', exitCode: 0 }),
    ]);

    await docker.start('whisper');
    expect(engine.startCalls('whisper')).toBe(1);
    const starting = await docker.status('whisper');
    expect(starting).toMatchObject({ state: 'starting', health: { status: 'starting', ready: 0 }, replicas: { current: 1, ready: 0 } });
    expect(await docker.health('whisper')).toEqual({ status: 'starting', ready: 0, desired: 1 });

    const running = await until(docker, 'whisper', (s) => s.state !== 'starting');
    expect(running).toMatchObject({ state: 'running', health: { status: 'healthy', ready: 1, desired: 1 }, replicas: { current: 1, ready: 1 } });
    expect(running.containers[0]).toMatchObject({ engineState: 'running', health: 'healthy', exitCode: undefined });
    expect(running.containers[0].startedAt).toEqual(expect.any(String));
  });

  it('reports a container that never becomes healthy as unhealthy, with its health-check output', async () => {
    await docker.start('broken');
    expect((await docker.status('broken')).state).toBe('starting');
    const s = await until(docker, 'broken', (x) => x.state !== 'starting');
    expect(s).toMatchObject({ state: 'unhealthy', health: { status: 'unhealthy', ready: 0 }, message: expect.stringContaining('connection refused') });
    expect(await docker.health('broken')).toMatchObject({ status: 'unhealthy', message: expect.stringContaining('connection refused') });
  });

  it('keeps a container whose check never passes in starting (the caller decides when to give up)', async () => {
    await docker.start('stuck');
    await new Promise((r) => setTimeout(r, 200));
    expect(await docker.status('stuck')).toMatchObject({ state: 'starting', health: { status: 'starting' } });
  });

  it('reports a running container without HEALTHCHECK as running with health none (probe it yourself)', async () => {
    expect(await docker.status('plain')).toMatchObject({ state: 'running', health: { status: 'none', ready: 1, desired: 1 } });
    expect(await docker.health('plain')).toEqual({ status: 'none', ready: 1, desired: 1 });
  });

  it('start is idempotent: a running container is not started again, a 304 from a race is fine', async () => {
    await docker.start('plain');
    expect(engine.startCalls('plain')).toBe(0);
    // Two callers inspect the stopped container at once and both ask to start it: the engine
    // starts it for the first and answers the second 304 (already started), which is no error.
    await expect(Promise.all([docker.start('whisper'), docker.start('whisper')])).resolves.toEqual([undefined, undefined]);
    const starts = engine.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/start'));
    expect(starts.map((r) => r.status)).toEqual([204, 304]);
    expect((await docker.status('whisper')).containers[0].engineState).toBe('running');
  });

  it('resumes a paused container on start', async () => {
    expect((await docker.status('napping')).state).toBe('stopped');
    await docker.start('napping');
    expect(await docker.status('napping')).toMatchObject({ state: 'running', containers: [expect.objectContaining({ engineState: 'running' })] });
    expect(engine.requests.some((r) => r.method === 'POST' && r.path.endsWith('/unpause'))).toBe(true);
  });

  it('reports a dead container as failed', async () => {
    expect(await docker.status('gone')).toMatchObject({ state: 'failed', containers: [expect.objectContaining({ engineState: 'dead' })] });
  });

  it('stops with the given timeout, and a stopped container is not stopped again', async () => {
    await docker.stop('plain', { timeoutSeconds: 3 });
    expect(engine.stopCalls('plain')).toEqual([{ t: 3 }]);
    expect(await docker.status('plain')).toMatchObject({ state: 'stopped', health: { status: 'stopped' } });
    await docker.stop('plain', { timeoutSeconds: 3 });
    expect(engine.stopCalls('plain')).toHaveLength(1);
    await expect(docker.stop('plain', { timeoutSeconds: -1 })).rejects.toThrow(RangeError);
  });

  it('gives a stop its grace period beyond the call timeout: a container ignoring SIGTERM is killed after t', async () => {
    engine.addContainer({ name: 'stubborn', state: 'running', stopsAfterMs: 60_000 });
    // A call timeout shorter than t: without the grace period the stop would give up before the kill.
    const quick = new DockerProvider({ dockerHost: engine.dockerHost, timeoutMs: 500 });
    await quick.stop('stubborn', { timeoutSeconds: 1 });
    expect(await quick.status('stubborn')).toMatchObject({ state: 'stopped', containers: [expect.objectContaining({ exitCode: 137 })] });
  });

  it('sees a crash: a container that exits after start reports stopped with its exit code', async () => {
    await docker.start('whisper-worker');
    engine.exit('whisper-worker', 137);
    expect(await docker.status('whisper-worker')).toMatchObject({
      state: 'stopped',
      containers: [expect.objectContaining({ engineState: 'exited', exitCode: 137, finishedAt: expect.any(String) })],
    });
  });

  it('addresses every container with a label as one workload', async () => {
    const target = 'label=autostart.group=asr';
    expect(await docker.status(target)).toMatchObject({ state: 'stopped', replicas: { desired: 2, current: 0, ready: 0 } });
    await docker.start(target);
    expect(engine.startCalls('whisper')).toBe(1);
    expect(engine.startCalls('whisper-worker')).toBe(1);
    const s = await until(docker, target, (x) => x.state === 'running');
    expect(s.containers.map((c) => c.name)).toEqual(['whisper', 'whisper-worker']);
    expect(s.health).toEqual({ status: 'healthy', ready: 2, desired: 2 });

    await docker.stop(target, { timeoutSeconds: 1 });
    expect(engine.stopCalls('whisper')).toEqual([{ t: 1 }]);
    expect(engine.stopCalls('whisper-worker')).toEqual([{ t: 1 }]);
    expect((await docker.status(target)).state).toBe('stopped');
  });

  it('finds a label by key alone', async () => {
    expect((await docker.status('label=autostart.group')).replicas.desired).toBe(2);
  });

  it('rejects NOT_FOUND for a missing name or a label nobody carries, and starts nothing', async () => {
    for (const target of ['nope', 'label=autostart.group=none']) {
      const calls = [() => docker.status(target), () => docker.start(target), () => docker.stop(target), () => docker.logs(target), () => docker.health(target)];
      for (const call of calls) {
        const err = await rejection(call());
        expect(isContainersError(err, 'NOT_FOUND')).toBe(true);
      }
    }
    const err = (await rejection(docker.status('nope'))) as Error;
    expect(err.message).toContain("No Docker container 'nope' (No such container: nope)");
    expect(engine.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('rejects a malformed target before calling the engine', async () => {
    const before = engine.requests.length;
    for (const target of ['../etc', 'a b', 'label=', 'label==x']) {
      expect(isContainersError(await rejection(docker.status(target)), 'INVALID_TARGET')).toBe(true);
    }
    expect(engine.requests.length).toBe(before);
  });

  it('surfaces an engine failure on start as PROVIDER_ERROR with the engine message, and the next start works', async () => {
    engine.addContainer({ name: 'flaky', failStart: { status: 500, message: 'OCI runtime create failed: exec: "serve": not found' } });
    const err = await rejection(docker.start('flaky'));
    expect(isContainersError(err, 'PROVIDER_ERROR')).toBe(true);
    expect(err).toMatchObject({ status: 500, message: expect.stringContaining('OCI runtime create failed') });
    await docker.start('flaky');
    expect((await docker.status('flaky')).state).toBe('running');
  });

  it('reports an unreachable engine as PROVIDER_ERROR naming the socket', async () => {
    const nowhere = new DockerProvider({ dockerHost: `${engine.dockerHost}.missing` });
    const err = await rejection(nowhere.status('whisper'));
    expect(isContainersError(err, 'PROVIDER_ERROR')).toBe(true);
    expect((err as Error).message).toContain(`${engine.socketPath}.missing`);
    expect((err as Error).message).toContain('is the Docker daemon running');
  });

  it('decodes the multiplexed log stream, keeping stdout and stderr apart and in order', async () => {
    engine.addContainer({
      name: 'chatty',
      logs: [
        { stream: 'stdout', text: 'listening on :8000' },
        { stream: 'stderr', text: 'warning: no GPU, using CPU' },
        { stream: 'stdout', text: 'GET /health 200' },
        { stream: 'stdout', text: 'GET /v1/models 200' },
      ],
    });
    expect(await docker.logs('chatty', { tail: 3 })).toEqual([
      {
        instance: 'chatty',
        lines: [
          { stream: 'stderr', text: 'warning: no GPU, using CPU' },
          { stream: 'stdout', text: 'GET /health 200' },
          { stream: 'stdout', text: 'GET /v1/models 200' },
        ],
      },
    ]);
    const logsRequest = engine.requests.find((r) => r.path.endsWith('/logs'));
    expect(logsRequest?.query).toMatchObject({ stdout: 'true', stderr: 'true', tail: '3' });
    await expect(docker.logs('chatty', { tail: 0 })).rejects.toThrow(RangeError);
  });

  it('reads a TTY container’s raw log stream as it is', async () => {
    engine.addContainer({ name: 'tty', tty: true, logs: [{ stream: 'stdout', text: 'ready' }, { stream: 'stdout', text: '\u0001 odd byte' }] });
    expect(await docker.logs('tty')).toEqual([
      { instance: 'tty', lines: [{ stream: 'stdout', text: 'ready' }, { stream: 'stdout', text: '\u0001 odd byte' }] },
    ]);
  });

  it('gives each line its timestamp and reads only lines after `since`', async () => {
    engine.addContainer({
      name: 'dated',
      logs: [
        { stream: 'stdout', text: 'old', time: new Date('2026-01-01T00:00:00.000Z') },
        { stream: 'stderr', text: 'newer', time: new Date('2026-01-01T00:00:05.250Z') },
      ],
    });
    expect(await docker.logs('dated', { timestamps: true })).toEqual([
      {
        instance: 'dated',
        lines: [
          { stream: 'stdout', text: 'old', timestamp: '2026-01-01T00:00:00.000000000Z' },
          { stream: 'stderr', text: 'newer', timestamp: '2026-01-01T00:00:05.250000000Z' },
        ],
      },
    ]);
    expect(await docker.logs('dated', { since: new Date('2026-01-01T00:00:05.100Z') })).toEqual([{ instance: 'dated', lines: [{ stream: 'stderr', text: 'newer' }] }]);
    expect(engine.requests.filter((r) => r.path.endsWith('/logs')).at(-1)?.query).toMatchObject({ since: '1767225605.100000000' });
  });

  it('follows the logs of a running container line by line until it stops, and resumes `since` the last line seen', async () => {
    engine.addContainer({ name: 'follow-me', state: 'running', logs: [{ stream: 'stdout', text: 'booted' }] });
    const seen: Array<{ instance: string; text: string; stream: string; timestamp?: string }> = [];
    const follower = await docker.followLogs('follow-me', (e) => seen.push({ instance: e.instance, ...e.line }));
    expect(follower.instances).toEqual(['follow-me']);
    const untilSeen = async (n: number) => {
      for (let i = 0; i < 200 && seen.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      expect(seen.length).toBeGreaterThanOrEqual(n);
    };
    await untilSeen(1);
    engine.appendLog('follow-me', 'first request');
    const last = engine.appendLog('follow-me', { stream: 'stderr', text: 'slow query' });
    await untilSeen(3);
    expect(seen.map((l) => [l.stream, l.text])).toEqual([
      ['stdout', 'booted'],
      ['stdout', 'first request'],
      ['stderr', 'slow query'],
    ]);
    expect(seen[2].timestamp).toBe(last);
    expect(engine.logFollowers('follow-me')).toBe(1);
    await docker.stop('follow-me');
    await follower.ended;
    expect(engine.logFollowers('follow-me')).toBe(0);

    // Started again: a new follow from the last timestamp seen gets the lines after it only.
    await docker.start('follow-me');
    engine.appendLog('follow-me', 'after restart');
    const resumed: string[] = [];
    const again = await docker.followLogs('follow-me', (e) => resumed.push(e.line.text), { since: new Date(Date.parse(last) + 1) });
    for (let i = 0; i < 200 && resumed.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect(resumed).toEqual(['after restart']);
    again.close();
    await again.ended;
  });

  it('follows nothing of a stopped container, and rejects NOT_FOUND for an unknown one', async () => {
    const follower = await docker.followLogs('whisper', () => undefined);
    expect(follower.instances).toEqual([]);
    await follower.ended;
    expect(isContainersError(await rejection(docker.followLogs('nope', () => undefined)), 'NOT_FOUND')).toBe(true);
  });
});
