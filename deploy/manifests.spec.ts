// Invariants of the deployment files: every app directory under apps/ has its Kubernetes
// manifests, its compose services and an image recipe, and they agree with the registry (services.json).
import { upstreamEnvName, type RegisteredService } from '@platform/registry';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** A line of services.json (deploy/apps.cjs reads and validates the file; the type is the registry lib's). */
type AppEntry = RegisteredService;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { APPS } = require('./apps.cjs') as { APPS: AppEntry[] };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { render } = require('./generate.cjs') as { render: () => Record<string, string> };

type K8s = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> }; [k: string]: any };

const root = path.resolve(__dirname, '..');
const k8s = path.join(__dirname, 'k8s');
const read = (file: string) => fs.readFileSync(file, 'utf8');
const parseYaml = (file: string): any[] =>
  parseAllDocuments(read(file)).map((d) => {
    if (d.errors.length) throw new Error(`${path.relative(root, file)}: ${d.errors[0].message}`);
    return d.toJS();
  });

function yamlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/.test(e.name) ? [full] : [];
  });
}

/** Directories under apps/ that are apps (have a project.json or a src/ folder). */
const appDirs = fs.existsSync(path.join(root, 'apps'))
  ? fs
      .readdirSync(path.join(root, 'apps'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .filter((n) => ['project.json', 'src'].some((f) => fs.existsSync(path.join(root, 'apps', n, f))))
  : [];
/** Every app that exists has manifests; the table's apps that do not exist yet have none (checked below). */
const appNames = [...appDirs].sort();
/** The table's entries of the apps that exist. */
const DEPLOYED = APPS.filter((a) => appDirs.includes(a.name));
const entryOf = (name: string): AppEntry => {
  const entry = APPS.find((a) => a.name === name);
  if (!entry) throw new Error(`apps/${name} has no entry in services.json: add it and run node deploy/generate.cjs`);
  return entry;
};

/** Every Kubernetes object of one base app directory. */
function objectsOf(name: string): K8s[] {
  const dir = path.join(k8s, 'base', name);
  if (!fs.existsSync(dir)) throw new Error(`deploy/k8s/base/${name}/ is missing: add apps/${name} to services.json and run node deploy/generate.cjs`);
  return yamlFiles(dir)
    .filter((f) => path.basename(f) !== 'kustomization.yaml')
    .flatMap(parseYaml);
}
const find = (objs: K8s[], kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name);
const subset = (small: Record<string, string>, big: Record<string, string>) =>
  Object.entries(small).every(([k, v]) => big?.[k] === v);

function expectHardenedPod(podSpec: any, name: string, dataDir: string) {
  expect(podSpec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
  const c = podSpec.containers[0];
  expect(c.image).toBe(`platform/${name}`);
  expect(c.command).toEqual(['node', `dist/apps/${name}/main.js`]);
  expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
  expect(c.securityContext.capabilities.drop).toContain('ALL');
  expect(c.securityContext.runAsUser ?? podSpec.securityContext.runAsUser).toBe(10001);
  for (const res of ['requests', 'limits']) {
    expect(c.resources?.[res]).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
  }
  // Writable places on a read-only root: /tmp and DATA_DIR, both emptyDir volumes.
  const emptyDirs = new Set((podSpec.volumes ?? []).filter((v: any) => v.emptyDir).map((v: any) => v.name));
  for (const mountPath of ['/tmp', dataDir]) {
    const mount = (c.volumeMounts ?? []).find((m: any) => m.mountPath === mountPath);
    expect({ mountPath, volume: mount && emptyDirs.has(mount.name) }).toEqual({ mountPath, volume: true });
  }
  // Configuration from the app's ConfigMap and Secret.
  expect(c.envFrom).toEqual(
    expect.arrayContaining([
      { configMapRef: { name: `${name}-config` } },
      { secretRef: expect.objectContaining({ name: `${name}-secrets` }) },
    ]),
  );
  return c;
}

describe.each(appNames)('deployment of %s', (name) => {
  const objs = () => objectsOf(name);

  it('is in the app table with the port and database the app itself declares', () => {
    const entry = entryOf(name);
    const serviceFile = path.join(root, 'apps', name, 'src', 'service.ts');
    if (!fs.existsSync(serviceFile)) return;
    const source = read(serviceFile);
    const port = /\bport:\s*(\d+)/.exec(source);
    const schema = /\bschema:\s*'([^']+)'/.exec(source);
    if (port) expect(entry.port).toBe(Number(port[1]));
    if (schema) expect(entry.database).toBe(schema[1]);
  });

  it('has a hardened Deployment with probes, resources and config from its ConfigMap and Secret', () => {
    const entry = entryOf(name);
    const all = objs();
    const deployment = find(all, 'Deployment', name);
    expect(deployment).toBeDefined();
    const configMap = find(all, 'ConfigMap', `${name}-config`);
    expect(configMap?.data.PORT).toBe(String(entry.port));
    const dataDir = configMap?.data.DATA_DIR;
    expect(dataDir).toMatch(/^\//);
    const pod = deployment!.spec.template.spec;
    expect(subset(deployment!.spec.selector.matchLabels, deployment!.spec.template.metadata.labels)).toBe(true);
    const c = expectHardenedPod(pod, name, dataDir);
    const httpPort = c.ports.find((p: any) => p.name === 'http');
    expect(httpPort.containerPort).toBe(entry.port);
    const portOk = (p: unknown) => p === 'http' || p === entry.port;
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.startupProbe.httpGet.path).toBe('/healthz');
    for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) expect(portOk(probe.httpGet.port)).toBe(true);
  });

  it('has a Service selecting its pods on the app port', () => {
    const entry = entryOf(name);
    const all = objs();
    const deployment = find(all, 'Deployment', name)!;
    const svc = find(all, 'Service', name);
    expect(svc).toBeDefined();
    expect(Object.keys(svc!.spec.selector).length).toBeGreaterThan(0);
    expect(subset(svc!.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
    // …and no other Deployment's pods (the transcribe worker has no HTTP API to serve).
    for (const other of all.filter((o) => o.kind === 'Deployment' && o.metadata.name !== name)) {
      expect(subset(svc!.spec.selector, other.spec.template.metadata.labels)).toBe(false);
    }
    expect(svc!.spec.ports[0]).toMatchObject({ port: entry.port, targetPort: 'http' });
  });

  it('is autoscaled by CPU when it is a stateless API, and not otherwise', () => {
    const entry = entryOf(name);
    const hpas = objs().filter((o) => o.kind === 'HorizontalPodAutoscaler');
    if (!entry.hpa) {
      expect(hpas).toEqual([]);
      return;
    }
    expect(hpas).toHaveLength(1);
    expect(hpas[0].apiVersion).toBe('autoscaling/v2');
    expect(hpas[0].spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
    expect(hpas[0].spec.metrics).toEqual(expect.arrayContaining([expect.objectContaining({ resource: expect.objectContaining({ name: 'cpu' }) })]));
    expect(find(objs(), 'Deployment', name)!.spec.replicas).toBeUndefined();
  });

  it('runs its migrations in a Job when it owns a database', () => {
    const entry = entryOf(name);
    const jobs = objs().filter((o) => o.kind === 'Job');
    if (!entry.database) {
      expect(jobs).toEqual([]);
      return;
    }
    const job = find(objs(), 'Job', `${name}-migrate`);
    expect(job).toBeDefined();
    const pod = job!.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    const c = expectHardenedPod(pod, name, '/data');
    expect(c.args).toEqual(['migrate']);
    expect(find(objs(), 'ConfigMap', `${name}-config`)!.data.DB_MIGRATE_ON_START).toBe('false');
  });

  it('lists exactly its manifest files in its kustomization', () => {
    const dir = path.join(k8s, 'base', name);
    const [kustomization] = parseYaml(path.join(dir, 'kustomization.yaml'));
    const files = fs.readdirSync(dir).filter((f) => f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    const [base] = parseYaml(path.join(k8s, 'base', 'kustomization.yaml'));
    expect(base.resources).toContain(name);
  });

  it('is built and run by docker compose', () => {
    const entry = entryOf(name);
    const compose = parseYaml(path.join(root, 'docker', 'compose.yml'))[0];
    const svc = compose.services[name];
    expect(svc).toBeDefined();
    expect(svc.build).toMatchObject({ context: '..', dockerfile: 'docker/Dockerfile', args: { APP: name } });
    expect(svc.environment).toMatchObject({ AMQP_URL: expect.stringMatching(/^amqp:\/\//), REDIS_URL: expect.stringMatching(/^redis:\/\//) });
    for (const dep of Object.keys(svc.depends_on)) expect(compose.services[dep]).toBeDefined();
    if (entry.database) {
      expect(svc.environment.DATABASE_URL).toBe(`postgres://platform:platform@postgres:5432/${entry.database}`);
      const migrate = compose.services[`${name}-migrate`];
      expect([...migrate.entrypoint, ...migrate.command]).toEqual(['node', `dist/apps/${name}/main.js`, 'migrate']);
      expect(svc.depends_on[`${name}-migrate`]).toEqual({ condition: 'service_completed_successfully' });
      expect(svc.depends_on.postgres).toEqual({ condition: 'service_healthy' });
      expect(read(path.join(root, 'docker', 'postgres', 'init-databases.sql'))).toContain(`CREATE DATABASE ${entry.database};`);
    }
  });
});

describe('cross-app manifests', () => {
  it('routes the Ingress to the gateway Service', () => {
    const ingress = find(objectsOf('gateway'), 'Ingress', 'gateway');
    expect(ingress).toBeDefined();
    const backends = ingress!.spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => ({ path: p.path, backend: p.backend.service })));
    expect(backends).toContainEqual({ path: '/', backend: { name: 'gateway', port: { name: 'http' } } });
  });

  it('points the gateway at every deployed service, in the variables the gateway reads (upstreamEnvName)', () => {
    const data = find(objectsOf('gateway'), 'ConfigMap', 'gateway-config')!.data;
    const environment = parseYaml(path.join(root, 'docker', 'compose.yml'))[0].services.gateway.environment;
    const upstreams = (vars: Record<string, string>) => Object.fromEntries(Object.entries(vars).filter(([name]) => name.startsWith('GATEWAY_UPSTREAM_')));
    const expected = Object.fromEntries(DEPLOYED.filter((a) => a.name !== 'gateway').map((app) => [upstreamEnvName(app.name), `http://${app.name}:${app.port}`]));
    expect(upstreams(data)).toEqual(expected);
    expect(upstreams(environment)).toEqual(expected);
  });

  it('runs the transcription workers as their own Deployment', () => {
    const worker = find(objectsOf('transcribe-api'), 'Deployment', 'transcribe-api-worker');
    expect(worker).toBeDefined();
    const c = expectHardenedPod(worker!.spec.template.spec, 'transcribe-api', '/data');
    expect(c.env).toContainEqual({ name: 'TRANSCRIBE_ROLE', value: 'worker' });
    const api = find(objectsOf('transcribe-api'), 'Deployment', 'transcribe-api')!;
    expect(api.spec.template.spec.containers[0].env).toContainEqual({ name: 'TRANSCRIBE_ROLE', value: 'api' });
  });

  it('gives an app with named workloads a Role that scales those only, and mounts its operator-provided ConfigMaps', () => {
    for (const app of DEPLOYED.filter((a) => typeof a.rbac === 'object')) {
      const named = app.rbac as { deployments?: string[]; statefulsets?: string[]; logs?: boolean };
      const role = find(objectsOf(app.name), 'Role', `${app.name}-workloads`)!;
      const workloadRules = role.rules.filter((r: any) => r.apiGroups.includes('apps'));
      for (const rule of workloadRules) {
        expect(rule.verbs).toEqual(['get', 'patch']);
        expect(rule.resourceNames).toEqual(expect.arrayContaining([expect.any(String)]));
      }
      const deploymentsRule = role.rules.find((r: any) => r.resources.includes('deployments/scale'));
      if (named.deployments?.length) expect(deploymentsRule.resourceNames).toEqual(named.deployments);
      // Pods only to read logs, and only where the registry asks for it: list them, read their logs, nothing else.
      const podRules = role.rules.filter((r: any) => r.apiGroups.includes(''));
      expect(podRules).toEqual(named.logs ? [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }, { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }] : []);
    }
    for (const app of DEPLOYED.filter((a) => a.configMaps)) {
      const pod = find(objectsOf(app.name), 'Deployment', app.name)!.spec.template.spec;
      for (const [name, mountPath] of Object.entries(app.configMaps!)) {
        expect(pod.volumes).toContainEqual({ name, configMap: { name } });
        expect(pod.containers[0].volumeMounts).toContainEqual({ name, mountPath, readOnly: true });
      }
    }
  });

  it("publishes an app's other TCP listeners (email-api's inbound SMTP): container port, Service port, a LoadBalancer on the public port, a compose port", () => {
    const withListeners = DEPLOYED.filter((a) => (a as { listeners?: object }).listeners);
    expect(withListeners.map((a) => a.name)).toContain('email-api');
    for (const app of withListeners) {
      for (const [name, l] of Object.entries((app as unknown as { listeners: Record<string, { port: number; publicPort: number }> }).listeners)) {
        const pod = find(objectsOf(app.name), 'Deployment', app.name)!.spec.template.spec;
        expect(pod.containers[0].ports).toContainEqual({ name, containerPort: l.port, protocol: 'TCP' });
        expect(find(objectsOf(app.name), 'Service', app.name)!.spec.ports).toContainEqual({ name, port: l.port, targetPort: name, protocol: 'TCP' });
        const lb = find(objectsOf(app.name), 'Service', `${app.name}-${name}`)!;
        expect(lb.spec).toMatchObject({ type: 'LoadBalancer', ports: [{ name, port: l.publicPort, targetPort: name, protocol: 'TCP' }] });
      }
    }
  });

  it('parses every YAML file and references only files that exist', () => {
    for (const file of yamlFiles(k8s)) {
      const docs = parseYaml(file);
      expect(docs.length).toBeGreaterThan(0);
      if (path.basename(file) !== 'kustomization.yaml') {
        for (const d of docs) expect(d).toEqual(expect.objectContaining({ apiVersion: expect.any(String), kind: expect.any(String) }));
        continue;
      }
      const [k] = docs;
      for (const ref of [...(k.resources ?? []), ...(k.components ?? [])]) {
        expect({ file: path.relative(root, file), ref, exists: fs.existsSync(path.join(path.dirname(file), ref)) }).toMatchObject({ exists: true });
      }
      for (const patch of k.patches ?? []) {
        if (patch.path) expect(fs.existsSync(path.join(path.dirname(file), patch.path))).toBe(true);
      }
    }
  });

  it.each(['dev', 'prod'])('builds the %s overlay on the base', (overlay) => {
    const [k] = parseYaml(path.join(k8s, 'overlays', overlay, 'kustomization.yaml'));
    expect(k.resources).toContain('../../base');
    expect(k.namespace).toEqual(expect.any(String));
    const images = new Map((k.images ?? []).map((i: any) => [i.name, i.newTag]));
    for (const app of DEPLOYED) expect(images.get(`platform/${app.name}`)).toEqual(expect.any(String));
  });

  it('makes prod reference existing Secrets instead of generating them', () => {
    const [k] = parseYaml(path.join(k8s, 'overlays', 'prod', 'kustomization.yaml'));
    expect(k.secretGenerator).toBeUndefined();
    for (const image of k.images) expect(image.newTag).not.toMatch(/^(latest|dev)?$/);
    const secrets = yamlFiles(k8s).flatMap(parseYaml).filter((d) => d?.kind === 'Secret');
    expect(secrets).toEqual([]);
  });

  it('keeps the committed files identical to what deploy/generate.cjs renders', () => {
    const stale = Object.entries(render())
      .filter(([rel, content]) => !fs.existsSync(path.join(root, rel)) || read(path.join(root, rel)) !== content)
      .map(([rel]) => rel);
    expect(stale).toEqual([]);
    const rendered = new Set(Object.keys(render()));
    const leftOver = yamlFiles(k8s).map((file) => path.relative(root, file)).filter((rel) => !rendered.has(rel));
    expect(leftOver).toEqual([]);
  });

  it('deploys exactly the apps that exist: no Deployment or compose service for an app not built yet', () => {
    const [base] = parseYaml(path.join(k8s, 'base', 'kustomization.yaml'));
    expect([...base.resources].sort()).toEqual([...appDirs].sort());
    const compose = parseYaml(path.join(root, 'docker', 'compose.yml'))[0];
    const built = Object.values(compose.services as Record<string, { build?: { args?: { APP?: string } } }>)
      .map((svc) => svc.build?.args?.APP)
      .filter((app): app is string => Boolean(app));
    expect([...new Set(built)].sort()).toEqual([...appDirs].sort());
  });

  it('runs PostgreSQL 16 with pgvector, RabbitMQ and Redis in compose and publishes the gateway on 3000', () => {
    const compose = parseYaml(path.join(root, 'docker', 'compose.yml'))[0];
    expect(compose.services.postgres.image).toBe('pgvector/pgvector:pg16');
    expect(compose.services.rabbitmq.image).toBe('rabbitmq:3-management');
    expect(compose.services.redis.image).toBe('redis:7');
    for (const infra of ['postgres', 'rabbitmq', 'redis']) expect(compose.services[infra].healthcheck.test).toBeDefined();
    expect(compose.services.gateway.ports).toContainEqual(expect.stringMatching(/:3000$/));
    expect(compose.services['transcribe-api-worker'].environment.TRANSCRIBE_ROLE).toBe('worker');
  });
});

describe('docker/Dockerfile', () => {
  const dockerfile = read(path.join(root, 'docker', 'Dockerfile'));
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  const runtime = instructions.slice(instructions.map((l) => /^FROM\s/i.test(l)).lastIndexOf(true));

  it('is multi-stage with an APP build argument', () => {
    expect(instructions.filter((l) => /^FROM\s/i.test(l)).length).toBeGreaterThanOrEqual(2);
    expect(instructions).toContainEqual(expect.stringMatching(/^ARG APP$/));
    expect(runtime).toContainEqual(expect.stringMatching(/^ENV APP=\$\{APP\}/));
  });

  it('installs only production dependencies from the pruned manifest and lock', () => {
    expect(dockerfile).toContain('node tools/prune-package.mjs');
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
  });

  it('runs as the non-root user 10001 with NODE_ENV=production', () => {
    const users = runtime.filter((l) => /^USER\s/i.test(l));
    expect(users.at(-1)).toMatch(/^USER 10001(:10001)?$/);
    expect(runtime.join('\n')).toMatch(/NODE_ENV=production/);
    expect(runtime).toContainEqual(expect.stringMatching(/^EXPOSE\s/));
  });

  it('starts node dist/apps/$APP/main.js', () => {
    const start = runtime.filter((l) => /^(ENTRYPOINT|CMD)\s/i.test(l)).join('\n');
    expect(start).toMatch(/node \\?"?dist\/apps\/\$\{APP\}\/main\.js/);
  });
});

describe('tools/prune-package.mjs', () => {
  const run = (code: string) =>
    JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }),
    );

  it('cuts the lockfile to what the kept packages reach, using nested node_modules first', () => {
    const lock = {
      name: 'platform',
      version: '1.0.0',
      lockfileVersion: 3,
      packages: {
        '': { name: 'platform', version: '1.0.0', dependencies: { a: '1.0.0', unused: '1.0.0' }, devDependencies: { jest: '1' } },
        'node_modules/a': { version: '1.0.0', dependencies: { b: '^2.0.0', c: '^1' } },
        'node_modules/a/node_modules/b': { version: '2.0.0' },
        'node_modules/b': { version: '1.0.0' },
        'node_modules/c': { version: '1.0.0', dependencies: { b: '^1' }, optionalDependencies: { 'c-linux': '1' } },
        'node_modules/c-linux': { version: '1.0.0', optional: true },
        'node_modules/unused': { version: '1.0.0' },
        'node_modules/jest': { version: '1.0.0', dev: true },
      },
    };
    const pruned = run(
      `import { pruneLock } from './tools/prune-package.mjs';
       console.log(JSON.stringify(pruneLock(${JSON.stringify(lock)}, '@platform/x', { a: '1.0.0' })));`,
    );
    expect(Object.keys(pruned.packages)).toEqual([
      '',
      'node_modules/a',
      'node_modules/a/node_modules/b',
      'node_modules/b',
      'node_modules/c',
      'node_modules/c-linux',
    ]);
    expect(pruned.packages['']).toEqual({ name: '@platform/x', version: '1.0.0', dependencies: { a: '1.0.0' } });
  });

  it('finds packages through require() chains and adds the peers libraries load themselves', () => {
    const out = run(
      `import { packageOf, selectDependencies } from './tools/prune-package.mjs';
       const manifests = { typeorm: { peerDependencies: { pg: '^8', mysql2: '^3' } } };
       console.log(JSON.stringify({
         specifiers: ['@nestjs/core/x', 'typeorm', './local', 'node:fs', 'fs', 'pg/lib/x'].map(packageOf),
         deps: selectDependencies(new Set(['typeorm', 'fs-extra-not-root']), { typeorm: '1.1.1', pg: '8.0.0', amqplib: '2.0.0' }, (p) => manifests[p]),
       }));`,
    );
    expect(out.specifiers).toEqual(['@nestjs/core', 'typeorm', null, null, null, 'pg']);
    expect(out.deps).toEqual({ pg: '8.0.0', typeorm: '1.1.1' });
  });
});
