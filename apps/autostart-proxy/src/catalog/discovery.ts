// Services declared by the workloads themselves: Docker container labels or Kubernetes Deployment /
// StatefulSet annotations, `autostart.*`. Plain functions, no I/O: a labelled workload becomes the
// same service a YAML entry describes, checked by the same rules (readService).
//
//   autostart.enable=true               required
//   autostart.name=whisper              default: the container's (or Deployment's) name
//   autostart.hosts=a.example.com,b…     optional: without hosts, reachable through Sablier's API only
//   autostart.mode=dynamic              dynamic (default, as Sablier) | async | blocking
//   autostart.upstream=http://whisper:8000   or autostart.port=8000 (http://<container>:<port>, http://<name>.<namespace>.svc:<port>)
//   autostart.health-check=/health      default /
//   autostart.group, autostart.theme, autostart.display-name
//   autostart.idle-timeout, autostart.estimated-time, autostart.start-timeout, autostart.ready-after,
//   autostart.blocking-timeout, autostart.stop-timeout   seconds, or a Go duration (5m, 90s)
import { parseGoDuration } from './go-duration';
import { readService, type CatalogContext, type ManagedService } from './catalog';

export const DISCOVERY_PREFIX = 'autostart.';
export const ENABLE_LABEL = 'autostart.enable';

/** A labelled workload as the engine lists it. */
export interface LabelledWorkload {
  provider: 'docker' | 'kubernetes';
  /** container name; Deployment / StatefulSet name */
  name: string;
  /** Kubernetes only */
  namespace?: string;
  kind?: 'deployment' | 'statefulset';
  labels: Record<string, string>;
}

const DURATIONS: Record<string, string> = {
  'idle-timeout': 'idleTimeout',
  'estimated-time': 'estimatedTime',
  'start-timeout': 'startTimeout',
  'ready-after': 'readyAfter',
  'blocking-timeout': 'blockingTimeout',
  'stop-timeout': 'stopTimeout',
};

/** Seconds from `90` or a Go duration (`5m`, `1m30s`), rounded up; the text itself when it is neither (readService names it). */
export function labelSeconds(value: string): unknown {
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const ms = parseGoDuration(value.trim());
  return ms === undefined ? value : Math.ceil(ms / 1000);
}

/** The services the workloads declare, and what is wrong with the others (each named by its workload). */
export function servicesFromLabels(
  workloads: readonly LabelledWorkload[],
  idleDefault: number,
  context: CatalogContext,
): { services: ManagedService[]; problems: string[] } {
  const services: ManagedService[] = [];
  const problems: string[] = [];
  const names = new Set<string>();
  for (const w of workloads) {
    const l = w.labels;
    if ((l[ENABLE_LABEL] ?? '').toLowerCase() !== 'true') continue;
    const where = w.provider === 'docker' ? `container ${w.name}` : `${w.kind ?? 'deployment'} ${w.namespace}/${w.name}`;
    const get = (key: string): string | undefined => l[DISCOVERY_PREFIX + key];
    const name = get('name') ?? w.name.toLowerCase();
    const port = get('port');
    let upstream = get('upstream');
    if (!upstream && port) upstream = w.provider === 'docker' ? `http://${w.name}:${port}` : `http://${w.name}.${w.namespace}.svc:${port}`;
    const raw: Record<string, unknown> = {
      name,
      mode: get('mode') ?? 'dynamic',
      upstream,
      provider: w.provider,
      target: w.provider === 'docker' ? w.name : w.kind === 'statefulset' ? `${w.namespace}/statefulset/${w.name}` : `${w.namespace}/${w.name}`,
      healthCheck: get('health-check') ?? '/',
    };
    const hosts = get('hosts');
    if (hosts !== undefined) raw.hosts = hosts.split(',').map((h) => h.trim()).filter(Boolean);
    for (const [label, field] of [['group', 'group'], ['theme', 'theme'], ['display-name', 'displayName']] as const) {
      const value = get(label);
      if (value !== undefined) raw[field] = value;
    }
    for (const [label, field] of Object.entries(DURATIONS)) {
      const value = get(label);
      if (value !== undefined) raw[field] = labelSeconds(value);
    }
    if (!upstream) problems.push(`${where}: autostart.upstream (or autostart.port) is required`);
    const before = problems.length;
    const service = readService(raw, where, idleDefault, problems, context, { requireHosts: false });
    if (!service || problems.length > before) continue;
    if (names.has(service.name)) {
      problems.push(`${where}: the name ${service.name} is declared twice`);
      continue;
    }
    names.add(service.name);
    services.push({ ...service, source: w.provider });
  }
  return { services, problems };
}

/**
 * The file's services and the discovered ones: the file wins on conflict (a discovered service whose
 * name or one of whose hosts the file already uses is left out, and named in `dropped`).
 */
export function mergeServices(file: readonly ManagedService[], discovered: readonly ManagedService[]): { services: ManagedService[]; dropped: string[] } {
  const names = new Set(file.map((s) => s.name));
  const hosts = new Set(file.flatMap((s) => s.hosts));
  const services = [...file];
  const dropped: string[] = [];
  for (const s of discovered) {
    const clash = names.has(s.name) ? `name ${s.name}` : s.hosts.find((h) => hosts.has(h));
    if (clash) {
      dropped.push(`${s.name} (${s.source}): ${names.has(s.name) ? clash : `host ${clash}`} is already in AUTOSTART_CONFIG, which wins`);
      continue;
    }
    names.add(s.name);
    for (const h of s.hosts) hosts.add(h);
    services.push(s);
  }
  return { services, dropped };
}
