import { isContainersError } from '../provider';
import { DEFAULT_DOCKER_HOST, parseDockerHost } from './docker-host';
import { thrown } from '../test/helpers';

describe('parseDockerHost', () => {
  it.each([
    [undefined, { kind: 'unix', socketPath: '/var/run/docker.sock' }],
    ['', { kind: 'unix', socketPath: '/var/run/docker.sock' }],
    ['  ', { kind: 'unix', socketPath: '/var/run/docker.sock' }],
    [DEFAULT_DOCKER_HOST, { kind: 'unix', socketPath: '/var/run/docker.sock' }],
    ['unix:///run/user/1000/docker.sock', { kind: 'unix', socketPath: '/run/user/1000/docker.sock' }],
    ['UNIX:///tmp/d.sock', { kind: 'unix', socketPath: '/tmp/d.sock' }],
    ['tcp://10.0.0.5:2375', { kind: 'tcp', host: '10.0.0.5', port: 2375 }],
    ['tcp://docker:2376/', { kind: 'tcp', host: 'docker', port: 2376 }],
    ['tcp://docker', { kind: 'tcp', host: 'docker', port: 2375 }],
    ['tcp://[::1]:2375', { kind: 'tcp', host: '::1', port: 2375 }],
  ])('%p → %p', (value, expected) => {
    expect(parseDockerHost(value)).toEqual(expected);
  });

  it.each([
    ['/var/run/docker.sock', /scheme is missing.*unix:\/\/\/path\/to\/docker.sock or tcp:\/\/host:port/],
    ['unix://var/run/docker.sock', /must be absolute/],
    ['unix://', /must be absolute/],
    ['unix:///', /must be absolute/],
    ['tcp://', /not a valid tcp URL|host is missing/],
    ['tcp://host:99999', /not a valid tcp URL/],
    ['tcp://host:2375/v1.43', /has no path/],
    ['tcp://user:pw@host:2375', /no credentials/],
    ['ssh://me@host', /ssh:\/\/ scheme is not supported/],
    ['npipe:////./pipe/docker_engine', /npipe:\/\/ scheme is not supported/],
    ['http://host:2375', /http:\/\/ scheme is not supported/],
  ])('refuses %p', (value, message) => {
    const error = thrown(() => parseDockerHost(value));
    expect(isContainersError(error, 'INVALID_CONFIG')).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(`DOCKER_HOST '${value}'`);
  });
});
