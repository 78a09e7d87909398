// One fuzz run: starts the services (each in its own process, as deployed), sets up credentials and
// seeded records, reads each service's own /api/docs-json, sends the generated requests and judges
// every answer, then checks that each process is alive and healthy and that the other tenant's
// seeded record is unchanged; the gateway last, with requests of every service through its prefix.
import { SERVICES_BEHIND_GATEWAY } from '@platform/registry';
import { malformedRequests, sendRaw } from '@platform/testing';
import { judge, type ErrorShape, type Verdict } from './check';
import { generateRequests, type FuzzRequest } from './generate';
import { operations, type OpenApiDocument, type Operation } from './openapi';
import { materialize, send, type Answer, type SendContext } from './send';
import { ServiceStack } from './service-stack';
import { FUZZ_SERVICES, GATEWAY, type FuzzService, type Setup } from './services';
import { fuzzSmtp, smtpAnswers } from './smtp';
import type { FuzzApp } from './stack';

export interface RunOptions {
  /** the workspace root (dist/apps/<app>/main.js under it) */
  root: string;
  seed: number;
  /** requests per service */
  runs: number;
  /** only these services (their needs are started too); all when empty */
  only?: string[];
  /** requests in flight per service */
  concurrency?: number;
  log?: (line: string) => void;
}

export interface Failure {
  service: string;
  /** the run's seed and the request's index in its service's list: `FUZZ_SEED=<seed> FUZZ_ONLY=<service> FUZZ_RUNS=<index + 1>` sends it again (last) */
  seed: number;
  index: number;
  klass: string;
  problem: string;
  request: string;
}

export interface ServiceResult {
  service: string;
  seed: number;
  requests: number;
  counts: Record<'2xx' | '3xx' | '4xx' | 'parser' | 'early-close' | '5xx-documented' | '5xx' | 'no-answer' | 'shape' | 'size', number>;
  failures: Failure[];
  /** answers by status */
  statuses: Record<string, number>;
  /** documented 5xx answers by operation (`503 POST /billing/checkout`) */
  documented5xx?: Record<string, number>;
  /** the process ended during the run */
  crashed: boolean;
  /** its health paths answered 2xx after the run */
  healthy: boolean;
  /** the other tenant's record is as before (null: the service has no tenants to compare) */
  seedUnchanged: boolean | null;
  ms: number;
}

/** A service's own seed: the run's seed mixed with its name, so FUZZ_ONLY=<service> sends the same requests. */
export function serviceSeed(seed: number, name: string): number {
  let h = seed | 0;
  for (const c of name) h = (Math.imul(h ^ c.charCodeAt(0), 0x5bd1e995) ^ (h >>> 15)) | 0;
  return h;
}

/** The request as one line (huge parts abbreviated), for the report. */
export function describe(req: FuzzRequest, ctx: SendContext): string {
  const m = materialize(req, ctx);
  const body = m.body ? `${m.body.length} bytes ${JSON.stringify(m.body.toString('utf8', 0, Math.min(m.body.length, 200)))}` : 'no body';
  const headers = Object.entries(m.headers)
    .map(([k, v]) => `${k}: ${/authorization|cookie|key/i.test(k) ? `<${req.credential}>` : v.slice(0, 60)}`)
    .join(', ');
  return `${m.method} ${m.target.slice(0, 300)}${m.target.length > 300 ? `…(${m.target.length})` : ''} [${headers}] ${body} — ${req.notes.join('; ')}`;
}

const emptyCounts = (): ServiceResult['counts'] => ({ '2xx': 0, '3xx': 0, '4xx': 0, parser: 0, 'early-close': 0, '5xx-documented': 0, '5xx': 0, 'no-answer': 0, shape: 0, size: 0 });


function sendContext(setup: Setup | undefined): SendContext {
  return {
    credentials: { none: {}, wrong: setup?.wrong ?? { authorization: 'Bearer fuzz-wrong-credential' }, ...(setup?.credentials ?? {}) },
    ids: setup?.ids ?? {},
  };
}

function generatorOptions(setup: Setup | undefined) {
  const valid = Object.keys(setup?.credentials ?? {});
  const weights = setup?.weights ?? {};
  return {
    credentials: [
      { name: 'none', weight: weights.none ?? 2 },
      { name: 'wrong', weight: weights.wrong ?? 2 },
      ...valid.map((name) => ({ name, weight: weights[name] ?? 6 })),
    ],
    ids: Object.keys(setup?.ids ?? {}),
    headers: setup?.headers,
    fields: setup?.fields,
    sessionEnding: setup?.sessionEnding,
  };
}

async function fetchSpec(url: string): Promise<Operation[]> {
  const res = await fetch(`${url}/api/docs-json`);
  if (!res.ok) throw new Error(`fuzz: ${url}/api/docs-json answered ${res.status}`);
  return operations((await res.json()) as OpenApiDocument);
}

/** Why the app is not healthy (a health path that did not answer 2xx), or null when it is. */
async function unhealthy(app: FuzzApp, paths: string[], headers: Record<string, string> = {}): Promise<string | null> {
  for (const p of paths) {
    try {
      const res = await fetch(`${app.url}${p}`, { headers, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (!res.ok) return `${p} answered ${res.status}: ${text.slice(0, 500)}`;
    } catch (err) {
      return `${p}: ${(err as Error).message}`;
    }
  }
  return null;
}

interface Job {
  req: FuzzRequest;
  index: number;
  base: string;
  ctx: SendContext;
  op?: Operation;
  shape: ErrorShape;
  /** other shapes the service gives this path */
  extra: ErrorShape[];
  seed: number;
}

/** The error shapes a service's description gives the path of this request, besides its own. */
function pathShapes(svc: FuzzService, req: FuzzRequest): ErrorShape[] {
  const path = req.op === 'stray' ? req.target : req.op.split(' ')[1];
  return (svc.pathShapes ?? []).filter((p) => path.startsWith(p.prefix)).map((p) => p.shape);
}

/** Sends the jobs `concurrency` at a time, judging each answer; stops early when the app dies. */
async function drive(result: ServiceResult, jobs: Job[], app: FuzzApp, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length && !result.crashed) {
      const job = jobs[next++];
      const answer: Answer = await send(job.base, job.req, job.ctx);
      if (answer.status === -1) continue; // the client could not write it: not a request
      result.requests++;
      const died = app.exited();
      if (died) {
        result.crashed = true;
        result.failures.push({
          service: result.service,
          seed: job.seed,
          index: job.index,
          klass: 'crash',
          problem: `the process ended (code ${died.code}, signal ${died.signal}) during this request or one in flight with it:\n${app.output().slice(-3000)}`,
          request: describe(job.req, job.ctx),
        });
        return;
      }
      result.statuses[answer.status] = (result.statuses[answer.status] ?? 0) + 1;
      const verdict: Verdict = judge(job.op, job.shape, answer, job.req.method, job.extra);
      result.counts[verdict.klass]++;
      if (verdict.klass === '5xx-documented') {
        const key = `${answer.status} ${job.req.op}`;
        result.documented5xx = { ...result.documented5xx, [key]: (result.documented5xx?.[key] ?? 0) + 1 };
      }
      if (!verdict.ok) {
        result.failures.push({ service: result.service, seed: job.seed, index: job.index, klass: verdict.klass, problem: verdict.problem, request: describe(job.req, job.ctx) });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * Requests no HTTP client library writes (libs/testing's malformedRequests: broken percent-encodings in
 * the path and query, upgrades with them, bad and oversized headers, smuggling forms, garbage), byte for
 * byte on a socket, for one path of each operation group: answered with a 4xx, or the connection
 * closed, never a 5xx; the process must outlive them.
 */
async function rawRun(result: ServiceResult, app: FuzzApp, ops: Operation[], seed: number, host = 'localhost', prefix = ''): Promise<void> {
  const paths = [...new Set(ops.filter((o) => o.method === 'GET').map((o) => prefix + o.path.replace(/\{[^}]+\}/g, 'x')))].slice(0, 5);
  const port = Number(new URL(app.url).port);
  for (const path of paths.length ? paths : [`${prefix}/healthz`]) {
    for (const { name, raw } of malformedRequests(path, host)) {
      if (result.crashed) return;
      const answer = await sendRaw(port, raw, 5_000);
      result.requests++;
      result.statuses[answer.status] = (result.statuses[answer.status] ?? 0) + 1;
      const died = app.exited();
      if (died) {
        result.crashed = true;
        result.failures.push({ service: result.service, seed, index: -1, klass: 'crash', problem: `the process ended on the raw request "${name}":\n${app.output().slice(-3000)}`, request: JSON.stringify(raw.slice(0, 300)) });
        return;
      }
      if (answer.status >= 500) {
        result.counts['5xx']++;
        result.failures.push({ service: result.service, seed, index: -1, klass: 'raw', problem: `the raw request "${name}" on ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`, request: JSON.stringify(raw.slice(0, 300)) });
      } else if (answer.status === 0 || answer.status >= 400) result.counts.parser++;
      else result.counts[answer.status < 300 ? '2xx' : answer.status < 400 ? '3xx' : '4xx']++;
    }
  }
}


/** The service's SMTP listener: runs/4 sessions of several commands each; a row of its own. */
async function smtpRun(svc: FuzzService, app: FuzzApp, smtp: { port: number; domains: string[] }, opts: RunOptions): Promise<ServiceResult> {
  const name = `${svc.name} (smtp)`;
  const seed = serviceSeed(opts.seed, name);
  const started = performance.now();
  const sessions = Math.max(10, Math.floor(opts.runs / 4));
  opts.log?.(`fuzz: ${name}: ${sessions} sessions on port ${smtp.port} (seed ${seed})`);
  const out = await fuzzSmtp(smtp.port, smtp.domains, seed, sessions, opts.concurrency ?? 4);
  const counts = emptyCounts();
  counts['2xx'] = out.classes['2xx'] ?? 0;
  counts['3xx'] = out.classes['3xx'] ?? 0;
  counts['4xx'] = (out.classes['4xx'] ?? 0) + (out.classes['5xx'] ?? 0) - out.failures.length;
  counts['5xx'] = out.failures.length;
  const died = app.exited();
  const failures: Failure[] = out.failures.map((f) => ({ service: name, seed: opts.seed, index: f.index, klass: '451', problem: f.problem, request: f.session }));
  if (died) failures.push({ service: name, seed: opts.seed, index: -1, klass: 'crash', problem: `the process ended (code ${died.code}, signal ${died.signal}) during the SMTP sessions:\n${app.output().slice(-3000)}`, request: '' });
  const answers = !died && (await smtpAnswers(smtp.port));
  if (!died && !answers) failures.push({ service: name, seed: opts.seed, index: -1, klass: 'unhealthy', problem: 'the SMTP listener no longer answers EHLO after the run', request: '' });
  return { service: name, seed, requests: out.sessions, counts, statuses: {}, failures, crashed: !!died, healthy: answers, seedUnchanged: null, ms: performance.now() - started };
}

export async function runFuzz(opts: RunOptions): Promise<ServiceResult[]> {
  const concurrency = opts.concurrency ?? 4;
  const only = new Set(opts.only ?? []);
  const selected = FUZZ_SERVICES.filter((s) => only.size === 0 || only.has(s.name));
  const withGateway = only.size === 0 || only.has('gateway');
  const stack = new ServiceStack();
  const stackOpts = { root: opts.root, log: opts.log && ((line: string) => opts.log!(`fuzz: ${line}`)) };
  const results: ServiceResult[] = [];
  try {
    // Every service up first: the gateway and the apps that need one another reach them all.
    const started = await Promise.allSettled(selected.map((svc) => stack.ensureStarted(svc, stackOpts)));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    const snapshots = new Map<string, string>();
    for (const svc of selected) {
      const snap = stack.setups.get(svc.name)?.snapshot;
      if (!snap) continue;
      try {
        snapshots.set(svc.name, await snap());
      } catch (err) {
        opts.log?.(`fuzz: ${svc.name}: the seeded record cannot be read, so it is not compared (${(err as Error).message})`);
      }
    }
    for (const svc of selected) {
      const app = stack.app(svc.name);
      const setup = stack.setups.get(svc.name);
      const seed = serviceSeed(opts.seed, svc.name);
      const started = performance.now();
      const result: ServiceResult = { service: svc.name, seed, requests: 0, counts: emptyCounts(), statuses: {}, failures: [], crashed: false, healthy: false, seedUnchanged: null, ms: 0 };
      // Its SMTP listener first, while the domain it receives for is still there (the HTTP fuzz may delete it).
      const smtp = setup?.smtp ? await smtpRun(svc, app, setup.smtp, opts) : undefined;
      const ops = await fetchSpec(app.url);
      const byKey = new Map(ops.map((o) => [o.key, o]));
      const ctx = sendContext(setup);
      const requests = generateRequests(ops, generatorOptions(setup), seed, opts.runs);
      opts.log?.(`fuzz: ${svc.name}: ${requests.length} requests over ${ops.length} operations (seed ${seed})`);
      await drive(
        result,
        requests.map((req, index) => ({ req, index, base: app.url, ctx, op: byKey.get(req.op), shape: svc.shape, extra: pathShapes(svc, req), seed: opts.seed })),
        app,
        concurrency,
      );
      await rawRun(result, app, ops, opts.seed);
      result.ms = performance.now() - started - (smtp?.ms ?? 0);
      results.push(result);
      if (smtp) results.push(smtp);
    }

    if (withGateway && selected.length > 0) {
      const gateway = await stack.startGateway(stackOpts);
      const seed = serviceSeed(opts.seed, 'gateway');
      const started = performance.now();
      const result: ServiceResult = { service: 'gateway', seed, requests: 0, counts: emptyCounts(), statuses: {}, failures: [], crashed: false, healthy: false, seedUnchanged: null, ms: 0 };
      const behind = SERVICES_BEHIND_GATEWAY.filter((s) => stack.apps.has(s.name));
      // The gateway's own operations, then every service's through its prefix, the runs shared out.
      const own = await fetchSpec(gateway.url);
      const jobs: Job[] = generateRequests(own, generatorOptions(undefined), seed, Math.max(20, Math.floor(opts.runs / (behind.length + 1)))).map((req, index) => ({
        req,
        index,
        base: gateway.url,
        ctx: sendContext(undefined),
        op: own.find((o) => o.key === req.op),
        shape: 'gateway' as ErrorShape,
        extra: [],
        seed: opts.seed,
      }));
      for (const [n, s] of behind.entries()) {
        const svc = FUZZ_SERVICES.find((f) => f.name === s.name)!;
        const setup = stack.setups.get(s.name);
        const ops = await fetchSpec(stack.app(s.name).url);
        const subSeed = serviceSeed(seed, s.name);
        const count = Math.floor(opts.runs / (behind.length + 1)) + (n < opts.runs % (behind.length + 1) ? 1 : 0);
        for (const [index, req] of generateRequests(ops, generatorOptions(setup), subSeed, count).entries()) {
          jobs.push({ req, index, base: `${gateway.url}${s.prefix}`, ctx: sendContext(setup), op: ops.find((o) => o.key === req.op), shape: svc.shape, extra: pathShapes(svc, req), seed: opts.seed });
        }
      }
      opts.log?.(`fuzz: gateway: ${jobs.length} requests (its own and ${behind.length} services' through their prefixes; seed ${seed})`);
      // Interleaved, so that every service behind it sees traffic at once.
      jobs.sort((a, b) => a.index - b.index);
      await drive(result, jobs, gateway, concurrency);
      for (const s of behind) await rawRun(result, gateway, await fetchSpec(stack.app(s.name).url), opts.seed, 'localhost', s.prefix);
      result.ms = performance.now() - started;
      results.push(result);
    }

    // After everything: alive, healthy, and the other tenants' records unchanged.
    for (const result of results.filter((r) => !r.service.endsWith('(smtp)'))) {
      const svc = result.service === 'gateway' ? GATEWAY : FUZZ_SERVICES.find((s) => s.name === result.service)!;
      const app = stack.app(svc.name);
      if (app.exited() && !result.crashed) {
        result.crashed = true;
        result.failures.push({ service: svc.name, seed: result.seed, index: -1, klass: 'crash', problem: `the process ended after the run:\n${app.output().slice(-3000)}`, request: '' });
      }
      const sick = result.crashed ? 'crashed' : await unhealthy(app, svc.health, svc.healthHeaders);
      result.healthy = sick === null;
      if (sick && !result.crashed) result.failures.push({ service: svc.name, seed: result.seed, index: -1, klass: 'unhealthy', problem: `not healthy after the run: ${sick}`, request: '' });
      const before = snapshots.get(svc.name);
      if (before !== undefined && !result.crashed) {
        const after = await stack.setups.get(svc.name)!.snapshot!().catch((err: Error) => `unreadable: ${err.message}`);
        result.seedUnchanged = after === before;
        if (!result.seedUnchanged) {
          result.failures.push({ service: svc.name, seed: result.seed, index: -1, klass: 'tenant', problem: `the other tenant's seeded record changed:\nbefore ${before.slice(0, 600)}\nafter  ${after.slice(0, 600)}`, request: '' });
        }
      }
    }
    return results;
  } finally {
    await stack.stop();
  }
}

/** The summary table. */
export function formatTable(results: ServiceResult[]): string {
  const head = ['service', 'requests (smtp: sessions)', '2xx', '3xx', '4xx', '4xx by the parser or closed (raw)', 'closed on a large body', '5xx documented', '5xx', 'bad errors', 'no answer', 'crashes', 'healthy after', 'seed record', 'seconds'];
  const rows = results.map((r) => [
    r.service,
    String(r.requests),
    String(r.counts['2xx']),
    String(r.counts['3xx']),
    String(r.counts['4xx']),
    String(r.counts.parser),
    String(r.counts['early-close']),
    String(r.counts['5xx-documented']),
    String(r.counts['5xx']),
    String(r.counts.shape + r.counts.size),
    String(r.counts['no-answer']),
    r.crashed ? '1' : '0',
    r.healthy ? 'yes' : 'NO',
    r.seedUnchanged === null ? '–' : r.seedUnchanged ? 'unchanged' : 'CHANGED',
    (r.ms / 1000).toFixed(1),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** Failures grouped by service, kind and operation, a few examples each. */
export function formatFailures(results: ServiceResult[], examples = 3): string {
  const out: string[] = [];
  for (const r of results) {
    const groups = new Map<string, Failure[]>();
    for (const f of r.failures) {
      const key = `${f.klass} ${f.request.split(' ').slice(0, 1).join(' ')} ${f.problem.slice(0, 60)}`;
      groups.set(key, [...(groups.get(key) ?? []), f]);
    }
    for (const list of groups.values()) {
      const f = list[0];
      out.push(`[${r.service}] ${f.klass} ×${list.length}: ${f.problem}`);
      for (const e of list.slice(0, examples).filter((x) => x.index >= 0)) {
        const replay = r.service === 'gateway' ? `FUZZ_SEED=${e.seed} FUZZ_ONLY=gateway` : `FUZZ_SEED=${e.seed} FUZZ_ONLY=${r.service} FUZZ_RUNS=${e.index + 1}`;
        out.push(`    #${e.index} (${replay}): ${e.request}`);
      }
    }
  }
  return out.join('\n');
}
