// The service generator on an Nx test tree holding the real files it reads and re-renders: the
// registry, the README's map, the rendered deployment files and the existing apps' entry points.
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

/** The registry's files, the README and every built app's main.ts; `unbuilt` apps are left out (registered, not generated yet). */
function workspaceTree(unbuilt: string[] = []): Tree {
  const tree = createTree();
  tree.delete('.prettierrc'); // createTree's, not the workspace's
  const apps = builtApps().filter((a) => !unbuilt.includes(a));
  const files = [
    'services.json',
    'README.md',
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
const original = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
/** The port a new name gets: the highest registered + 1. */
const nextPort = Math.max(...(JSON.parse(original('services.json')).services as { port: number }[]).map((s) => s.port)) + 1;

/** The lines of `file` in the tree that the real file does not hold. */
function addedLines(tree: Tree, file: string): string[] {
  const lines = (text: string) => text.split('\n').map((l) => l.replace(/,$/, ''));
  const before = lines(original(file));
  return lines(tree.read(file, 'utf8')!).filter((l) => !before.includes(l));
}

/** Files the generator changed (content differs from the real tree's) outside `allowed`. */
function changedOutside(tree: Tree, allowed: RegExp[]): string[] {
  const changed = changedPaths(tree).filter((p) => {
    const file = path.join(root, p);
    return !fs.existsSync(file) || !fs.readFileSync(file).equals(tree.read(p)!);
  });
  return changed.filter((p) => !allowed.some((a) => a.test(p)));
}

/** The rows of README.md's map (`| app | spec | port | gateway prefix | what it is |`), as cells. */
function mapRows(tree: Tree): string[][] {
  const lines = tree.read('README.md', 'utf8')!.split('\n');
  const header = lines.findIndex((l) => /^\|\s*app\s*\|\s*spec\s*\|\s*port\s*\|\s*gateway prefix\s*\|/.test(l));
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

/** Registers `entries` in the tree's services.json (replacing a line of the same name), as the contract will. */
function register(tree: Tree, ...entries: Record<string, unknown>[]) {
  const registry = JSON.parse(tree.read('services.json', 'utf8')!);
  const names = entries.map((e) => e.name);
  registry.services = [...registry.services.filter((s: { name: string }) => !names.includes(s.name)), ...entries];
  tree.write('services.json', JSON.stringify(registry, null, 2));
}

/** knowledge-mcp as ARCHITECTURE.md's "being built" table gives it: no database of its own. */
const KNOWLEDGE_MCP = { name: 'knowledge-mcp', port: 3009, prefix: '/knowledge-mcp', database: null, hpa: true };

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
      expect(service).toMatch(
        new RegExp(`name: 'demo-api',\\s+port: ${nextPort},\\s+schema: 'demo',\\s+config: DemoApiConfig,\\s+module: \\(config\\) => DemoApiModule\\.forRoot\\(config\\),`),
      );
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
      expect(services.at(-1)).toEqual({ name: 'demo-api', port: nextPort, prefix: '/demo', database: 'demo', hpa: true });
      expect(services.slice(0, -1)).toEqual(JSON.parse(original('services.json')).services);
      expect(addedLines(tree, 'services.json')).toEqual([`    { "name": "demo-api", "port": ${nextPort}, "prefix": "/demo", "database": "demo", "hpa": true }`]);
    });

    it("adds its row to the README's map after the last app, with a placeholder that asks for its description", () => {
      const rows = mapRows(tree);
      expect(rows.at(-1)).toEqual([
        '[demo-api](apps/demo-api/README.md)',
        '–',
        String(nextPort),
        '`/demo`',
        "to describe: what demo-api is, in one line (the generator's --description)",
      ]);
      expect(rows.slice(0, -1)).toEqual(mapRows(workspaceTree()));
      expect(addedLines(tree, 'README.md')).toHaveLength(1);
    });

    it('renders its compose services, Kubernetes manifests and database', () => {
      const compose = parse(tree.read('docker/compose.yml', 'utf8')!);
      expect(compose.services['demo-api'].build.args).toEqual({ APP: 'demo-api', PORT: String(nextPort) });
      expect(compose.services['demo-api-migrate']).toBeDefined();
      expect(parse(tree.read('deploy/k8s/base/kustomization.yaml', 'utf8')!).resources).toContain('demo-api');
      expect(tree.exists('deploy/k8s/base/demo-api/deployment.yaml')).toBe(true);
      expect(tree.exists('deploy/k8s/base/demo-api/migration-job.yaml')).toBe(true);
      expect(parse(tree.read('deploy/k8s/base/gateway/configmap.yaml', 'utf8')!).data.GATEWAY_UPSTREAM_DEMO_API).toBe(`http://demo-api:${nextPort}`);
      expect(tree.read('docker/postgres/init-databases.sql', 'utf8')).toContain('CREATE DATABASE demo;');
    });

    it('touches nothing else: no other app, no file the registry does not derive', () => {
      const allowed = [/^services\.json$/, /^README\.md$/, /^apps\/demo-api\//, /^deploy\/k8s\//, /^docker\/compose\.yml$/, /^docker\/postgres\/init-databases\.sql$/];
      expect(changedOutside(tree, allowed)).toEqual([]);
      expect(changedOutside(tree, [/^(?!deploy\/k8s\/base\/)/, /^deploy\/k8s\/base\/demo-api\//]).sort()).toEqual([
        'deploy/k8s/base/gateway/configmap.yaml',
        'deploy/k8s/base/kustomization.yaml',
      ]);
    });
  });

  describe('a service without a database: knowledge-mcp, as the contract registers it ("database": null)', () => {
    const tree = workspaceTree(['knowledge-mcp']);
    register(tree, KNOWLEDGE_MCP);
    const registry = tree.read('services.json', 'utf8');
    const app = (file: string) => tree.read(`apps/knowledge-mcp/${file}`, 'utf8')!;

    beforeAll(async () => {
      await serviceGenerator(tree, { name: 'knowledge-mcp' });
    });

    it('writes the skeleton without migrations', () => {
      const files = changedPaths(tree).filter((p) => p.startsWith('apps/knowledge-mcp/')).sort();
      expect(files).toEqual([
        'apps/knowledge-mcp/README.md',
        'apps/knowledge-mcp/jest.config.cjs',
        'apps/knowledge-mcp/project.json',
        'apps/knowledge-mcp/src/app.module.ts',
        'apps/knowledge-mcp/src/config.ts',
        'apps/knowledge-mcp/src/knowledge-mcp.e2e-spec.ts',
        'apps/knowledge-mcp/src/main.ts',
        'apps/knowledge-mcp/src/service.ts',
      ]);
    });

    it('declares the service with its name and port and no schema', () => {
      const service = app('src/service.ts');
      expect(service).toMatch(/name: 'knowledge-mcp',\s+port: 3009,\s+config: KnowledgeMcpConfig,/);
      expect(service).not.toMatch(/^\s*schema:/m);
      expect(service).toContain('behind the gateway at `/knowledge-mcp`');
    });

    it('builds the root module on MessagingModule without the outbox, and no DatabaseModule', () => {
      const module = app('src/app.module.ts');
      expect(module).toContain("import { MessagingModule } from '@platform/messaging';");
      expect(module).toMatch(/imports: \[\s+MessagingModule\.forRoot\(\),/);
      for (const absent of ['@platform/database', 'DatabaseModule.forRoot', 'outbox: true', 'messagingEntities', 'MIGRATIONS', './migrations/']) {
        expect(module).not.toContain(absent);
      }
    });

    it('writes an e2e test that expects /readyz without a database check', () => {
      const spec = app('src/knowledge-mcp.e2e-spec.ts');
      expect(spec).toContain("checks: { broker: { status: 'up' } }");
      expect(spec).toContain('expect(res.body.checks.database).toBeUndefined();');
      expect(spec).not.toContain('database: { status');
      expect(spec).not.toContain('throwaway database');
    });

    it('writes a README without database, schema or migrations', () => {
      const readme = app('README.md');
      expect(readme).toContain('Port 3009, behind the gateway at `/knowledge-mcp`');
      expect(readme).toContain('no database (`"database": null`)');
      for (const absent of ['DATABASE_URL', 'embedded PostgreSQL', 'src/migrations/', 'DatabaseModule registers', 'init-databases.sql']) {
        expect(readme).not.toContain(absent);
      }
    });

    it('keeps the registry as it is', () => {
      expect(tree.read('services.json', 'utf8')).toBe(registry);
    });

    it("gives it its row in the README's map: port 3009, prefix /knowledge-mcp", () => {
      const rows = mapRows(tree);
      const row = rows.find((r) => r[0] === '[knowledge-mcp](apps/knowledge-mcp/README.md)')!;
      expect(row.slice(0, 4)).toEqual(['[knowledge-mcp](apps/knowledge-mcp/README.md)', expect.any(String), '3009', '`/knowledge-mcp`']);
      // After the apps registered before it, as tools/checks/registry.spec.ts wants.
      const order = registryOf(tree).map((s) => String(s.name));
      const mapped = rows.map((r) => /^\[([^\]]+)\]/.exec(r[0])![1]);
      expect(mapped).toEqual(order.filter((name) => mapped.includes(name)));
    });

    it('renders its compose service and manifests without a database, migration Job or migrate service', () => {
      const compose = parse(tree.read('docker/compose.yml', 'utf8')!);
      expect(compose.services['knowledge-mcp'].build.args).toEqual({ APP: 'knowledge-mcp', PORT: '3009' });
      expect(compose.services['knowledge-mcp'].environment.DATABASE_URL).toBeUndefined();
      expect(compose.services['knowledge-mcp'].depends_on.postgres).toBeUndefined();
      expect(compose.services['knowledge-mcp-migrate']).toBeUndefined();
      expect(tree.exists('deploy/k8s/base/knowledge-mcp/deployment.yaml')).toBe(true);
      expect(tree.exists('deploy/k8s/base/knowledge-mcp/migration-job.yaml')).toBe(false);
      expect(parse(tree.read('deploy/k8s/base/knowledge-mcp/configmap.yaml', 'utf8')!).data.DB_MIGRATE_ON_START).toBeUndefined();
      const devSecrets = parse(tree.read('deploy/k8s/overlays/dev/kustomization.yaml', 'utf8')!).secretGenerator;
      expect(devSecrets.find((s: { name: string }) => s.name === 'knowledge-mcp-secrets').literals.join()).not.toContain('DATABASE_URL');
      expect(parse(tree.read('deploy/k8s/base/gateway/configmap.yaml', 'utf8')!).data.GATEWAY_UPSTREAM_KNOWLEDGE_MCP).toBe('http://knowledge-mcp:3009');
      expect(tree.read('docker/postgres/init-databases.sql', 'utf8')).toBe(original('docker/postgres/init-databases.sql'));
    });
  });

  it('registers a new name with --database none as "database": null, its prefix the whole name when the short one is taken', async () => {
    const tree = workspaceTree(['knowledge-mcp']);
    // The real registry, without knowledge-mcp if the contract's line has landed already.
    const services = registryOf(tree).filter((s) => s.name !== 'knowledge-mcp');
    tree.write('services.json', JSON.stringify({ ...JSON.parse(tree.read('services.json', 'utf8')!), services }));
    const port = Math.max(...services.map((s) => s.port as number)) + 1;
    await serviceGenerator(tree, { name: 'knowledge-mcp', database: 'none', description: "knowledge-api's MCP server" });
    expect(registryOf(tree).at(-1)).toEqual({ name: 'knowledge-mcp', port, prefix: '/knowledge-mcp', database: null, hpa: true });
    expect(tree.read('services.json', 'utf8')).toContain(`    { "name": "knowledge-mcp", "port": ${port}, "prefix": "/knowledge-mcp", "database": null, "hpa": true }`);
    expect(mapRows(tree).find((r) => r[0] === '[knowledge-mcp](apps/knowledge-mcp/README.md)')!.slice(2)).toEqual([String(port), '`/knowledge-mcp`', expect.any(String)]);
    expect(tree.exists('apps/knowledge-mcp/src/migrations')).toBe(false);
    expect(tree.read('apps/knowledge-mcp/src/app.module.ts', 'utf8')).not.toContain('@platform/database');
  });

  it("takes port, prefix, database and the map's spec and description from the options", async () => {
    const tree = workspaceTree();
    await serviceGenerator(tree, { name: 'billing', port: 3100, prefix: '/invoices', database: 'invoicing', spec: '003_billing.txt', description: 'invoices and payments' });
    expect(registryOf(tree).at(-1)).toEqual({ name: 'billing', port: 3100, prefix: '/invoices', database: 'invoicing', hpa: true });
    expect(tree.read('apps/billing/src/service.ts', 'utf8')).toMatch(/name: 'billing',\s+port: 3100,\s+schema: 'invoicing',/);
    expect(mapRows(tree).at(-1)).toEqual(['[billing](apps/billing/README.md)', '003_billing.txt', '3100', '`/invoices`', 'invoices and payments']);
  });

  it("starts a service the contract already registers with the registry's port, prefix and database", async () => {
    const tree = workspaceTree(['knowledge-api']);
    const registry = tree.read('services.json', 'utf8');
    const readme = tree.read('README.md', 'utf8');
    await serviceGenerator(tree, { name: 'knowledge-api' });
    expect(tree.read('services.json', 'utf8')).toBe(registry);
    // Its row is in the map already, with the registry's port and prefix: kept as it is, not added again.
    expect(tree.read('README.md', 'utf8')).toBe(readme);
    expect(tree.read('apps/knowledge-api/src/service.ts', 'utf8')).toMatch(/name: 'knowledge-api',\s+port: 3003,\s+schema: 'knowledge',/);
    expect(tree.read('apps/knowledge-api/README.md', 'utf8')).toContain('behind the gateway at `/knowledge`');
    // rbac and HPA as registered
    const registered = registryOf(tree).find((s) => s.name === 'knowledge-api')!;
    expect(tree.exists('deploy/k8s/base/knowledge-api/rbac.yaml')).toBe(Boolean(registered.rbac));
    expect(tree.exists('deploy/k8s/base/knowledge-api/hpa.yaml')).toBe(registered.hpa === true);
  });

  it("brings a row the map holds for the app in line with the registry's port and prefix", async () => {
    const tree = workspaceTree(['knowledge-mcp']);
    register(tree, KNOWLEDGE_MCP);
    const rows = tree.read('README.md', 'utf8')!.split('\n').filter((l) => !l.startsWith('| [knowledge-mcp]'));
    const last = rows.findIndex((l) => l.startsWith('| [logistics-hooks]'));
    rows.splice(last + 1, 0, '| [knowledge-mcp](apps/knowledge-mcp/README.md) | 002_…, part A | 3100 | `/mcp` | MCP server |');
    tree.write('README.md', rows.join('\n'));
    await serviceGenerator(tree, { name: 'knowledge-mcp' });
    expect(mapRows(tree).filter((r) => r[0].startsWith('[knowledge-mcp]'))).toEqual([
      ['[knowledge-mcp](apps/knowledge-mcp/README.md)', '002_…, part A', '3009', '`/knowledge-mcp`', 'MCP server'],
    ]);
  });

  it.each([
    [{ name: 'knowledge-api', port: 3100 }, 'services.json registers knowledge-api with port 3003'],
    [{ name: 'knowledge-api', database: 'none' }, 'services.json registers knowledge-api with database "knowledge"'],
    [{ name: 'knowledge-mcp', database: 'mcp' }, 'services.json registers knowledge-mcp with database null'],
    [{ name: 'demo-api', port: 3004 }, 'demo-api: port 3004 is already taken by auth-api'],
    [{ name: 'demo-api', prefix: '/auth' }, 'demo-api: prefix /auth is already taken by auth-api'],
    [{ name: 'demo-api', port: 80 }, 'demo-api: port must be an integer from 1024 to 65535'],
    [{ name: 'demo-api', description: 'one | two' }, `--description is a cell of README.md's map: one line, not empty, without "|"`],
    [{ name: 'demo-api', spec: '' }, `--spec is a cell of README.md's map`],
    [{ name: 'auth-api' }, 'apps/auth-api exists already'],
    [{ name: 'Demo_API' }, 'service name must be kebab-case'],
  ])('refuses %j and says why', async (options, message) => {
    const tree = workspaceTree(['knowledge-api', 'knowledge-mcp']);
    register(tree, KNOWLEDGE_MCP);
    const before = ['services.json', 'README.md'].map((f) => tree.read(f, 'utf8'));
    await expect(serviceGenerator(tree, options)).rejects.toThrow(message);
    expect(tree.children('apps').sort()).toEqual(builtApps().filter((a) => !['knowledge-api', 'knowledge-mcp'].includes(a)).sort());
    expect(['services.json', 'README.md'].map((f) => tree.read(f, 'utf8'))).toEqual(before);
  });
});
