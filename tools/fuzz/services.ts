// What the fuzzer knows of each service: its error shape, the settings it starts with, the apps and
// fake outside servers it needs, and a setup that makes credentials (two tenants where the service
// has tenants: the fuzz calls as the second, so it reaches past the guards) and seeds records — the
// first tenant's record must be unchanged after the run (`snapshot`).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort, startFakeDnsServer, startFakeDockerEngine, startFakeTranscriptionEngine, type DnsRecords, type FakeDnsServer } from '@platform/testing';
import type { ErrorShape } from './check';
import type { FuzzApp } from './stack';

export interface Setup {
  /** credential name → headers; `none` and `wrong` are added by the run */
  credentials: Record<string, Record<string, string>>;
  /** how often each credential is used (the run's `none` and `wrong` included) */
  weights?: Record<string, number>;
  /** seeded ids by name (`seed` is the other tenant's record; `own`… the fuzzing tenant's) */
  ids: Record<string, string>;
  /** JSON field values the generator uses for fields of that name (e.g. a body `api_key`) */
  fields?: Record<string, string[]>;
  /** headers added to some requests (values may hold `{{id:name}}`) */
  headers?: Record<string, string[]>;
  /** the other tenant's seeded record as its owner reads it; compared before and after the run */
  snapshot?: () => Promise<string>;
  /** operations (`POST /path`) that end the session of the credential they are sent with: fuzzed without one */
  sessionEnding?: string[];
  /** an SMTP listener of the service to fuzz too: its port and the mail domains it receives for */
  smtp?: { port: number; domains: string[] };
  /** the wrong credential's headers (default: a bearer token that no one issued) */
  wrong?: Record<string, string>;
}

export interface Running {
  app(name: string): FuzzApp;
  /** closes the fakes this setup started */
  onStop(fn: () => Promise<void>): void;
}

export interface FuzzService {
  name: string;
  shape: ErrorShape;
  /** needs a database */
  database: boolean;
  /** other apps started (and set up) before this one */
  needs?: string[];
  /** settings; may start fakes first */
  env?: (running: Running) => Promise<Record<string, string>>;
  /** other error shapes the service's description gives paths under these prefixes */
  pathShapes?: { prefix: string; shape: ErrorShape }[];
  /** paths that must answer 2xx once the run is over */
  health: string[];
  /** headers of those health requests (a key the health route needs) */
  healthHeaders?: Record<string, string>;
  setup?: (app: FuzzApp, running: Running) => Promise<Setup>;
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers for the setups

interface Reply {
  status: number;
  body: any;
  text: string;
  cookie?: string;
}

export async function call(base: string, method: string, target: string, opts: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  }
  const res = await fetch(`${base}${target}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return { status: res.status, body: parsed, text, cookie: cookie || undefined };
}

/** The call must succeed (2xx); its body (unwrapped from `{success, data}`). */
async function ok(what: string, reply: Promise<Reply>): Promise<any> {
  const r = await reply;
  if (r.status >= 300) throw new Error(`fuzz setup: ${what} answered ${r.status}: ${r.text.slice(0, 300)}`);
  return r.body && typeof r.body === 'object' && 'success' in r.body && 'data' in r.body ? r.body.data : r.body;
}

const secret = (n = 18) => randomBytes(n).toString('base64url');
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** A stable JSON text of a record without the fields that change on reads. */
const stable = (value: unknown) => JSON.stringify(value, (k, v) => (/^(last_?(seen|used|login|active)|updated_?at|lastSeenAt|lastUsedAt)/i.test(k) ? undefined : v));

// ---------------------------------------------------------------------------------------------

const AUTH_ADMIN = { email: 'fuzz-admin@example.com', password: secret() };
const LOGISTICS_ADMIN = { email: 'fuzz-logistics@example.com', password: secret() };
const AUTOMATION_KEY = `fuzz_automation_${secret(24)}`;
const CONVERSATION_ADMIN = { email: 'fuzz-a@example.com', password: secret() };
const KNOWLEDGE_KEY = `fuzz_knowledge_${secret(24)}`;
const MCP_KEY = `fuzz_mcp_${secret(24)}`;
const LOGISTICS_KEY = `fuzz_logistics_${secret(24)}`;
/** email-api's inbound SMTP port and DNS server in this run */
let smtpPort = 0;
let emailDns: FakeDnsServer | undefined;

async function logisticsAdminToken(auth: FuzzApp): Promise<string> {
  const b = await ok('logistics admin login', call(auth.url, 'POST', '/api/v1/logistics/auth/login', { json: LOGISTICS_ADMIN }));
  return b.access_token;
}

export const FUZZ_SERVICES: FuzzService[] = [
  {
    name: 'auth-api',
    shape: 'detail',
    database: true,
    health: ['/healthz', '/.well-known/jwks.json'],
    env: async () => ({
      AUTH_ADMIN_EMAIL: AUTH_ADMIN.email,
      AUTH_ADMIN_PASSWORD: AUTH_ADMIN.password,
      LOGISTICS_ADMIN_EMAIL: LOGISTICS_ADMIN.email,
      LOGISTICS_ADMIN_PASSWORD: LOGISTICS_ADMIN.password,
    }),
    async setup(app) {
      const partB = await ok('part B login', call(app.url, 'POST', '/api/v1/auth/login', { form: { username: AUTH_ADMIN.email, password: AUTH_ADMIN.password } }));
      const admin = await logisticsAdminToken(app);
      const driver = { email: 'fuzz-driver@example.com', password: secret(), role: 'driver', full_name: 'Fuzz Driver' };
      await ok('logistics user', call(app.url, 'POST', '/api/v1/logistics/users', { headers: bearer(admin), json: driver }));
      const driverLogin = await ok('driver login', call(app.url, 'POST', '/api/v1/logistics/auth/login', { json: { email: driver.email, password: driver.password } }));
      return {
        // The fuzz holds the other realm's token and a lesser role's, never the logistics admin's.
        credentials: { partB: bearer(partB.access_token), driver: bearer(driverLogin.access_token) },
        weights: { partB: 3, driver: 3 },
        ids: {},
        fields: { refresh_token: [driverLogin.refresh_token] },
        sessionEnding: ['POST /api/v1/logistics/auth/logout', 'POST /api/v1/logistics/auth/refresh'],
        snapshot: async () => stable(await ok('users as the admin', call(app.url, 'GET', '/api/v1/logistics/users', { headers: bearer(admin) }))),
      };
    },
  },
  {
    name: 'automation-api',
    shape: 'plain',
    database: true,
    health: ['/healthz'],
    env: async () => ({ AUTOMATION_API_KEY: AUTOMATION_KEY, AUTOMATION_TOKEN_KEY: randomBytes(32).toString('hex') }),
    async setup(app) {
      const out = await app.command(['create-account', 'fuzz']);
      const key = /API key: (\S+)/.exec(out)?.[1];
      if (!key) throw new Error(`fuzz setup: create-account printed no key: ${out}`);
      const seed = (await ok('seed automation', call(app.url, 'POST', '/api/v1/automations', { headers: bearer(AUTOMATION_KEY), json: { name: 'seed', keywords: ['seed'] } }))).automation;
      const own = (await ok('own automation', call(app.url, 'POST', '/api/v1/automations', { headers: bearer(key), json: { name: 'own', keywords: ['own'] } }))).automation;
      return {
        credentials: { fuzzer: bearer(key) },
        ids: { seed: String(seed.id), own: String(own.id) },
        snapshot: async () => stable(await ok('seed automation', call(app.url, 'GET', `/api/v1/automations/${seed.id}`, { headers: bearer(AUTOMATION_KEY) }))),
      };
    },
  },
  {
    name: 'autostart-proxy',
    shape: 'plain',
    // "Sablier's API … errors are RFC 7807 problems" (its description).
    pathShapes: [{ prefix: '/api/strategies', shape: 'problem' }],
    database: true,
    health: ['/healthz', '/health'],
    async env(running) {
      const engine = await startFakeDockerEngine({ containers: [{ name: 'web', state: 'running' }, { name: 'idle', state: 'exited' }] });
      const upstream = http.createServer((req, res) => {
        req.resume();
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true, path: req.url?.slice(0, 100) }));
      });
      await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
      const upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fuzz-autostart-'));
      const config = path.join(dir, 'services.yaml');
      fs.writeFileSync(
        config,
        [
          'services:',
          '  - name: web',
          '    hosts: [web.test]',
          '    mode: async',
          `    upstream: ${upstreamUrl}`,
          '    provider: docker',
          '    target: web',
          '    healthCheck: /health',
          '  - name: idle',
          '    hosts: [idle.test]',
          '    mode: dynamic',
          `    upstream: ${upstreamUrl}`,
          '    provider: docker',
          '    target: idle',
          '    healthCheck: /health',
          '',
        ].join('\n'),
      );
      running.onStop(async () => {
        await engine.close();
        await new Promise((r) => upstream.close(r));
        fs.rmSync(dir, { recursive: true, force: true });
      });
      return { AUTOSTART_CONFIG: config, DOCKER_HOST: engine.dockerHost };
    },
    async setup() {
      return {
        credentials: {},
        ids: { web: 'web.test', idle: 'idle.test', webName: 'web', idleName: 'idle' },
        headers: { 'X-Autostart-Target': ['web.test', 'idle.test', 'nobody.test', '', 'WEB.TEST', 'web.test:80', '%ED%A0%80'] },
      };
    },
  },
  {
    name: 'conversation-api',
    shape: 'envelope',
    database: true,
    health: ['/healthz'],
    env: async () => ({
      CONVERSATION_ADMIN_EMAIL: CONVERSATION_ADMIN.email,
      CONVERSATION_ADMIN_PASSWORD: CONVERSATION_ADMIN.password,
      CONVERSATION_JWT_SECRET: secret(32),
      CONVERSATION_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      CONVERSATION_RATE_LIMIT_PER_MINUTE: '1000000',
    }),
    async setup(app) {
      const other = { email: 'fuzz-b@example.com', password: secret() };
      await app.command(['create-account', 'fuzz', other.email, other.password]);
      const a = await ok('login A', call(app.url, 'POST', '/api/v1/auth/login', { json: CONVERSATION_ADMIN }));
      const b = await ok('login B', call(app.url, 'POST', '/api/v1/auth/login', { json: other }));
      const seed = await ok('seed label', call(app.url, 'POST', '/api/v1/labels', { headers: bearer(a.access_token), json: { name: 'seed', color: '#ff0000' } }));
      const own = await ok('own label', call(app.url, 'POST', '/api/v1/labels', { headers: bearer(b.access_token), json: { name: 'own' } }));
      const canned = await ok('own canned response', call(app.url, 'POST', '/api/v1/canned-responses', { headers: bearer(b.access_token), json: { short_code: 'own', content: 'Hello {{contact.name}}' } }));
      return {
        credentials: { fuzzer: bearer(b.access_token) },
        ids: { seed: String(seed.id), own: String(own.id), canned: String(canned.id) },
        fields: { refresh_token: [b.refresh_token] },
        sessionEnding: ['POST /api/v1/auth/logout', 'POST /api/v1/auth/refresh'],
        snapshot: async () => stable(await ok('seed label', call(app.url, 'GET', `/api/v1/labels/${seed.id}`, { headers: bearer(a.access_token) }))),
      };
    },
  },
  {
    name: 'email-api',
    shape: 'envelope',
    database: true,
    health: ['/healthz'],
    env: async (running) => {
      smtpPort = await freePort();
      // Its own DNS: the fuzzing project's domain verifies, so its mail reaches the receiver's DATA handling.
      emailDns = await startFakeDnsServer();
      const dns = emailDns;
      running.onStop(() => dns.close());
      return {
        JWT_SECRET: secret(48),
        EMAIL_RATE_LIMIT_PER_MINUTE: '1000000',
        AUTH_LIMIT_PER_IP: '1000000',
        INBOUND_SMTP_PORT: String(smtpPort),
        INBOUND_SMTP_HOST: '127.0.0.1',
        DNS_SERVERS: dns.address,
        DNS_TIMEOUT_MS: '3000',
      };
    },
    async setup(app) {
      const tenant = async (name: string) => {
        const login = { email: `fuzz-${name}@example.com`, password: `Fuzz-${secret()}-1a` };
        const signup = await call(app.url, 'POST', '/auth/signup', { json: { ...login, name } });
        const cookie = signup.cookie ?? (await call(app.url, 'POST', '/auth/login', { json: login })).cookie;
        if (!cookie) throw new Error(`fuzz setup: email-api gave no session (${signup.status} ${signup.text.slice(0, 200)})`);
        const project = await ok('project', call(app.url, 'POST', '/users/@me/projects', { headers: { cookie }, json: { name } }));
        return { cookie, projectId: project.id as string, sk: project.secretKey as string, pk: project.publicKey as string };
      };
      const a = await tenant('seed');
      const b = await tenant('fuzzer');
      const seed = await ok('seed contact', call(app.url, 'POST', '/contacts', { headers: bearer(a.sk), json: { email: 'seed@example.com', data: { plan: 'pro' } } }));
      const own = await ok('own contact', call(app.url, 'POST', '/contacts', { headers: bearer(b.sk), json: { email: 'own@example.com' } }));
      const domain = await ok('own domain', call(app.url, 'POST', '/domains', { headers: bearer(b.sk), json: { domain: 'fuzz.test' } }));
      const byName = new Map<string, DnsRecords>();
      for (const r of domain.records as { type: 'TXT' | 'MX' | 'CNAME'; name: string; value: string; priority?: number }[]) {
        const rec = byName.get(r.name) ?? {};
        if (r.type === 'TXT') rec.TXT = [...(rec.TXT ?? []), r.value];
        else if (r.type === 'MX') rec.MX = [...(rec.MX ?? []), { priority: r.priority ?? 10, exchange: r.value }];
        else rec.CNAME = r.value;
        byName.set(r.name, rec);
      }
      for (const [name, rec] of byName) emailDns?.set(name, rec);
      // A loaded machine may miss the 1 s DNS timeout: checked again until verified.
      for (let i = 0; i < 10; i++) {
        const checked = await ok('domain verification', call(app.url, 'GET', `/domains/${domain.id}/verify`, { headers: bearer(b.sk) }));
        if (checked.status === 'verified') break;
        if (i === 9) throw new Error(`fuzz setup: fuzz.test did not verify: ${JSON.stringify(checked.checks)}`);
      }
      return {
        credentials: { fuzzer: bearer(b.sk), fuzzerPublic: bearer(b.pk), fuzzerSession: { cookie: b.cookie } },
        weights: { fuzzer: 4, fuzzerPublic: 1, fuzzerSession: 2 },
        ids: { seed: seed.id, own: own.id, seedProject: a.projectId, ownProject: b.projectId, seedEmail: 'seed@example.com', domain: domain.id },
        headers: { 'X-Project-Id': ['{{id:ownProject}}', '{{id:seedProject}}', 'not-a-uuid'] },
        sessionEnding: ['POST /auth/logout', 'POST /users/@me/projects/{id}/regenerate-keys'],
        smtp: { port: smtpPort, domains: ['example.com', 'localhost', 'fuzz.test'] },
        snapshot: async () =>
          stable([
            await ok('seed contact', call(app.url, 'GET', `/contacts/${seed.id}`, { headers: bearer(a.sk) })),
            await ok('seed projects', call(app.url, 'GET', '/users/@me/projects', { headers: { cookie: a.cookie } })),
          ]),
      };
    },
  },
  {
    name: 'knowledge-api',
    shape: 'plain',
    database: true,
    health: ['/healthz', '/api/health'],
    healthHeaders: { 'x-api-key': KNOWLEDGE_KEY },
    env: async () => ({ KNOWLEDGE_API_KEY: KNOWLEDGE_KEY, MCP_HOST: '127.0.0.1' }),
    async setup(app) {
      const headers = { 'x-api-key': KNOWLEDGE_KEY };
      await ok('project', call(app.url, 'POST', '/api/projects', { headers, json: { title: 'own', description: 'fuzz' } }));
      let projectId: string | undefined;
      for (let i = 0; i < 100 && !projectId; i++) {
        const list = await ok('projects', call(app.url, 'GET', '/api/projects', { headers }));
        const projects = Array.isArray(list) ? list : (list?.projects ?? []);
        projectId = projects[0]?.id;
        if (!projectId) await new Promise((r) => setTimeout(r, 100));
      }
      const ids: Record<string, string> = {};
      if (projectId) {
        ids.project = projectId;
        const task = await ok('task', call(app.url, 'POST', '/api/tasks', { headers, json: { project_id: projectId, title: 'own' } }));
        const t = task?.task ?? task;
        if (t?.id) ids.task = String(t.id);
      }
      // Single tenant: the key is the one credential, so nothing belongs to someone else.
      return { credentials: { fuzzer: headers }, ids, wrong: { 'x-api-key': 'wrong-key' } };
    },
  },
  {
    name: 'transcribe-api',
    shape: 'detail',
    database: true,
    health: ['/healthz', '/health'],
    async env(running) {
      const engine = await startFakeTranscriptionEngine();
      running.onStop(() => engine.close());
      return { WHISPER_URL: engine.url, FASTER_WHISPER_URL: engine.url };
    },
  },
  {
    name: 'logistics-hooks',
    shape: 'envelope',
    database: true,
    needs: ['auth-api'],
    health: ['/healthz'],
    env: async (running) => ({ LOGISTICS_API_KEY: LOGISTICS_KEY, AUTH_JWKS_URL: `${running.app('auth-api').url}/.well-known/jwks.json` }),
    async setup(app, running) {
      const admin = await logisticsAdminToken(running.app('auth-api'));
      const report = await ok('error report', call(app.url, 'POST', '/api/errors/report', { json: { api_key: LOGISTICS_KEY, message: 'seed error', severity: 'error' } }));
      const id = report?.id ?? report?.error?.id;
      const ids: Record<string, string> = id ? { own: String(id) } : {};
      return {
        // Part G's admin token: the only role these routes know (the driver's is refused).
        credentials: { admin: bearer(admin) },
        ids,
        fields: { api_key: [LOGISTICS_KEY, LOGISTICS_KEY, 'wrong'] },
      };
    },
  },
  {
    name: 'knowledge-mcp',
    shape: 'plain',
    // "Inside the protocol: JSON-RPC errors (400 without a session, 404 for a closed session)" (its description).
    pathShapes: [
      { prefix: '/mcp', shape: 'jsonrpc' },
      { prefix: '/messages', shape: 'jsonrpc' },
    ],
    database: false,
    needs: ['knowledge-api'],
    health: ['/healthz'],
    env: async (running) => ({ KNOWLEDGE_API_URL: running.app('knowledge-api').url, KNOWLEDGE_API_KEY: KNOWLEDGE_KEY, KNOWLEDGE_MCP_API_KEY: MCP_KEY }),
    async setup() {
      return {
        credentials: { fuzzer: bearer(MCP_KEY) },
        ids: {},
        fields: { jsonrpc: ['2.0'], method: ['initialize', 'tools/list', 'tools/call', 'ping', 'resources/list', 'notifications/initialized'] },
        headers: { accept: ['application/json, text/event-stream', 'text/event-stream', 'application/json', '*/*'], 'mcp-session-id': ['x', '{{id:none}}'] },
      };
    },
  },
];

export const GATEWAY: FuzzService = { name: 'gateway', shape: 'gateway', database: false, health: ['/healthz'] };
