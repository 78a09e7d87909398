// The service generator end to end, in a scratch copy of the workspace (the files git tracks or
// would track, node_modules linked): `npx nx g @platform/nx-plugin:service demo-api`, then build,
// lint, boot the new app and reach it through the gateway, and find it in npm start's app list,
// compose and the Kubernetes manifests, with no other file edited by hand. In the same workspace,
// `… service demo-mcp --database none` writes an app without a database (as knowledge-mcp): both lint,
// pass their own tests and tools/checks/registry.spec.ts (the README's map included).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase, freePort, waitHealthy, type TestDatabase } from '@platform/testing';
import { parse } from 'yaml';
import { scratchWorkspace, type ScratchWorkspace } from '../../../test/scratch-workspace';

const NAME = 'demo-api';
/** Without a database; its prefix is /demo-mcp, as demo-api holds /demo. */
const NO_DATABASE = 'demo-mcp';

/** Paths (from the root) the generator writes or re-renders; nothing else may change. */
const GENERATED = [
  /^services\.json$/,
  /^README\.md$/,
  /^apps\/demo-(api|mcp)\//,
  /^deploy\/k8s\//,
  /^docker\/compose\.yml$/,
  /^docker\/postgres\/init-databases\.sql$/,
];

describe('npx nx g @platform/nx-plugin:service demo-api in a scratch workspace', () => {
  const children: ChildProcess[] = [];
  let workspace: ScratchWorkspace;
  let scratch: string;
  let database: TestDatabase;
  let demo: string;
  /** The registry's lines of the two apps, as the generator wrote them. */
  let registered: Record<string, { port: number; prefix: string; database: string | null }>;

  const run = (command: string, args: string[]) => workspace.run(command, args);

  function boot(entry: string, env: Record<string, string>, port: number): Promise<string> {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn', PORT: String(port), ...env };
    for (const name of ['DATABASE_URL', 'DATABASE_SCHEMA', 'AMQP_URL', 'REDIS_URL'].filter((n) => !(n in env))) delete childEnv[name];
    const child = spawn(process.execPath, [entry], { cwd: scratch, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const url = `http://127.0.0.1:${port}`;
    return waitHealthy(entry, url, child, () => output, 60_000).then(() => url);
  }

  beforeAll(async () => {
    workspace = scratchWorkspace('service-generator-');
    scratch = workspace.dir;
    run('npx', ['nx', 'g', '@platform/nx-plugin:service', NAME]);
    run('npx', ['nx', 'g', '@platform/nx-plugin:service', NO_DATABASE, '--database', 'none', '--description', 'an app without a database']);
    const { services } = JSON.parse(fs.readFileSync(path.join(scratch, 'services.json'), 'utf8')) as { services: { name: string }[] };
    registered = Object.fromEntries(services.map(({ name, ...entry }) => [name, entry])) as typeof registered;
    run(process.execPath, ['tools/build.mjs']);
    database = await createTestDatabase();
    demo = await boot(
      'dist/apps/demo-api/main.js',
      { DATABASE_URL: database.url, ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}), DATA_DIR: path.join(scratch, '.data') },
      await freePort(),
    );
  }, 240_000);

  afterAll(async () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
    workspace?.remove();
  }, 30_000);

  it('edits nothing but the new app, the registry and the files rendered from it', () => {
    const changed = workspace.changed();
    expect(changed.filter((file) => !GENERATED.some((pattern) => pattern.test(file)))).toEqual([]);
    expect(changed).toEqual(expect.arrayContaining(['services.json', 'README.md', 'apps/demo-api/src/service.ts', 'apps/demo-mcp/src/service.ts', 'docker/compose.yml']));
  });

  it('writes apps that lint clean', () => {
    expect(() => run('npx', ['eslint', `apps/${NAME}`, `apps/${NO_DATABASE}`])).not.toThrow();
  }, 120_000);

  it("writes e2e tests that pass, and apps that tools/checks/registry.spec.ts accepts (the README's map, service.ts, the database)", () => {
    // One Jest run: the apps' own tests and registry.spec.ts's tests of the map and of these two apps.
    const results = path.join(scratch, '.data', 'jest-results.json');
    fs.mkdirSync(path.dirname(results), { recursive: true });
    const tests = `^(apps/)?(${NAME}|${NO_DATABASE}) |README's map`;
    run('npx', ['jest', `apps/${NAME}`, `apps/${NO_DATABASE}`, 'tools/checks/registry.spec.ts', '-t', tests, '--json', `--outputFile=${results}`]);
    const { testResults } = JSON.parse(fs.readFileSync(results, 'utf8')) as { testResults: { assertionResults: { fullName: string; status: string }[] }[] };
    const passed = testResults.flatMap((file) => file.assertionResults.filter((a) => a.status === 'passed').map((a) => a.fullName));
    expect(passed).toEqual(
      expect.arrayContaining([
        `${NAME} answers /readyz with its database and broker up`,
        `${NO_DATABASE} answers /readyz with its broker up and no database check`,
        "services.json agrees with the README's map: every app there, with its port and gateway prefix",
        `apps/${NAME} exports the ServiceDefinition npm start loads, with the registry's name, port and schema`,
        `apps/${NO_DATABASE} uses DatabaseModule (from @platform/database) exactly when the registry gives it a database`,
      ]),
    );
  }, 180_000);

  it('boots the built app: /healthz, /readyz with its database, /api/docs', async () => {
    expect((await fetch(`${demo}/healthz`)).status).toBe(200);
    const ready = await fetch(`${demo}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toMatchObject({ status: 200, body: { checks: { database: { status: 'up' } } } });
    const docs = await fetch(`${demo}/api/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/html/);
    const openapi = (await (await fetch(`${demo}/api/docs-json`)).json()) as { info: { title: string } };
    expect(openapi.info.title).toBe(NAME);
  });

  it('is routed by the built gateway at its prefix', async () => {
    const gateway = await boot('dist/apps/gateway/main.js', { GATEWAY_UPSTREAM_DEMO_API: demo }, await freePort());
    expect((await fetch(`${gateway}/demo/healthz`)).status).toBe(200);
    expect((await fetch(`${gateway}/demo/api/docs-json`)).status).toBe(200);
  });

  it("is in npm start's list of apps", () => {
    const names = run(process.execPath, ['-e', "console.log(JSON.stringify(require('./dist/out/tools/dev/apps.js').registeredApps().map((d) => d.name)))"]);
    expect(JSON.parse(names)).toEqual(expect.arrayContaining([NAME, NO_DATABASE]));
  });

  it('has its compose services, Kubernetes manifests and database, as deploy/generate.cjs renders them', () => {
    expect(() => run(process.execPath, ['deploy/generate.cjs', '--check'])).not.toThrow();
    const compose = parse(fs.readFileSync(path.join(scratch, 'docker/compose.yml'), 'utf8'));
    const { port } = registered[NAME];
    expect(compose.services[NAME].environment.DATABASE_URL).toBe('postgres://platform:platform@postgres:5432/demo');
    expect(compose.services[`${NAME}-migrate`].command).toEqual(['migrate']);
    expect(compose.services.gateway.environment.GATEWAY_UPSTREAM_DEMO_API).toBe(`http://demo-api:${port}`);
    const base = parse(fs.readFileSync(path.join(scratch, 'deploy/k8s/base/kustomization.yaml'), 'utf8'));
    expect(base.resources).toContain(NAME);
    const deployment = parse(fs.readFileSync(path.join(scratch, `deploy/k8s/base/${NAME}/deployment.yaml`), 'utf8'));
    expect(deployment.spec.template.spec.containers[0].ports).toEqual([{ name: 'http', containerPort: port, protocol: 'TCP' }]);
    expect(fs.existsSync(path.join(scratch, `deploy/k8s/base/${NAME}/migration-job.yaml`))).toBe(true);
    expect(fs.readFileSync(path.join(scratch, 'docker/postgres/init-databases.sql'), 'utf8')).toContain('CREATE DATABASE demo;');
  });

  it('registers the app without a database with "database": null: no migrations, no migrate service, no migration Job', () => {
    expect(registered[NO_DATABASE]).toEqual({ port: registered[NAME].port + 1, prefix: '/demo-mcp', database: null, hpa: true });
    expect(fs.existsSync(path.join(scratch, `apps/${NO_DATABASE}/src/migrations`))).toBe(false);
    const compose = parse(fs.readFileSync(path.join(scratch, 'docker/compose.yml'), 'utf8'));
    expect(compose.services[NO_DATABASE].environment.DATABASE_URL).toBeUndefined();
    expect(compose.services[`${NO_DATABASE}-migrate`]).toBeUndefined();
    expect(parse(fs.readFileSync(path.join(scratch, 'deploy/k8s/base/kustomization.yaml'), 'utf8')).resources).toContain(NO_DATABASE);
    expect(fs.existsSync(path.join(scratch, `deploy/k8s/base/${NO_DATABASE}/deployment.yaml`))).toBe(true);
    expect(fs.existsSync(path.join(scratch, `deploy/k8s/base/${NO_DATABASE}/migration-job.yaml`))).toBe(false);
  });
});
