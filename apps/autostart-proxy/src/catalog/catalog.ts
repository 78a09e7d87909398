// The managed services, as the YAML file named by AUTOSTART_CONFIG describes them: parsed and checked
// by plain functions (no I/O), so that a bad file is refused with every problem named.
//
//   idleTimeout: 1800                 # seconds, default 1800
//   services:
//     - name: whisper
//       hosts: [whisper.example.com]  # matched against X-Autostart-Target or Host
//       mode: async                   # async | dynamic | blocking
//       theme: hacker-terminal        # dynamic only
//       displayName: Whisper          # optional: the waiting page's title (default: name)
//       group: ml                     # optional: started and stopped with the other services of the group
//       readyAfter: 5                 # optional: seconds to wait once healthy before it counts as ready
//       blockingTimeout: 60           # blocking only: how long a request waits for the start
//       upstream: http://whisper:8000
//       provider: docker              # docker | kubernetes
//       target: whisper               # container name (or label=k=v), or namespace/deployment
//       healthCheck: /health
//       estimatedTime: 30             # optional; default by name (ESTIMATED_TIMES)
//       idleTimeout: 1800             # optional, per service
//       startTimeout: 120             # optional
import { parse as parseYaml } from 'yaml';
import { THEMES, type ThemeName } from '../waiting/themes';

export type ServiceMode = 'dynamic' | 'async' | 'blocking';
export type ProviderKind = 'docker' | 'kubernetes';

export interface ManagedService {
  readonly name: string;
  /** lower case, without port */
  readonly hosts: readonly string[];
  readonly mode: ServiceMode;
  readonly theme: ThemeName;
  readonly upstream: URL;
  readonly provider: ProviderKind;
  readonly target: string;
  /** path (with query) on the upstream; ready when it answers 2xx */
  readonly healthCheck: string;
  /** seconds */
  readonly estimatedTime: number;
  /** seconds without requests before it is stopped */
  readonly idleTimeout: number;
  /** seconds a start may take before it counts as failed */
  readonly startTimeout: number;
  /** seconds Docker waits after SIGTERM on stop (default: the container's own) */
  readonly stopTimeout?: number;
  /** the waiting page's title (Sablier's display_name); default the name */
  readonly displayName: string;
  /** the named group it belongs to: the group's services are started together, and a request waits for all of them */
  readonly group?: string;
  /** seconds to wait after it first answers healthy before it counts as ready (Sablier's ready-after) */
  readonly readyAfter: number;
  /** blocking mode: seconds a request waits for the start before it is answered 504 */
  readonly blockingTimeout: number;
  /** where it was declared: the YAML file, or discovered from labels (docker) / annotations (kubernetes) */
  readonly source: 'file' | 'docker' | 'kubernetes';
}

export interface Catalog {
  readonly idleTimeout: number;
  readonly services: readonly ManagedService[];
  /** hostname → service */
  readonly byHost: ReadonlyMap<string, ManagedService>;
  readonly byName: ReadonlyMap<string, ManagedService>;
  /** group name → its services, in catalog order */
  readonly groups: ReadonlyMap<string, readonly ManagedService[]>;
}

/** The spec's startup estimates (seconds) by service name. */
export const ESTIMATED_TIMES: Readonly<Record<string, number>> = {
  whisper: 30,
  whisperx: 30,
  tika: 20,
  wordpress: 25,
  strapi: 20,
  streamlit: 15,
  dashy: 10,
  mkdocs: 5,
  nextcloud: 20,
  memvid: 15,
  ragflow: 45,
  'rag-anything': 20,
};
export const DEFAULT_ESTIMATED_TIME = 30;
export const DEFAULT_IDLE_TIMEOUT = 1800;
export const DEFAULT_START_TIMEOUT = 120;
export const DEFAULT_THEME: ThemeName = 'hacker-terminal';
export const DEFAULT_BLOCKING_TIMEOUT = 60;

/** What a catalog is checked against besides itself: the theme names that exist (built in and custom). */
export interface CatalogContext {
  themes: ReadonlySet<string>;
}

const BUILT_IN: CatalogContext = { themes: new Set(Object.keys(THEMES)) };

export class CatalogError extends Error {
  constructor(readonly problems: string[], source: string) {
    super(`${source} is invalid:\n  ${problems.join('\n  ')}`);
    this.name = 'CatalogError';
  }
}

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const HOST = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** 'Whisper.Example.com:443' → 'whisper.example.com'; an IPv6 literal keeps its brackets. */
export function normalizeHost(value: string): string {
  const v = value.trim().toLowerCase();
  if (v.startsWith('[')) {
    const end = v.indexOf(']');
    return end > 0 ? v.slice(0, end + 1) : v;
  }
  const colon = v.indexOf(':');
  const host = colon >= 0 ? v.slice(0, colon) : v;
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** Parses the YAML text; throws CatalogError naming every problem. `source` names the file in messages. */
export function parseCatalog(text: string, source = 'AUTOSTART_CONFIG', context: CatalogContext = BUILT_IN): Catalog {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new CatalogError([`not valid YAML: ${(err as Error).message}`], source);
  }
  return buildCatalog(doc, source, context);
}

export function buildCatalog(doc: unknown, source = 'AUTOSTART_CONFIG', context: CatalogContext = BUILT_IN): Catalog {
  const problems: string[] = [];
  if (!isObject(doc)) throw new CatalogError(['must be a mapping with `services:` (a list) and optionally `idleTimeout:`'], source);
  const idleTimeout = seconds(doc.idleTimeout, 'idleTimeout', DEFAULT_IDLE_TIMEOUT, problems);
  const list = doc.services;
  if (!Array.isArray(list)) {
    problems.push('services: must be a list of services (each with name, hosts, mode, upstream, provider, target, healthCheck)');
    throw new CatalogError(problems, source);
  }
  const services: ManagedService[] = [];
  const byHost = new Map<string, ManagedService>();
  const byName = new Map<string, ManagedService>();
  list.forEach((raw, index) => {
    const where = `services[${index}]${isObject(raw) && typeof raw.name === 'string' ? ` (${raw.name})` : ''}`;
    const before = problems.length;
    const service = readService(raw, where, idleTimeout, problems, context);
    if (!service || problems.length > before) return;
    if (byName.has(service.name)) problems.push(`${where}.name: ${service.name} is listed twice`);
    for (const host of service.hosts) {
      const other = byHost.get(host);
      if (other) problems.push(`${where}.hosts: ${host} is already served by ${other.name}`);
    }
    services.push(service);
    byName.set(service.name, service);
    for (const host of service.hosts) if (!byHost.has(host)) byHost.set(host, service);
  });
  if (problems.length > 0) throw new CatalogError(problems, source);
  return indexCatalog(idleTimeout, services);
}

/** The lookups of a list of services already checked (hosts and names unique). */
export function indexCatalog(idleTimeout: number, services: readonly ManagedService[]): Catalog {
  const byHost = new Map<string, ManagedService>();
  const byName = new Map<string, ManagedService>();
  const groups = new Map<string, ManagedService[]>();
  for (const service of services) {
    byName.set(service.name, service);
    for (const host of service.hosts) if (!byHost.has(host)) byHost.set(host, service);
    if (service.group) groups.set(service.group, [...(groups.get(service.group) ?? []), service]);
  }
  return { idleTimeout, services, byHost, byName, groups };
}

export function readService(
  raw: unknown,
  where: string,
  idleDefault: number,
  problems: string[],
  context: CatalogContext = BUILT_IN,
  opts: { requireHosts?: boolean } = {},
): ManagedService | undefined {
  if (!isObject(raw)) {
    problems.push(`${where}: must be a mapping`);
    return undefined;
  }
  const name = typeof raw.name === 'string' ? raw.name.trim() : '';
  if (!NAME.test(name)) problems.push(`${where}.name: required, lower-case letters, digits and dashes (e.g. whisper)`);

  const hostsRaw = typeof raw.hosts === 'string' ? [raw.hosts] : raw.hosts;
  const hosts: string[] = [];
  if (hostsRaw === undefined && opts.requireHosts === false) {
    // discovered: reachable through Sablier's API only, until it names hosts
  } else if (!Array.isArray(hostsRaw) || hostsRaw.length === 0) {
    problems.push(`${where}.hosts: required, a list of hostnames (e.g. [whisper.example.com])`);
  } else {
    for (const h of hostsRaw) {
      const host = typeof h === 'string' ? normalizeHost(h) : '';
      if (!HOST.test(host)) problems.push(`${where}.hosts: "${String(h)}" is not a hostname`);
      else if (!hosts.includes(host)) hosts.push(host);
    }
  }

  const mode = raw.mode;
  if (mode !== 'dynamic' && mode !== 'async' && mode !== 'blocking') {
    problems.push(`${where}.mode: must be dynamic (web pages, waiting page), async (APIs, 202) or blocking (the request waits for the start)`);
  }

  let theme: ThemeName = DEFAULT_THEME;
  if (raw.theme !== undefined) {
    if (typeof raw.theme === 'string' && context.themes.has(raw.theme)) theme = raw.theme as ThemeName;
    else problems.push(`${where}.theme: unknown theme "${String(raw.theme)}"; known: ${[...context.themes].join(', ')}`);
  }
  let displayName = name;
  if (raw.displayName !== undefined) {
    if (typeof raw.displayName === 'string' && raw.displayName.trim() && raw.displayName.length <= 200) displayName = raw.displayName.trim();
    else problems.push(`${where}.displayName: a non-empty text of at most 200 characters`);
  }
  let group: string | undefined;
  if (raw.group !== undefined) {
    if (typeof raw.group === 'string' && NAME.test(raw.group)) group = raw.group;
    else problems.push(`${where}.group: lower-case letters, digits and dashes (e.g. ml)`);
  }

  let upstream: URL | undefined;
  if (typeof raw.upstream !== 'string') {
    problems.push(`${where}.upstream: required, the service's origin (e.g. http://whisper:8000)`);
  } else {
    try {
      upstream = new URL(raw.upstream);
      if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error('protocol');
      if ((upstream.pathname !== '/' && upstream.pathname !== '') || upstream.search || upstream.hash || upstream.username || upstream.password) {
        problems.push(`${where}.upstream: an origin only, without path, query or credentials (got "${raw.upstream}")`);
      }
    } catch {
      problems.push(`${where}.upstream: must be an absolute http(s) URL such as http://whisper:8000 (got "${raw.upstream}")`);
    }
  }

  const provider = raw.provider;
  if (provider !== 'docker' && provider !== 'kubernetes') problems.push(`${where}.provider: must be docker or kubernetes`);
  const target = typeof raw.target === 'string' ? raw.target.trim() : '';
  if (!target) {
    problems.push(`${where}.target: required: a container name (or label=key=value) for docker, namespace/deployment for kubernetes`);
  } else if (provider === 'kubernetes' && !/^[a-z0-9-]+\/([a-z]+\/)?[a-z0-9.-]+$/.test(target)) {
    problems.push(`${where}.target: for kubernetes, namespace/deployment or namespace/statefulset/name (got "${target}")`);
  }

  const healthCheck = typeof raw.healthCheck === 'string' ? raw.healthCheck.trim() : '';
  if (!healthCheck.startsWith('/')) problems.push(`${where}.healthCheck: required, a path on the upstream starting with / (e.g. /health)`);

  const estimatedTime = seconds(raw.estimatedTime, `${where}.estimatedTime`, ESTIMATED_TIMES[name] ?? DEFAULT_ESTIMATED_TIME, problems);
  const idleTimeout = seconds(raw.idleTimeout, `${where}.idleTimeout`, idleDefault, problems);
  const startTimeout = seconds(raw.startTimeout, `${where}.startTimeout`, DEFAULT_START_TIMEOUT, problems);
  const stopTimeout = raw.stopTimeout === undefined ? undefined : seconds(raw.stopTimeout, `${where}.stopTimeout`, 10, problems);
  const readyAfter = raw.readyAfter === 0 ? 0 : seconds(raw.readyAfter, `${where}.readyAfter`, 0, problems);
  const blockingTimeout = seconds(raw.blockingTimeout, `${where}.blockingTimeout`, DEFAULT_BLOCKING_TIMEOUT, problems);

  if (!upstream || (mode !== 'dynamic' && mode !== 'async' && mode !== 'blocking') || (provider !== 'docker' && provider !== 'kubernetes')) return undefined;
  return {
    name, hosts, mode, theme, upstream, provider, target, healthCheck, estimatedTime, idleTimeout, startTimeout, stopTimeout,
    displayName, group, readyAfter, blockingTimeout, source: 'file',
  };
}

/** A duration: any positive integer of seconds. */
function seconds(value: unknown, field: string, fallback: number, problems: string[]): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  problems.push(`${field}: must be a positive whole number of seconds (got ${JSON.stringify(value)})`);
  return fallback;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
