// `npm start` end to end: build, spawn `node dist/tools/start.js` on a temporary DATA_DIR and ports
// offset away from the standard ones, call every app directly and through the gateway, log in to
// auth-api through the gateway with the printed credentials, then Ctrl-C and expect a clean exit.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REGISTERED_SERVICES } from '@platform/registry';

const root = path.resolve(__dirname, '../..');
const READY_TIMEOUT_MS = 90_000;

interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The standard port of every app in the registry (services.json), plus the offset. */
const STANDARD_PORTS = REGISTERED_SERVICES.map((s) => s.port);

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A PORT_OFFSET whose ports are all free right now. The ports stay below 32768, where Linux's
 * ephemeral range starts, so that no client socket of a test running beside this one can take one
 * of them between this check and the stack's listen().
 */
async function freePortOffset(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const offset = 7_000 + Math.floor(Math.random() * 2_200) * 10;
    const free = await Promise.all(STANDARD_PORTS.map((port) => portIsFree(port + offset)));
    if (free.every(Boolean)) return offset;
  }
  throw new Error('no free PORT_OFFSET found for the npm start test');
}

/** `logLevel` undefined: the apps' default (info), as on a fresh clone. */
function startStack(dataDir: string, portOffset: number, logLevel: string | undefined = 'warn'): Started {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT_OFFSET: String(portOffset), LOG_LEVEL: logLevel, NODE_ENV: 'development' };
  for (const name of ['DATABASE_URL', 'AMQP_URL', 'REDIS_URL', 'START_USE_SERVERS', 'PORT', 'AUTH_ADMIN_PASSWORD', 'AUTH_ADMIN_EMAIL']) delete env[name];
  if (logLevel === undefined) delete env.LOG_LEVEL;
  const child = spawn(process.execPath, [path.join(root, 'dist/tools/start.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => text, exit };
}

async function waitForReady(started: Started): Promise<string> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited = false;
  void started.exit.then(() => (exited = true));
  while (Date.now() < deadline) {
    const out = started.output();
    if (/^ready: /m.test(out)) return out;
    if (exited) throw new Error(`start.js exited before it was ready:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`start.js printed no "ready" line within ${READY_TIMEOUT_MS} ms:\n${started.output()}`);
}

/** Polls `probe` until it returns something truthy (work happens off the request path). */
async function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('npm start (tools/start.ts)', () => {
  let dataDir: string;
  let started: Started | undefined;
  let output: string;
  let gateway: string;
  /** app name → [direct URL, gateway prefix] from the printed table */
  let apps: Map<string, { url: string; prefix: string }>;

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(root, 'tools/build.mjs')], { cwd: root, stdio: 'ignore' });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-e2e-'));
    started = startStack(dataDir, await freePortOffset(), undefined);
    output = await waitForReady(started);
    gateway = /^ready: gateway (http:\/\/\S+)/m.exec(output)![1];
    apps = new Map(
      [...output.matchAll(/^ {2}([a-z-]+)\s+(http:\/\/\S+)\s+via gateway (http:\/\/\S+)/gm)].map((m) => [
        m[1],
        { url: m[2], prefix: new URL(m[3]).pathname },
      ]),
    );
  }, READY_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    if (started && started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGKILL');
      await started.exit;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints every started app with its URLs and the gateway port offset from the standard one', () => {
    expect(apps.get('auth-api')).toBeDefined();
    expect(apps.size).toBeGreaterThanOrEqual(1);
    expect(new URL(gateway).port).not.toBe('3000');
    expect(output).toMatch(/^ {4}AUTH_ADMIN_EMAIL=admin@example\.com$/m);
    expect(output).toMatch(/^ {4}AUTH_ADMIN_PASSWORD=\S{8,}$/m);
    expect(fs.existsSync(path.join(dataDir, 'dev-credentials.json'))).toBe(true);
  });

  it('prints fewer than 40 lines before its summary block (default log level), and the block last', () => {
    const lines = output.trimEnd().split('\n');
    const blockStart = lines.findIndex((line) => /^─{20,}$/.test(line));
    expect(blockStart).toBeGreaterThan(-1);
    const before = lines.slice(0, blockStart).filter((line) => line.trim() !== '');
    expect(before.length).toBeLessThan(40);
    // Nest's module and route lines are debug-level: none of them at the default level.
    expect(output).not.toMatch(/"context":"(InstanceLoader|RoutesResolver|RouterExplorer|NestFactory|NestApplication)"/);
    expect(lines[lines.length - 1]).toMatch(/^ready: /);
  });

  it('answers /healthz of every app directly and through the gateway', async () => {
    expect((await fetch(`${gateway}/healthz`)).status).toBe(200);
    for (const [name, { url, prefix }] of apps) {
      const direct = await fetch(`${url}/healthz`);
      const proxied = await fetch(`${gateway}${prefix}/healthz`);
      expect({ name, direct: direct.status, proxied: proxied.status }).toEqual({ name, direct: 200, proxied: 200 });
    }
  });

  it('logs in to auth-api through the gateway with the printed credentials', async () => {
    const email = /^ {4}AUTH_ADMIN_EMAIL=(\S+)$/m.exec(output)![1];
    const password = /^ {4}AUTH_ADMIN_PASSWORD=(\S+)$/m.exec(output)![1];
    const login = await fetch(`${gateway}/auth/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: email, password }).toString(),
    });
    expect(login.status).toBe(200);
    const { access_token: token } = (await login.json()) as { access_token: string };
    expect(typeof token).toBe('string');

    const me = await fetch(`${gateway}/auth/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email });

    const wrong = await fetch(`${gateway}/auth/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: email, password: `${password}-wrong` }).toString(),
    });
    expect(wrong.status).toBe(401);
  });

  it('lists the services at the gateway root', async () => {
    const res = await fetch(`${gateway}/`);
    const body = (await res.json()) as { services: { name: string; status: string }[] };
    expect(body.services.find((s) => s.name === 'auth-api')?.status).toBe('up');
  });

  it('links automation-api to a development email-api project: a captured email arrives there as a contact', async () => {
    const printed = (name: string) => new RegExp(`^ {4}${name}=(\\S+)$`, 'm').exec(output)?.[1];
    const automationKey = printed('AUTOMATION_API_KEY')!;
    const secretKey = printed('EMAIL_SECRET_KEY')!;
    expect(printed('EMAIL_PUBLIC_KEY')).toMatch(/^pk_/);
    expect(secretKey).toMatch(/^sk_/);
    const automation = `${gateway}/automation`;
    const auth = { authorization: `Bearer ${automationKey}`, 'content-type': 'application/json' };

    const created = await fetch(`${automation}/api/v1/automations`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'e2e', keywords: ['guide'], link_url: 'https://example.com/guide', email_gate: true }),
    });
    expect(created.status).toBe(201);
    const { automation: made } = (await created.json()) as { automation: { id: number } };
    expect((await fetch(`${automation}/api/v1/automations/${made.id}/go_live`, { method: 'POST', headers: auth })).status).toBe(200);

    const post = (route: string, body: object) =>
      fetch(`${automation}/sandbox/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('comments', { text: 'GUIDE please', user_id: 'e2e-1', username: 'e2e_person' })).ok).toBe(true);
    await waitFor(async () => {
      const { sent } = (await (await fetch(`${automation}/sandbox/outbox`)).json()) as { sent: { to: { user_id?: string } }[] };
      return sent.some((m) => m.to.user_id === 'e2e-1');
    });
    expect((await post('messages', { text: 'e2e.person@example.org', user_id: 'e2e-1', username: 'e2e_person' })).ok).toBe(true);

    const contact = await waitFor(async () => {
      const res = await fetch(`${gateway}/email/contacts?search=e2e.person`, { headers: { authorization: `Bearer ${secretKey}` } });
      const { data } = (await res.json()) as { data: { email: string; data: Record<string, unknown> }[] };
      return data[0];
    });
    expect(contact).toMatchObject({ email: 'e2e.person@example.org', data: { igUsername: 'e2e_person' } });
  });

  it('stops cleanly on Ctrl-C (SIGINT) with exit code 0', async () => {
    started!.child.kill('SIGINT');
    const { code, signal } = await started!.exit;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(started!.output()).toMatch(/start: stopped/);
  }, 60_000);

  it('starts again on the same DATA_DIR with the same credentials and email project keys', async () => {
    const credentialLines = (text: string) => text.split('\n').filter((line) => /^ {4}[A-Z_]+=/.test(line));
    const before = credentialLines(output);
    started = startStack(dataDir, Number(new URL(gateway).port) - 3000);
    const again = await waitForReady(started);
    expect(credentialLines(again)).toEqual(before);
    const secretKey = /^ {4}EMAIL_SECRET_KEY=(\S+)$/m.exec(again)![1];
    const contacts = await fetch(`${gateway}/email/contacts`, { headers: { authorization: `Bearer ${secretKey}` } });
    expect(contacts.status).toBe(200);
    expect(((await contacts.json()) as { total: number }).total).toBe(1);
    started.child.kill('SIGINT');
    expect(await started.exit).toEqual({ code: 0, signal: null });
  }, READY_TIMEOUT_MS + 30_000);
});

describe('npm start refusals', () => {
  it('refuses to run with NODE_ENV=production', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-e2e-'));
    const child = spawn(process.execPath, [path.join(root, 'dist/tools/start.js')], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'production', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(text).toContain('development only');
    expect(fs.readdirSync(dataDir)).toEqual([]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('names the app that failed to start and why, stops the others and exits 1', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-e2e-'));
    // A bad value for one app: it fails its config validation at start.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT_OFFSET: String(await freePortOffset()),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      AUTH_ADMIN_EMAIL: 'not-an-email',
      AUTH_ADMIN_PASSWORD: 'long-enough-password',
    };
    for (const name of ['DATABASE_URL', 'AMQP_URL', 'REDIS_URL', 'START_USE_SERVERS', 'PORT']) delete env[name];
    const child = spawn(process.execPath, [path.join(root, 'dist/tools/start.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(text).toMatch(/start: auth-api failed to start: .*AUTH_ADMIN_EMAIL/s);
    expect(text).toContain('start: stopped after a failure');
    expect(text).not.toMatch(/^ready: /m);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 90_000);
});
