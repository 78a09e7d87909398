// `npm start` (development only): one embedded PostgreSQL, then every app of the registry of services
// (services.json) that exists, in this one process on the embedded defaults, the gateway last;
// development credentials filled in and printed with every URL;
// Ctrl-C (SIGINT) or SIGTERM closes every app, then the database, and exits 0.
//
// Environment (all optional):
//   DATA_DIR             where the embedded database, uploads and the generated credentials live (./.data)
//   PORT_OFFSET          added to every app's standard port (e.g. 10000 → gateway on 13000)
//   PORT_<APP>           one app's port, e.g. PORT_AUTH_API=4004, PORT_GATEWAY=8080
//   START_HOST           listen address of every app (127.0.0.1: the printed credentials are not for a network)
//   START_USE_SERVERS=1  use DATABASE_URL, AMQP_URL and REDIS_URL from the environment instead of the
//                        embedded database, in-process bus and in-memory counters
//   any app variable     wins over the development value (AUTH_ADMIN_PASSWORD=…)
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensureEmbeddedPostgres, stopEmbeddedPostgres } from '@platform/database';
import { ConfigValidationError, startService, type RunningService, type ServiceDefinition } from '@platform/platform';
import { SERVICES_BEHIND_GATEWAY, upstreamEnvName } from '@platform/registry';
import { registeredApps } from './dev/apps';
import { ensureDevEmailProject } from './dev/email-project';

interface DevSettings {
  /** development credentials (names from DEV_CREDENTIALS) this app receives when they are unset */
  credentials?: string[];
  /** other development settings */
  env?: Record<string, string>;
  /** settings this app receives from one started before it (names from `provide`), unless set */
  uses?: string[];
  /** once the app runs: settings (and their printed values) for the apps after it */
  provide?: (app: RunningService, credentials: Record<string, string>, dataDir: string) => Promise<Record<string, string>>;
}

interface AppEntry extends DevSettings {
  def: ServiceDefinition<any>;
}

/** Development settings by app name; the apps themselves are the registry's (tools/dev/apps.ts). */
const DEV_SETTINGS: Record<string, DevSettings> = {
  'email-api': { credentials: ['JWT_SECRET'], provide: provideEmailProject },
  'automation-api': { credentials: ['AUTOMATION_API_KEY', 'IG_VERIFY_TOKEN', 'AUTOMATION_TOKEN_KEY'], uses: ['EMAIL_PUBLIC_KEY'] },
  'auth-api': { credentials: ['AUTH_ADMIN_EMAIL', 'AUTH_ADMIN_PASSWORD', 'LOGISTICS_ADMIN_EMAIL', 'LOGISTICS_ADMIN_PASSWORD'], provide: provideJwksUrl },
  'logistics-hooks': { credentials: ['LOGISTICS_API_KEY'], uses: ['AUTH_JWKS_URL'] },
  'conversation-api': { credentials: ['CONVERSATION_ADMIN_EMAIL', 'CONVERSATION_ADMIN_PASSWORD'] },
  // In one process the MCP server already runs: knowledge-api reaches it on loopback (its tools), and
  // its container control reports the container it cannot find.
  'knowledge-api': { credentials: ['KNOWLEDGE_API_KEY', 'KNOWLEDGE_MCP_API_KEY'], env: { MCP_HOST: '127.0.0.1' } },
  'knowledge-mcp': { credentials: ['KNOWLEDGE_API_KEY', 'KNOWLEDGE_MCP_API_KEY'] },
};

/** Start order: apps that provide settings to others first, then the rest in registry order, the gateway last. */
function appsToStart(): AppEntry[] {
  const rank = (entry: AppEntry) => (entry.def.name === 'gateway' ? 2 : entry.provide ? 0 : 1);
  return registeredApps()
    .map((def) => ({ def, ...DEV_SETTINGS[def.name] }))
    .sort((a, b) => rank(a) - rank(b));
}

/**
 * Every development credential of ARCHITECTURE.md "First credentials": a fixed value, or a secret
 * generated once and kept in DATA_DIR so that it stays the same across restarts.
 */
const DEV_CREDENTIALS: Record<string, string | (() => string)> = {
  AUTH_ADMIN_EMAIL: 'admin@example.com',
  AUTH_ADMIN_PASSWORD: () => secret(12),
  LOGISTICS_ADMIN_EMAIL: 'logistics-admin@example.com',
  LOGISTICS_ADMIN_PASSWORD: () => secret(12),
  CONVERSATION_ADMIN_EMAIL: 'admin@example.com',
  CONVERSATION_ADMIN_PASSWORD: () => secret(12),
  AUTOMATION_API_KEY: () => `dev_automation_${secret(24)}`,
  KNOWLEDGE_API_KEY: () => `dev_knowledge_${secret(24)}`,
  KNOWLEDGE_MCP_API_KEY: () => `dev_knowledge_mcp_${secret(24)}`,
  LOGISTICS_API_KEY: () => `dev_logistics_${secret(24)}`,
  JWT_SECRET: () => secret(48),
  EMAIL_DEV_EMAIL: 'developer@example.com',
  EMAIL_DEV_PASSWORD: () => secret(12),
  IG_VERIFY_TOKEN: () => secret(16),
  AUTOMATION_TOKEN_KEY: () => randomBytes(32).toString('hex'),
};

const CREDENTIALS_FILE = 'dev-credentials.json';
/** Outer variables ignored unless START_USE_SERVERS=1: npm start runs on the embedded defaults. */
const SERVER_VARIABLES = ['DATABASE_URL', 'AMQP_URL', 'REDIS_URL'];

function secret(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

const envName = (app: string) => app.toUpperCase().replace(/[^A-Z0-9]+/g, '_');

function out(line = ''): void {
  process.stdout.write(`${line}\n`);
}

/** Loads the credentials kept in DATA_DIR, generating (and saving) any that are missing. */
function loadCredentials(dataDir: string): Record<string, string> {
  const file = path.join(dataDir, CREDENTIALS_FILE);
  let saved: Record<string, string> = {};
  if (fs.existsSync(file)) saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  let changed = false;
  for (const [name, value] of Object.entries(DEV_CREDENTIALS)) {
    if (typeof saved[name] === 'string' && saved[name] !== '') continue;
    saved[name] = typeof value === 'function' ? value() : value;
    changed = true;
  }
  if (changed) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  }
  return saved;
}

/** Saves one more value into DATA_DIR/dev-credentials.json. */
function saveCredential(dataDir: string, credentials: Record<string, string>, name: string, value: string): void {
  if (credentials[name] === value) return;
  credentials[name] = value;
  fs.writeFileSync(path.join(dataDir, CREDENTIALS_FILE), `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
}

/**
 * email-api's development user and project: automation-api sends captured emails to it
 * (EMAIL_PUBLIC_KEY), and the newcomer gets a dashboard login and a secret key to call email-api with.
 */
async function provideEmailProject(app: RunningService, credentials: Record<string, string>, dataDir: string): Promise<Record<string, string>> {
  if (process.env.EMAIL_PUBLIC_KEY) return {};
  const project = await ensureDevEmailProject(app.url, {
    email: credentials.EMAIL_DEV_EMAIL,
    password: credentials.EMAIL_DEV_PASSWORD,
    secretKey: credentials.EMAIL_SECRET_KEY,
  });
  saveCredential(dataDir, credentials, 'EMAIL_SECRET_KEY', project.secretKey);
  return {
    EMAIL_DEV_EMAIL: credentials.EMAIL_DEV_EMAIL,
    EMAIL_DEV_PASSWORD: credentials.EMAIL_DEV_PASSWORD,
    EMAIL_PUBLIC_KEY: project.publicKey,
    EMAIL_SECRET_KEY: project.secretKey,
  };
}

/** auth-api's key set, against which logistics-hooks verifies the logistics realm's admin tokens. */
async function provideJwksUrl(app: RunningService): Promise<Record<string, string>> {
  return { AUTH_JWKS_URL: `${app.url}/.well-known/jwks.json` };
}

function portOf(def: { name: string; port: number }, env: NodeJS.ProcessEnv): number {
  const own = env[`PORT_${envName(def.name)}`];
  const offset = Number(env.PORT_OFFSET ?? 0);
  const port = own !== undefined && own !== '' ? Number(own) : def.port + offset;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`invalid port for ${def.name}: check PORT_OFFSET and PORT_${envName(def.name)}`);
  }
  return port;
}

async function main(): Promise<void> {
  const env = process.env;
  if (env.NODE_ENV === 'production') {
    process.stderr.write('start: tools/start.ts is for development only (NODE_ENV=production). Run each app with `node dist/apps/<app>/main.js`.\n');
    process.exit(1);
  }
  const dataDir = path.resolve(env.DATA_DIR || './.data');
  const host = env.START_HOST || '127.0.0.1';
  const useServers = env.START_USE_SERVERS === '1';
  const running: RunningService[] = [];
  let stopping: Promise<void> | undefined;
  let embedded = false;

  const stop = (code: number): Promise<void> =>
    (stopping ??= (async () => {
      for (const app of [...running].reverse()) {
        await app.close().catch((err: unknown) => out(`start: closing ${app.name} failed: ${(err as Error).message}`));
      }
      if (embedded) await stopEmbeddedPostgres(dataDir).catch((err: unknown) => out(`start: stopping the database failed: ${(err as Error).message}`));
      out(code === 0 ? 'start: stopped' : 'start: stopped after a failure');
      process.exit(code);
    })());

  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      out(`start: ${signal} again, exiting without waiting`);
      process.exit(1);
    }
    interrupted = true;
    out(`start: ${signal}: closing every app, then the database`);
    void stop(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const credentials = loadCredentials(dataDir);
  const base: Record<string, string | undefined> = { ...env, NODE_ENV: env.NODE_ENV || 'development', DATA_DIR: dataDir };
  for (const name of ['PORT', 'DATABASE_SCHEMA', ...(useServers ? [] : SERVER_VARIABLES)]) delete base[name];

  if (!base.DATABASE_URL) {
    out(`start: starting the embedded PostgreSQL in ${path.join(dataDir, 'pglite')}`);
    await ensureEmbeddedPostgres(dataDir);
    embedded = true;
  }

  const apps = appsToStart();
  const gatewayDef = apps.find((entry) => entry.def.name === 'gateway')?.def;
  if (!gatewayDef) throw new Error('apps/gateway is missing: npm start runs every app behind the gateway');
  const gatewayEnv: Record<string, string> = {};
  for (const service of SERVICES_BEHIND_GATEWAY) gatewayEnv[upstreamEnvName(service.name)] = `http://127.0.0.1:${portOf(service, env)}`;
  // Click-tracking links (automation-api) point at the gateway, where a newcomer's browser reaches them.
  const gatewayOrigin = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${portOf(gatewayDef, env)}`;
  const devEnv: Record<string, Record<string, string>> = {
    'automation-api': { PUBLIC_BASE_URL: `${gatewayOrigin}/automation` },
    gateway: gatewayEnv,
  };
  const entries: AppEntry[] = apps.map((entry) => ({ ...entry, env: { ...devEnv[entry.def.name], ...entry.env } }));
  const given: Record<string, string> = {};
  const provided: Record<string, string> = {};

  for (const entry of entries) {
    if (interrupted) return;
    const appEnv: Record<string, string | undefined> = { ...base };
    for (const name of entry.credentials ?? []) {
      if (env[name]) continue;
      appEnv[name] = credentials[name];
      given[name] = credentials[name];
    }
    for (const [name, value] of Object.entries(entry.env ?? {})) if (!env[name]) appEnv[name] = value;
    for (const name of entry.uses ?? []) if (!env[name] && provided[name]) appEnv[name] = provided[name];
    try {
      const app = await startService(entry.def, { env: appEnv, port: portOf(entry.def, env), host });
      running.push(app);
      if (entry.provide) Object.assign(given, Object.assign(provided, await entry.provide(app, credentials, dataDir)));
      if (entry.def.name !== 'gateway') gatewayEnv[upstreamEnvName(entry.def.name)] = app.url;
    } catch (err) {
      const why = err instanceof ConfigValidationError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
      out(`start: ${entry.def.name} failed to start: ${why}`);
      await stop(1);
      return;
    }
  }
  printBanner(running, given, useServers);
}

function printBanner(running: RunningService[], given: Record<string, string>, useServers: boolean): void {
  const gateway = running.find((r) => r.name === 'gateway');
  const lines = ['', '─'.repeat(72), 'Development stack (npm start) — do not use these credentials anywhere else', ''];
  for (const app of running) {
    const route = SERVICES_BEHIND_GATEWAY.find((s) => s.name === app.name);
    if (!route) continue;
    lines.push(`  ${app.name.padEnd(18)} ${app.url.padEnd(24)} via gateway ${gateway?.url ?? ''}${route.prefix}   docs ${gateway?.url ?? app.url}${route.prefix}/api/docs`);
  }
  const missing = SERVICES_BEHIND_GATEWAY.filter((s) => !running.some((r) => r.name === s.name)).map((s) => s.name);
  if (missing.length) lines.push(`  not started (no apps/<name> yet): ${missing.join(', ')}`);
  lines.push('');
  if (Object.keys(given).length) {
    lines.push('  Development credentials (kept in DATA_DIR/dev-credentials.json; set a variable to override):');
    for (const [name, value] of Object.entries(given)) lines.push(`    ${name}=${value}`);
    lines.push('');
  }
  lines.push(
    useServers
      ? '  Using DATABASE_URL, AMQP_URL and REDIS_URL from the environment where set (START_USE_SERVERS=1).'
      : '  Embedded PostgreSQL, in-process event bus and in-memory counters (START_USE_SERVERS=1 uses real servers).',
  );
  lines.push('─'.repeat(72));
  lines.push(`ready: gateway ${gateway?.url ?? '(not started)'} — services listed at ${gateway?.url ?? ''}/ — Ctrl-C stops everything`);
  out(lines.join('\n'));
}

main().catch((err: unknown) => {
  process.stderr.write(`start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
