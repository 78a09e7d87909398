import { ContainersError } from '../provider';

/** Where the Docker Engine API listens, from `DOCKER_HOST` in Docker's own URL format. */
export type DockerEndpoint =
  | { kind: 'unix'; socketPath: string }
  | { kind: 'tcp'; host: string; port: number };

export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

/** Docker's plain-text port; `tcp://host` without a port uses it, as the Docker CLI does (2376 with TLS). */
const DEFAULT_TCP_PORT = 2375;
const DEFAULT_TLS_PORT = 2376;

const EXPECTED = 'expected unix:///path/to/docker.sock or tcp://host:port';

/**
 * Parses `DOCKER_HOST` (`unix:///var/run/docker.sock`, `tcp://10.0.0.5:2375`, `tcp://[::1]:2375`).
 * Unset or empty → the default socket. Anything else (ssh://, npipe://, http://, a bare path,
 * a path after the tcp port) throws `ContainersError('INVALID_CONFIG')` saying what was expected.
 */
export function parseDockerHost(value?: string, opts: { tls?: boolean } = {}): DockerEndpoint {
  const raw = (value ?? '').trim() || DEFAULT_DOCKER_HOST;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(raw)?.[1]?.toLowerCase();
  if (scheme === 'unix') {
    const socketPath = raw.slice('unix://'.length);
    if (!socketPath.startsWith('/') || socketPath.length < 2) {
      throw invalid(raw, 'the socket path must be absolute (unix:///var/run/docker.sock has three slashes)');
    }
    return { kind: 'unix', socketPath };
  }
  if (scheme === 'tcp') {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalid(raw, 'not a valid tcp URL');
    }
    if (!url.hostname) throw invalid(raw, 'the host is missing');
    if (url.pathname !== '' && url.pathname !== '/') throw invalid(raw, 'a tcp address has no path');
    if (url.username || url.password || url.search || url.hash) {
      throw invalid(raw, 'a tcp address has no credentials, query or fragment');
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    return { kind: 'tcp', host, port: url.port ? Number(url.port) : opts.tls ? DEFAULT_TLS_PORT : DEFAULT_TCP_PORT };
  }
  const why = scheme ? `the ${scheme}:// scheme is not supported` : 'a scheme is missing';
  throw invalid(raw, why);
}

function invalid(raw: string, why: string): ContainersError {
  return new ContainersError('INVALID_CONFIG', `DOCKER_HOST '${raw}' is not usable: ${why}; ${EXPECTED}`);
}
