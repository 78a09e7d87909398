// The gateway's routing: which prefix reaches which service, and how a request path is rewritten.
// Plain functions (no I/O) so they are cheap on the hot path and easy to test. The services and the
// names of their upstream variables come from the registry of services (@platform/registry).
import { SERVICES_BEHIND_GATEWAY, upstreamEnvName, type ServiceBehindGateway } from '@platform/registry';

export interface Route extends ServiceBehindGateway {
  /** upstream origin, e.g. http://127.0.0.1:3004 (no trailing slash) */
  readonly upstream: URL;
}

export interface RouteMatch {
  readonly route: Route;
  /** the path and query string to send upstream: the request URL without the prefix, '/' at least */
  readonly path: string;
}

/** The default upstream of a service: loopback on its standard port. */
export function defaultUpstream(service: ServiceBehindGateway): string {
  return `http://127.0.0.1:${service.port}`;
}

/**
 * Builds the route table from the upstream URLs (keyed by service name; a missing one falls back to
 * the default). Throws on a URL that is not http(s) or carries a path, query or credentials.
 */
export function buildRouteTable(
  upstreams: Readonly<Record<string, string | undefined>>,
  services: readonly ServiceBehindGateway[] = SERVICES_BEHIND_GATEWAY,
): RouteTable {
  const routes = services.map((service) => {
    const raw = upstreams[service.name] ?? defaultUpstream(service);
    return { ...service, upstream: parseUpstream(service, raw) };
  });
  return new RouteTable(routes);
}

function parseUpstream(service: ServiceBehindGateway, raw: string): URL {
  const variable = upstreamEnvName(service.name);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${variable} must be an absolute http(s) URL such as ${defaultUpstream(service)} (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${variable} must use http or https (got "${url.protocol}")`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    throw new Error(`${variable} must be an origin only, without path, query or credentials (got "${raw}")`);
  }
  return url;
}

export class RouteTable {
  private readonly byFirstSegment: Map<string, Route>;

  constructor(readonly routes: readonly Route[]) {
    this.byFirstSegment = new Map(routes.map((r) => [r.prefix.slice(1), r]));
  }

  get prefixes(): string[] {
    return this.routes.map((r) => r.prefix);
  }

  /**
   * Matches a request URL (path and query as received) against the prefixes. Only whole first path
   * segments match: '/auth/x' and '/auth?y' go to auth-api, '/authx' goes nowhere.
   */
  match(url: string): RouteMatch | undefined {
    if (url.charCodeAt(0) !== 47 /* '/' */) return undefined;
    let end = 1;
    while (end < url.length) {
      const c = url.charCodeAt(end);
      if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) break;
      end++;
    }
    const route = this.byFirstSegment.get(url.slice(1, end));
    if (!route) return undefined;
    const rest = url.slice(end);
    let path: string;
    if (rest === '') path = '/';
    else if (rest.charCodeAt(0) === 47) path = rest;
    else path = `/${rest}`;
    return { route, path };
  }
}
