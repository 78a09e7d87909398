// Starts what the scenarios need, each app in its own child process as it is deployed
// (`node dist/apps/<app>/main.js`), on free loopback ports, with the embedded defaults under a
// temporary DATA_DIR; waits for /healthz; stops them at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitHealthy } from '@platform/testing';
import { BARE_PROXY, BARE_SERVER } from '@platform/bench';
import { SERVICES_BEHIND_GATEWAY, upstreamEnvName } from '@platform/registry';

/** Where each started process listens. */
export interface BenchTargets {
  url(name: string): string;
  /** A bearer token of auth-api's first user (part B), fetched once auth-api is up. */
  authToken(): string;
}

/** auth-api's first user in the bench (its password is made per run). */
const BENCH_ADMIN = { email: 'bench@example.com', password: `bench-${Math.random().toString(36).slice(2)}-pass` };

interface AppSpec {
  /** module to run; the apps are the built entries under dist/apps */
  entry: (root: string) => string[];
  env?: (urls: Map<string, string>) => Record<string, string>;
}

const APPS: Record<string, AppSpec> = {
  bare: { entry: () => ['-e', BARE_SERVER] },
  'bare-proxy': { entry: () => ['-e', BARE_PROXY], env: (urls) => ({ UPSTREAM: urls.get('auth-api')!, PREFIX: '/auth' }) },
  'auth-api': {
    entry: (root) => [path.join(root, 'dist/apps/auth-api/main.js')],
    env: () => ({ AUTH_ADMIN_EMAIL: BENCH_ADMIN.email, AUTH_ADMIN_PASSWORD: BENCH_ADMIN.password }),
  },
  gateway: {
    entry: (root) => [path.join(root, 'dist/apps/gateway/main.js')],
    env: (urls) =>
      Object.fromEntries(SERVICES_BEHIND_GATEWAY.filter((s) => urls.has(s.name)).map((s) => [upstreamEnvName(s.name), urls.get(s.name)!])),
  },
};

/** Start order: the proxies after the services they route to. */
const ORDER = (name: string) => (name === 'gateway' || name === 'bare-proxy' ? 1 : 0);

/** Part B's login (form-encoded) as the bench's first user: the token of the authenticated scenarios. */
async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: BENCH_ADMIN.email, password: BENCH_ADMIN.password }).toString(),
  });
  if (!res.ok) throw new Error(`bench: auth-api login answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export class BenchProcesses implements BenchTargets {
  private readonly urls = new Map<string, string>();
  private readonly children: { name: string; child: ChildProcess }[] = [];
  readonly dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));

  constructor(private readonly root: string) {}

  private token?: string;

  authToken(): string {
    if (!this.token) throw new Error('bench: auth-api is not running (add it to the scenario\'s needs)');
    return this.token;
  }

  url(name: string): string {
    const url = this.urls.get(name);
    if (!url) throw new Error(`bench: ${name} is not running (add it to the scenario's needs)`);
    return url;
  }

  async start(names: string[]): Promise<void> {
    for (const name of [...new Set(names)].sort((a, b) => ORDER(a) - ORDER(b))) {
      const spec = APPS[name];
      if (!spec) throw new Error(`bench: unknown app "${name}" (known: ${Object.keys(APPS).join(', ')})`);
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        PORT: String(port),
        DATA_DIR: path.join(this.dataDir, name),
        ...spec.env?.(this.urls),
      };
      for (const v of ['DATABASE_URL', 'AMQP_URL', 'REDIS_URL']) delete env[v];
      const child = spawn(process.execPath, spec.entry(this.root), { cwd: this.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
      child.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
      this.children.push({ name, child });
      const url = `http://127.0.0.1:${port}`;
      await waitHealthy(name, url, child, () => output);
      this.urls.set(name, url);
      if (name === 'auth-api') this.token = await login(url);
      process.stdout.write(`bench: ${name} ready on ${url} (pid ${child.pid})\n`);
    }
  }

  async stop(): Promise<void> {
    for (const { child } of [...this.children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}
