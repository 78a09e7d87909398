// auth-api itself, built and started in a child process on a throwaway database: its logistics realm
// issues the admin tokens and serves the JWKS that logistics-hooks verifies them against. Nothing of
// auth-api's code is imported (module boundaries); the tokens are the ones it issues in production.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, freePort, waitHealthy, type TestDatabase } from '@platform/testing';

const ROOT = path.resolve(__dirname, '../../..');

export interface RunningAuthApi {
  url: string;
  jwksUrl: string;
  issuer: string;
  admin: { email: string; password: string };
  /** An access token of the logistics realm (POST /api/v1/logistics/auth/login). */
  login(email: string, password: string): Promise<string>;
  /** Creates a logistics user with the admin's token (POST /api/v1/logistics/users). */
  createUser(adminToken: string, user: { email: string; password: string; role: string }): Promise<void>;
  /** Logs the session of this access token out (POST /api/v1/logistics/auth/logout). */
  logout(accessToken: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Test files run in parallel and the build rewrites dist/ in place: one file at a time builds and
 * starts auth-api (until it answers, every module is loaded), under a lock directory (mkdir is atomic).
 */
async function withBuildLock<T>(fn: () => Promise<T>): Promise<T> {
  const lock = path.join(ROOT, 'dist', '.auth-api-test.lock');
  mkdirSync(path.dirname(lock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // a lock older than two minutes was left by a killed run
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** `env`: more variables for auth-api, e.g. AMQP_URL and EVENTS_* so that its events reach a test broker. */
export async function startAuthApi(extraEnv: Record<string, string> = {}): Promise<RunningAuthApi> {
  return withBuildLock(async () => {
    execFileSync(process.execPath, ['tools/build.mjs', 'auth-api'], { cwd: ROOT, stdio: 'pipe' });
    return boot(extraEnv);
  });
}

async function boot(extraEnv: Record<string, string>): Promise<RunningAuthApi> {
  const database: TestDatabase = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'auth-api-for-logistics-'));
  const port = await freePort();
  const issuer = 'auth-api-test';
  const admin = { email: 'logistics-admin@example.com', password: 'admin-password-123' };
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['AMQP_URL', 'REDIS_URL', 'DATABASE_SCHEMA', 'AUTH_JWT_PRIVATE_KEY']) delete env[name];
  Object.assign(env, {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    PORT: String(port),
    DATA_DIR: dataDir,
    DB_MIGRATE_ON_START: 'true',
    DATABASE_URL: database.url,
    ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}),
    AUTH_ISSUER: issuer,
    LOGISTICS_ADMIN_EMAIL: admin.email,
    LOGISTICS_ADMIN_PASSWORD: admin.password,
    ...extraEnv,
  });
  const child: ChildProcess = spawn(process.execPath, ['dist/apps/auth-api/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitHealthy('auth-api', url, child, () => output, 60_000);
  } catch (err) {
    await close();
    throw err;
  }

  const login = async (email: string, password: string): Promise<string> => {
    const res = await fetch(`${url}/api/v1/logistics/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    if (!res.ok) throw new Error(`auth-api login answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const createUser = async (adminToken: string, user: { email: string; password: string; role: string }): Promise<void> => {
    const res = await fetch(`${url}/api/v1/logistics/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify(user),
    });
    if (res.status !== 201) throw new Error(`auth-api create user answered ${res.status}: ${await res.text()}`);
  };
  const logout = async (accessToken: string): Promise<void> => {
    const res = await fetch(`${url}/api/v1/logistics/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: '{}' });
    if (res.status !== 204) throw new Error(`auth-api logout answered ${res.status}: ${await res.text()}`);
  };
  return { url, jwksUrl: `${url}/.well-known/jwks.json`, issuer, admin, login, createUser, logout, close };
}
