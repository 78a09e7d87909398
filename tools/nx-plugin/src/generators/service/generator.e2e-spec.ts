// The service generator end to end, in a scratch copy of the workspace (the files git tracks or
// would track, node_modules linked): `npx nx g @platform/nx-plugin:service demo-api`, then build,
// lint, boot the new app and reach it through the gateway, and find it in npm start's app list,
// compose and the Kubernetes manifests, with no other file edited by hand.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, freePort, waitHealthy, type TestDatabase } from '@platform/testing';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '../../../../..');
const NAME = 'demo-api';

/** Paths (from the root) the generator writes or re-renders; nothing else may change. */
const GENERATED = [/^services\.json$/, /^apps\/demo-api\//, /^deploy\/k8s\//, /^docker\/compose\.yml$/, /^docker\/postgres\/init-databases\.sql$/];

function workspaceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  return [...new Set(listed.split('\0'))].filter((f) => f && f !== 'node_modules' && fs.statSync(path.join(root, f), { throwIfNoEntry: false })?.isFile());
}

function copyWorkspace(files: string[]): string {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'service-generator-'));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
    fs.copyFileSync(path.join(root, file), path.join(scratch, file));
  }
  fs.symlinkSync(fs.realpathSync(path.join(root, 'node_modules')), path.join(scratch, 'node_modules'));
  return scratch;
}

/** Every file below `dir` (relative), skipping node_modules, dist and the tool caches. */
function filesBelow(dir: string, from = dir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (['node_modules', 'dist', '.nx', '.data'].includes(e.name)) return [];
    const full = path.join(dir, e.name);
    return e.isDirectory() ? filesBelow(full, from) : [path.relative(from, full)];
  });
}

describe('npx nx g @platform/nx-plugin:service demo-api in a scratch workspace', () => {
  const children: ChildProcess[] = [];
  let scratch: string;
  let originals: string[];
  let database: TestDatabase;
  let demo: string;

  /** Runs a command in the scratch workspace (no NX_* variable of an outer Nx run points it elsewhere). */
  const run = (command: string, args: string[]) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('NX_')));
    return execFileSync(command, args, { cwd: scratch, encoding: 'utf8', stdio: 'pipe', env: { ...env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' } });
  };

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
    originals = workspaceFiles();
    scratch = copyWorkspace(originals);
    run('npx', ['nx', 'g', '@platform/nx-plugin:service', NAME]);
    run(process.execPath, ['tools/build.mjs']);
    database = await createTestDatabase();
    demo = await boot(
      'dist/apps/demo-api/main.js',
      { DATABASE_URL: database.url, ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}), DATA_DIR: path.join(scratch, '.data') },
      await freePort(),
    );
  }, 120_000);

  afterAll(async () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  }, 30_000);

  it('edits nothing but the new app, the registry and the files rendered from it', () => {
    const changed = filesBelow(scratch).filter((file) => {
      const original = path.join(root, file);
      return !originals.includes(file) || !fs.readFileSync(original).equals(fs.readFileSync(path.join(scratch, file)));
    });
    expect(changed.filter((file) => !GENERATED.some((pattern) => pattern.test(file)))).toEqual([]);
    expect(changed).toEqual(expect.arrayContaining(['services.json', 'apps/demo-api/src/service.ts', 'docker/compose.yml']));
  });

  it('writes an app that lints clean', () => {
    expect(() => run('npx', ['eslint', `apps/${NAME}`])).not.toThrow();
  }, 60_000);

  it('writes an e2e test that passes', () => {
    expect(() => run('npx', ['jest', `apps/${NAME}`])).not.toThrow();
  }, 60_000);

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
    expect(JSON.parse(names)).toContain(NAME);
  });

  it('has its compose services, Kubernetes manifests and database, as deploy/generate.cjs renders them', () => {
    expect(() => run(process.execPath, ['deploy/generate.cjs', '--check'])).not.toThrow();
    const compose = parse(fs.readFileSync(path.join(scratch, 'docker/compose.yml'), 'utf8'));
    expect(compose.services[NAME].environment.DATABASE_URL).toBe('postgres://platform:platform@postgres:5432/demo');
    expect(compose.services[`${NAME}-migrate`].command).toEqual(['migrate']);
    expect(compose.services.gateway.environment.GATEWAY_UPSTREAM_DEMO_API).toBe('http://demo-api:3009');
    const base = parse(fs.readFileSync(path.join(scratch, 'deploy/k8s/base/kustomization.yaml'), 'utf8'));
    expect(base.resources).toContain(NAME);
    const deployment = parse(fs.readFileSync(path.join(scratch, `deploy/k8s/base/${NAME}/deployment.yaml`), 'utf8'));
    expect(deployment.spec.template.spec.containers[0].ports).toEqual([{ name: 'http', containerPort: 3009, protocol: 'TCP' }]);
    expect(fs.existsSync(path.join(scratch, `deploy/k8s/base/${NAME}/migration-job.yaml`))).toBe(true);
    expect(fs.readFileSync(path.join(scratch, 'docker/postgres/init-databases.sql'), 'utf8')).toContain('CREATE DATABASE demo;');
  });
});
