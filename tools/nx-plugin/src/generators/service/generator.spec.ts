// The service generator on an Nx test tree holding the real files it reads and re-renders: the
// registry, the rendered deployment files and the existing apps' entry points.
import fs from 'node:fs';
import path from 'node:path';
import type { Tree } from '@nx/devkit';
import { createTree } from '@nx/devkit/testing';
import { parse } from 'yaml';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const serviceGenerator = require('./generator.cjs') as (tree: Tree, options: Record<string, unknown>) => Promise<() => void>;

const root = path.resolve(__dirname, '../../../../..');

function filesBelow(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    return e.isDirectory() ? filesBelow(rel) : [rel];
  });
}

/** The registry's files and every built app's main.ts; `unbuilt` apps are left out (registered, not generated yet). */
function workspaceTree(unbuilt: string[] = []): Tree {
  const tree = createTree();
  tree.delete('.prettierrc'); // createTree's, not the workspace's
  const apps = builtApps().filter((a) => !unbuilt.includes(a));
  const files = [
    'services.json',
    'docker/compose.yml',
    'docker/postgres/init-databases.sql',
    ...filesBelow('deploy/k8s'),
    ...apps.map((a) => `apps/${a}/src/main.ts`),
  ];
  for (const file of files) tree.write(file, fs.readFileSync(path.join(root, file)));
  return tree;
}

function builtApps(): string[] {
  return fs.readdirSync(path.join(root, 'apps')).filter((a) => fs.existsSync(path.join(root, 'apps', a, 'src', 'main.ts')));
}

const registryOf = (tree: Tree) => JSON.parse(tree.read('services.json', 'utf8')!).services as Record<string, unknown>[];
const changedPaths = (tree: Tree) => tree.listChanges().map((c) => c.path);

describe('service generator', () => {
  describe('a new service: demo-api', () => {
    const tree = workspaceTree();

    beforeAll(async () => {
      await serviceGenerator(tree, { name: 'demo-api' });
    });

    it('writes the app skeleton of docs/lib-contracts.md', () => {
      const files = changedPaths(tree).filter((p) => p.startsWith('apps/demo-api/')).sort();
      expect(files.map((f) => f.replace(/\/\d{13}-/, '/<timestamp>-'))).toEqual([
        'apps/demo-api/README.md',
        'apps/demo-api/jest.config.cjs',
        'apps/demo-api/project.json',
        'apps/demo-api/src/app.module.ts',
        'apps/demo-api/src/config.ts',
        'apps/demo-api/src/demo-api.e2e-spec.ts',
        'apps/demo-api/src/main.ts',
        'apps/demo-api/src/migrations/<timestamp>-CreateOutboxTables.ts',
        'apps/demo-api/src/service.ts',
      ]);
    });

    it('tags the project with its scope and gives it the usual targets', () => {
      const project = JSON.parse(tree.read('apps/demo-api/project.json', 'utf8')!);
      expect(project).toMatchObject({ name: 'demo-api', projectType: 'application', tags: ['type:app', 'scope:demo-api'] });
      expect(Object.keys(project.targets)).toEqual(['build', 'serve', 'test', 'lint']);
      expect(tree.read('apps/demo-api/jest.config.cjs', 'utf8')).toContain("require('../../tools/jest/preset.cjs').preset(__dirname)");
    });

    it('declares the service with the registered name, port and schema, its config and root module', () => {
      const service = tree.read('apps/demo-api/src/service.ts', 'utf8')!;
      expect(service).toContain('export const demoApiService: ServiceDefinition<DemoApiConfig> = {');
      expect(service).toMatch(/name: 'demo-api',\s+port: 3009,\s+schema: 'demo',\s+config: DemoApiConfig,\s+module: \(config\) => DemoApiModule\.forRoot\(config\),/);
      expect(tree.read('apps/demo-api/src/main.ts', 'utf8')).toContain('void runService(demoApiService);');
      expect(tree.read('apps/demo-api/src/config.ts', 'utf8')).toContain('export class DemoApiConfig extends BaseConfig');
    });

    it('builds the root module on DatabaseModule with its entities and first migration', () => {
      const module = tree.read('apps/demo-api/src/app.module.ts', 'utf8')!;
      const migration = changedPaths(tree).find((p) => p.startsWith('apps/demo-api/src/migrations/'))!;
      const timestamp = /(\d{13})-CreateOutboxTables\.ts$/.exec(migration)![1];
      expect(module).toContain('export class DemoApiModule {');
      expect(module).toContain('DatabaseModule.forRoot({ entities: DEMO_API_ENTITIES, migrations: DEMO_API_MIGRATIONS })');
      expect(module).toContain(`export const DEMO_API_MIGRATIONS = [CreateOutboxTables${timestamp}];`);
      expect(tree.read(migration, 'utf8')).toContain(`export class CreateOutboxTables${timestamp} implements MigrationInterface`);
    });

    it('writes an e2e test that boots the app and calls /healthz, /readyz and /api/docs', () => {
      const spec = tree.read('apps/demo-api/src/demo-api.e2e-spec.ts', 'utf8')!;
      expect(spec).toContain('t = await createTestApp(demoApiService);');
      for (const url of ['/healthz', '/readyz', '/api/docs']) expect(spec).toContain(`t.http.get('${url}')`);
    });

    it('adds one line to services.json: the next free port, a prefix and database from the name', () => {
      const services = registryOf(tree);
      expect(services.at(-1)).toEqual({ name: 'demo-api', port: 3009, prefix: '/demo', database: 'demo', hpa: true });
      expect(services.slice(0, -1)).toEqual(JSON.parse(fs.readFileSync(path.join(root, 'services.json'), 'utf8')).services);
      const lines = (text: string) => text.split('\n').map((l) => l.replace(/,$/, ''));
      const added = lines(tree.read('services.json', 'utf8')!).filter((l) => !lines(fs.readFileSync(path.join(root, 'services.json'), 'utf8')).includes(l));
      expect(added).toEqual(['    { "name": "demo-api", "port": 3009, "prefix": "/demo", "database": "demo", "hpa": true }']);
    });

    it('renders its compose services, Kubernetes manifests and database', () => {
      const compose = parse(tree.read('docker/compose.yml', 'utf8')!);
      expect(compose.services['demo-api'].build.args).toEqual({ APP: 'demo-api', PORT: '3009' });
      expect(compose.services['demo-api-migrate']).toBeDefined();
      expect(parse(tree.read('deploy/k8s/base/kustomization.yaml', 'utf8')!).resources).toContain('demo-api');
      expect(tree.exists('deploy/k8s/base/demo-api/deployment.yaml')).toBe(true);
      expect(parse(tree.read('deploy/k8s/base/gateway/configmap.yaml', 'utf8')!).data.GATEWAY_UPSTREAM_DEMO_API).toBe('http://demo-api:3009');
      expect(tree.read('docker/postgres/init-databases.sql', 'utf8')).toContain('CREATE DATABASE demo;');
    });

    it('touches nothing else: no other app, no file the registry does not derive', () => {
      const allowed = [/^services\.json$/, /^apps\/demo-api\//, /^deploy\/k8s\//, /^docker\/compose\.yml$/, /^docker\/postgres\/init-databases\.sql$/];
      const changed = changedPaths(tree).filter((p) => {
        const original = path.join(root, p);
        return !fs.existsSync(original) || !fs.readFileSync(original).equals(tree.read(p)!);
      });
      expect(changed.filter((p) => !allowed.some((a) => a.test(p)))).toEqual([]);
      expect(changed.filter((p) => p.startsWith('deploy/k8s/base/') && !p.startsWith('deploy/k8s/base/demo-api/')).sort()).toEqual([
        'deploy/k8s/base/gateway/configmap.yaml',
        'deploy/k8s/base/kustomization.yaml',
      ]);
    });
  });

  it('takes port, prefix and database from the options', async () => {
    const tree = workspaceTree();
    await serviceGenerator(tree, { name: 'billing', port: 3100, prefix: '/invoices', database: 'invoicing' });
    expect(registryOf(tree).at(-1)).toEqual({ name: 'billing', port: 3100, prefix: '/invoices', database: 'invoicing', hpa: true });
    expect(tree.read('apps/billing/src/service.ts', 'utf8')).toMatch(/name: 'billing',\s+port: 3100,\s+schema: 'invoicing',/);
  });

  it("starts a service the contract already registers with the registry's port, prefix and database", async () => {
    const tree = workspaceTree(['knowledge-api']);
    const registry = tree.read('services.json', 'utf8');
    await serviceGenerator(tree, { name: 'knowledge-api' });
    expect(tree.read('services.json', 'utf8')).toBe(registry);
    expect(tree.read('apps/knowledge-api/src/service.ts', 'utf8')).toMatch(/name: 'knowledge-api',\s+port: 3003,\s+schema: 'knowledge',/);
    expect(tree.read('apps/knowledge-api/README.md', 'utf8')).toContain('behind the gateway at `/knowledge`');
    // rbac and HPA as registered
    const registered = registryOf(tree).find((s) => s.name === 'knowledge-api')!;
    expect(tree.exists('deploy/k8s/base/knowledge-api/rbac.yaml')).toBe(Boolean(registered.rbac));
    expect(tree.exists('deploy/k8s/base/knowledge-api/hpa.yaml')).toBe(registered.hpa === true);
  });

  it.each([
    [{ name: 'knowledge-api', port: 3100 }, 'services.json registers knowledge-api with port 3003'],
    [{ name: 'demo-api', port: 3004 }, 'demo-api: port 3004 is already taken by auth-api'],
    [{ name: 'demo-api', prefix: '/auth' }, 'demo-api: prefix /auth is already taken by auth-api'],
    [{ name: 'demo-api', port: 80 }, 'demo-api: port must be an integer from 1024 to 65535'],
    [{ name: 'auth-api' }, 'apps/auth-api exists already'],
    [{ name: 'Demo_API' }, 'service name must be kebab-case'],
  ])('refuses %j and says why', async (options, message) => {
    const tree = workspaceTree(['knowledge-api']);
    await expect(serviceGenerator(tree, options)).rejects.toThrow(message);
    expect(tree.children('apps').sort()).toEqual(builtApps().filter((a) => a !== 'knowledge-api').sort());
  });
});
