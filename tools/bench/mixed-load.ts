// The mixed load of `npm run bench`: every service started as deployed (each in its own process, with
// its own PostgreSQL database, credentials and seeded records: tools/fuzz/service-stack.ts) behind the
// gateway; one hot path per service driven through the gateway at once, the load growing stage by
// stage, by a generator in its own process (mixed-load-process.ts). Reports each path's throughput,
// p50/p99 and failed requests per stage, and each service's resident memory before and after.
// The soak mode holds one stage for a while, window after window, and judges memory growth and
// latency drift (soak.ts).
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { SERVICES_BEHIND_GATEWAY } from '@platform/registry';
import { makeWav } from '@platform/testing';
import { FUZZ_SERVICES } from '../fuzz/services';
import { ServiceStack } from '../fuzz/service-stack';
import type { LoadMessage, LoadPath, LoadResult, LoadWindow } from './mixed-load-types';
import { judgeSoak, type SoakVerdict, type SoakWindow } from './soak';

export interface MixedLoadOptions {
  root: string;
  /** connections per path, one stage each */
  stages: number[];
  /** seconds per stage */
  seconds: number;
  log: (line: string) => void;
}

export interface SoakOptions {
  root: string;
  /** the whole soak, in seconds */
  seconds: number;
  /** seconds per window */
  windowSeconds: number;
  /** connections per path */
  connections: number;
  log: (line: string) => void;
}

export interface StageResult {
  connections: number;
  paths: LoadResult[];
}

export interface MemoryChange {
  service: string;
  beforeMb: number;
  afterMb: number;
}

export interface MixedLoadResult {
  stages: StageResult[];
  memory: MemoryChange[];
}

export interface SoakResult {
  windows: SoakWindow[];
  verdict: SoakVerdict;
}

/** Resident memory of a process (MB), from /proc. */
function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * From one scrape of a service's `/metrics`: its V8 heap used after the last full collection, and its
 * resident memory outside the V8 heap (resident less the heap's committed size), in MB; 0 for what it
 * does not report.
 */
async function memoryParts(url: string): Promise<{ heapMb: number; nativeMb: number }> {
  const mb = (text: string, name: string) => {
    const value = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?)$`, 'm').exec(text)?.[1];
    return value ? Number(value) / 2 ** 20 : 0;
  };
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    const rss = mb(text, 'process_resident_memory_bytes');
    const committed = mb(text, 'nodejs_heap_size_total_bytes');
    return { heapMb: mb(text, 'nodejs_heap_used_after_gc_bytes'), nativeMb: rss > 0 && committed > 0 ? rss - committed : 0 };
  } catch {
    return { heapMb: 0, nativeMb: 0 };
  }
}

async function mcpSession(base: string, headers: Record<string, string>): Promise<string> {
  const post = (body: unknown, extra: Record<string, string> = {}) =>
    fetch(`${base}/mcp`, { method: 'POST', headers: { ...headers, ...extra, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
  const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } } });
  const session = init.headers.get('mcp-session-id');
  await init.text();
  if (!init.ok || !session) throw new Error(`bench: knowledge-mcp initialize answered ${init.status} without a session`);
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': session })).text();
  return session;
}

/** Renew conversation-api's access token this long after it was issued (it lasts 15 minutes). */
const CONVERSATION_TOKEN_RENEW_MS = 10 * 60_000;

/**
 * The conversation path's bearer token, renewed as a client renews it: conversation-api's access
 * tokens last 15 minutes (ACCESS_TOKEN_TTL_SECONDS), so a longer soak uses the setup's refresh token
 * (`POST /api/v1/auth/refresh`, which rotates it) before each window once 10 minutes have passed.
 */
function conversationTokenRenewal(stack: ServiceStack, refreshUrl: string, path: LoadPath): () => Promise<void> {
  let refreshToken = stack.setups.get('conversation-api')?.fields?.refresh_token?.[0];
  let issuedAt = Date.now();
  return async () => {
    if (Date.now() - issuedAt < CONVERSATION_TOKEN_RENEW_MS) return;
    if (!refreshToken) throw new Error('bench: the conversation-api setup has no refresh token to renew its access token with');
    const res = await fetch(refreshUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_token: refreshToken }) });
    const body = (await res.json().catch(() => null)) as { data?: { access_token?: string; refresh_token?: string } } | null;
    const pair = body?.data;
    if (!res.ok || !pair?.access_token || !pair.refresh_token) throw new Error(`bench: conversation-api refresh answered ${res.status}`);
    refreshToken = pair.refresh_token;
    issuedAt = Date.now();
    path.headers = { ...path.headers, authorization: `Bearer ${pair.access_token}` };
  };
}

/** One hot path per service, through the gateway, with the credentials of the stack's setups. */
async function hotPaths(stack: ServiceStack, gateway: string): Promise<LoadPath[]> {
  const prefix = (name: string) => `${gateway}${SERVICES_BEHIND_GATEWAY.find((s) => s.name === name)!.prefix}`;
  const creds = (name: string, credential: string) => {
    const headers = stack.setups.get(name)?.credentials[credential];
    if (!headers) throw new Error(`bench: the ${name} setup has no "${credential}" credential`);
    return headers;
  };
  const json = { 'content-type': 'application/json' };
  const logisticsKey = stack.setups.get('logistics-hooks')?.fields?.api_key?.[0];
  const mcp = creds('knowledge-mcp', 'fuzzer');
  const wav = makeWav({ seconds: 0.1, frequency: 0 });
  const boundary = 'bench-boundary-7d1f';
  const multipart = Buffer.concat([
    Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="audio_file"; filename="silence.wav"\r\ncontent-type: audio/wav\r\n\r\n`),
    wav,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return [
    { name: 'GET /auth/api/v1/auth/me', service: 'auth-api', url: `${prefix('auth-api')}/api/v1/auth/me`, method: 'GET', headers: creds('auth-api', 'partB'), expect: [200] },
    {
      name: 'POST /email/v1/track',
      service: 'email-api',
      url: `${prefix('email-api')}/v1/track`,
      method: 'POST',
      headers: { ...creds('email-api', 'fuzzerPublic'), ...json },
      body: JSON.stringify({ event: 'bench-load', email: 'load-[<id>]@example.com' }),
      expect: [200],
    },
    { name: 'GET /automation/api/v1/automations', service: 'automation-api', url: `${prefix('automation-api')}/api/v1/automations`, method: 'GET', headers: creds('automation-api', 'fuzzer'), expect: [200] },
    { name: 'GET /conversation/api/v1/conversations', service: 'conversation-api', url: `${prefix('conversation-api')}/api/v1/conversations`, method: 'GET', headers: creds('conversation-api', 'fuzzer'), expect: [200] },
    { name: 'GET /knowledge/api/projects', service: 'knowledge-api', url: `${prefix('knowledge-api')}/api/projects`, method: 'GET', headers: creds('knowledge-api', 'fuzzer'), expect: [200] },
    {
      name: 'POST /knowledge-mcp/mcp tools/list',
      service: 'knowledge-mcp',
      url: `${prefix('knowledge-mcp')}/mcp`,
      method: 'POST',
      headers: { ...mcp, ...json, accept: 'application/json, text/event-stream', 'mcp-session-id': await mcpSession(prefix('knowledge-mcp'), mcp) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      expect: [200],
    },
    {
      name: 'POST /transcribe/asr',
      service: 'transcribe-api',
      url: `${prefix('transcribe-api')}/asr?output=json`,
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      bodyBase64: multipart.toString('base64'),
      expect: [200],
    },
    {
      name: 'POST /logistics/api/errors/report',
      service: 'logistics-hooks',
      url: `${prefix('logistics-hooks')}/api/errors/report`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ api_key: logisticsKey, message: 'bench load [<id>]', severity: 'error' }),
      expect: [201],
    },
    {
      name: 'GET /autostart/api/strategies/blocking',
      service: 'autostart-proxy',
      url: `${prefix('autostart-proxy')}/api/strategies/blocking?names=web&timeout=5s`,
      method: 'GET',
      headers: {},
      expect: [200],
    },
  ];
}

/** The generator process: one window per call. */
class LoadGenerator {
  private readonly child: ChildProcess;

  constructor() {
    this.child = fork(require.resolve('./mixed-load-process'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  }

  run(window: LoadWindow): Promise<LoadResult[]> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`bench: the load generator exited (${code}) mid-window`));
      this.child.once('exit', onExit);
      this.child.once('message', (m: LoadMessage) => {
        this.child.off('exit', onExit);
        if ('error' in m) reject(new Error(`bench: load generator: ${m.error}`));
        else resolve(m.results);
      });
      this.child.send(window);
    });
  }

  close(): void {
    if (this.child.connected) this.child.disconnect();
  }
}

/** Every service and the gateway up, the hot paths checked once (each answers as expected). */
async function startStack(root: string, log: (line: string) => void): Promise<{ stack: ServiceStack; paths: LoadPath[]; renew: () => Promise<void> }> {
  const stack = new ServiceStack();
  try {
    const opts = { root, log: (line: string) => log(`bench: mixed load: ${line}`) };
    await Promise.all(FUZZ_SERVICES.map((svc) => stack.ensureStarted(svc, opts)));
    const gateway = await stack.startGateway(opts);
    const paths = await hotPaths(stack, gateway.url);
    const conversations = paths.find((p) => p.service === 'conversation-api')!;
    const conversationPrefix = SERVICES_BEHIND_GATEWAY.find((s) => s.name === 'conversation-api')!.prefix;
    const renew = conversationTokenRenewal(stack, `${gateway.url}${conversationPrefix}/api/v1/auth/refresh`, conversations);
    for (const p of paths) {
      const res = await fetch(p.url, { method: p.method, headers: p.headers, body: p.bodyBase64 ? Buffer.from(p.bodyBase64, 'base64') : p.body?.replaceAll('[<id>]', 'check') });
      const text = await res.text();
      if (!p.expect.includes(res.status)) throw new Error(`bench: mixed load: ${p.name} answered ${res.status}, expected ${p.expect.join(' or ')}: ${text.slice(0, 300)}`);
    }
    return { stack, paths, renew };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

const memoryOf = (stack: ServiceStack) => Object.fromEntries([...stack.apps.values()].map((a) => [a.name, rssMb(a.pid)]));
const partsOf = async (stack: ServiceStack) => new Map(await Promise.all([...stack.apps.values()].map(async (a) => [a.name, await memoryParts(a.url)] as const)));

export async function runMixedLoad(opts: MixedLoadOptions): Promise<MixedLoadResult> {
  const { stack, paths, renew } = await startStack(opts.root, opts.log);
  const generator = new LoadGenerator();
  try {
    const before = memoryOf(stack);
    const stages: StageResult[] = [];
    for (const connections of opts.stages) {
      await renew();
      opts.log(`bench: mixed load: ${paths.length} paths × ${connections} connections for ${opts.seconds} s`);
      stages.push({ connections, paths: await generator.run({ paths, connections, seconds: opts.seconds }) });
    }
    const after = memoryOf(stack);
    const died = [...stack.apps.values()].filter((a) => a.exited());
    if (died.length) throw new Error(`bench: mixed load: ${died.map((a) => a.name).join(', ')} ended during the run`);
    return { stages, memory: Object.keys(before).map((service) => ({ service, beforeMb: before[service], afterMb: after[service] })) };
  } finally {
    generator.close();
    await stack.stop();
  }
}

export async function runSoak(opts: SoakOptions): Promise<SoakResult> {
  const { stack, paths, renew } = await startStack(opts.root, opts.log);
  const generator = new LoadGenerator();
  const windows: SoakWindow[] = [];
  const started = performance.now();
  try {
    const count = Math.max(1, Math.round(opts.seconds / opts.windowSeconds));
    for (let i = 0; i < count; i++) {
      await renew();
      const results = await generator.run({ paths, connections: opts.connections, seconds: opts.windowSeconds });
      const died = [...stack.apps.values()].filter((a) => a.exited());
      if (died.length) throw new Error(`bench: soak: ${died.map((a) => a.name).join(', ')} ended during window ${i + 1}`);
      const parts = await partsOf(stack);
      const window: SoakWindow = {
        at: Math.round((performance.now() - started) / 1000),
        rssMb: memoryOf(stack),
        heapMb: Object.fromEntries([...parts].map(([name, p]) => [name, p.heapMb])),
        nativeMb: Object.fromEntries([...parts].map(([name, p]) => [name, p.nativeMb])),
        p99Ms: Object.fromEntries(results.map((r) => [r.name, r.p99Ms])),
        errors: Object.fromEntries(results.map((r) => [r.name, r.failed])),
      };
      windows.push(window);
      const total = results.reduce((n, r) => n + r.requestsPerSecond, 0);
      opts.log(`bench: soak window ${i + 1}/${count} at ${window.at} s: ${total.toFixed(0)} req/s in all, worst p99 ${Math.max(...results.map((r) => r.p99Ms))} ms, failed ${results.reduce((n, r) => n + r.failed, 0)}`);
    }
    return { windows, verdict: judgeSoak(windows) };
  } finally {
    generator.close();
    await stack.stop();
  }
}

const pad = (s: string, n: number) => s.padEnd(n);
const num = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '–');

export function formatMixedLoad(result: MixedLoadResult): string {
  const width = Math.max(...result.stages.flatMap((s) => s.paths.map((p) => p.name.length)), 4);
  const lines = [`mixed load through the gateway (connections per path; req/s, p50/p99 ms, failed)`];
  lines.push(`${pad('path', width)}  ${result.stages.map((s) => pad(`× ${s.connections}`, 26)).join('')}`);
  for (const [i, p] of result.stages[0].paths.entries()) {
    lines.push(`${pad(p.name, width)}  ${result.stages.map((s) => { const r = s.paths[i]; return pad(`${num(r.requestsPerSecond)}/s ${num(r.p50Ms)}/${num(r.p99Ms)} ${r.failed}`, 26); }).join('')}`);
  }
  lines.push('', 'resident memory (MB) before → after');
  for (const m of result.memory) lines.push(`  ${pad(m.service, 18)} ${num(m.beforeMb)} → ${num(m.afterMb)}`);
  return lines.join('\n');
}

export function formatSoak(result: SoakResult): string {
  const v = result.verdict;
  const lines = [`soak: ${result.windows.length} windows, ${v.judged} judged (the first is the warm-up)`];
  lines.push('  memory, medians of the first and last thirds: resident; V8 heap after the last full collection; resident outside the V8 heap');
  const trend = (t: { firstMb: number; lastMb: number } | null, none: string) => (t ? `${num(t.firstMb)} → ${num(t.lastMb)} MB` : none);
  for (const m of v.memory) {
    lines.push(`  ${pad(m.service, 18)} ${trend(m.rss, '–')}; heap ${trend(m.heap, '– (too few full collections)')}; outside ${trend(m.native, '– (not reported)')}${m.growing ? '  KEEPS GROWING' : ''}`);
  }
  for (const l of v.latency) lines.push(`  ${pad(l.path, 42)} p99 ${num(l.firstP99, 1)} → ${num(l.lastP99, 1)} ms${l.drifting ? '  DRIFTS' : ''}`);
  lines.push(v.failures.length ? `soak FAILED:\n  ${v.failures.join('\n  ')}` : 'soak passed: no memory growth, no latency drift, no failed request');
  return lines.join('\n');
}
