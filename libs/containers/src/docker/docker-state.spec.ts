import { isContainersError } from '../provider';
import { describeContainer, parseDockerTarget, summarizeContainers, type InspectedContainer } from './docker-state';
import { thrown } from '../test/helpers';

const container = (status: string, health?: string, extra: Partial<InspectedContainer['State']> = {}): InspectedContainer => ({
  Id: 'abc',
  Name: '/svc',
  Config: { Image: 'svc:1' },
  State: { Status: status, ExitCode: 0, ...(health ? { Health: { Status: health } } : {}), ...extra },
});

describe('parseDockerTarget', () => {
  it.each([
    ['whisper', { kind: 'name', name: 'whisper' }],
    ['/whisper', { kind: 'name', name: 'whisper' }],
    ['my_app.web-1', { kind: 'name', name: 'my_app.web-1' }],
    ['label=com.docker.compose.project=whisper', { kind: 'label', label: 'com.docker.compose.project=whisper' }],
    ['label=autostart', { kind: 'label', label: 'autostart' }],
    ['label=a=b=c', { kind: 'label', label: 'a=b=c' }],
  ])('%p', (target, expected) => expect(parseDockerTarget(target)).toEqual(expected));

  it.each(['', '-x', 'a/b', '../x', 'a b', 'label=', 'label==v', 'label=a b=c'])('refuses %p', (target) => {
    const error = thrown(() => parseDockerTarget(target));
    expect(isContainersError(error, 'INVALID_TARGET')).toBe(true);
  });
});

describe('describeContainer', () => {
  it.each([
    ['running', undefined, 'running', 'none'],
    ['running', 'healthy', 'running', 'healthy'],
    ['running', 'starting', 'starting', 'starting'],
    ['running', 'unhealthy', 'unhealthy', 'unhealthy'],
    ['created', undefined, 'starting', 'starting'],
    ['restarting', undefined, 'starting', 'starting'],
    ['paused', 'healthy', 'stopped', 'stopped'],
    ['exited', 'unhealthy', 'stopped', 'stopped'],
    ['dead', undefined, 'failed', 'stopped'],
    ['removing', undefined, 'failed', 'stopped'],
  ])('%s with health %p → %s, %s', (status, health, state, healthStatus) => {
    expect(describeContainer(container(status, health))).toMatchObject({ engineState: status, state, health: healthStatus, name: 'svc', image: 'svc:1' });
  });

  it('keeps the exit code and times of a stopped container, dropping Docker’s zero time', () => {
    const c = describeContainer(container('exited', undefined, { ExitCode: 137, StartedAt: '2026-01-01T00:00:00Z', FinishedAt: '0001-01-01T00:00:00Z' }));
    expect(c).toMatchObject({ exitCode: 137, startedAt: '2026-01-01T00:00:00Z', finishedAt: undefined });
  });
});

describe('summarizeContainers', () => {
  const d = (status: string, health?: string) => describeContainer(container(status, health));

  it.each([
    [[d('running', 'healthy'), d('running')], 'running', 'none', 2],
    [[d('running', 'healthy'), d('running', 'healthy')], 'running', 'healthy', 2],
    [[d('running', 'healthy'), d('running', 'starting')], 'starting', 'starting', 1],
    [[d('running', 'healthy'), d('exited')], 'stopped', 'stopped', 1],
    [[d('exited'), d('running', 'unhealthy')], 'unhealthy', 'unhealthy', 0],
    [[d('dead'), d('running', 'unhealthy')], 'failed', 'unhealthy', 0],
  ])('%#: → %s, health %s, %i ready', (containers, state, health, ready) => {
    const s = summarizeContainers(containers);
    expect(s).toMatchObject({ state, health: { status: health, ready, desired: 2 }, replicas: { desired: 2, ready } });
  });
});
