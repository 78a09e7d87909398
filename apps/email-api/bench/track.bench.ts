/**
 * email-api benchmark suite for `npm run bench` (tools/bench.ts): `POST /v1/track` events per
 * second and p99 latency, next to the database's own ceiling for the same write measured in the
 * same run: `pgbench` (10 clients, prepared statements) running, on the bench's schema, the
 * statement the service runs for a track (contact upsert, event insert and outbox row; the ids,
 * email and outbox envelope made in SQL, the rest passed as parameters; the outbox row written as
 * already sent, so that the service's relay and consumers leave it alone), each transaction a new
 * contact, for as long as the service is loaded. The baseline is pgbench's transactions per second
 * (and the p99 of its transaction latencies, from its per-transaction log).
 *
 * The service is loaded by a closed loop of POSTs from a process of its own (LoadProcess of @platform/bench): each
 * connection sends its next request when the previous one is answered, every request a new contact
 * (unique email), so each one is a full write: key lookup, rate-limit count, contact upsert, event
 * insert and outbox row; the workflow engine's consumer handles each `email.event_tracked` in the
 * same process meanwhile, as in production. Rounds alternate pgbench and the service, summed: a burst
 * of other work on the machine then weighs on both alike; each round starts once the outbox rows of
 * the previous one have been published and handled.
 * No event may be lost: the number of stored events must equal the number of 2xx answers, or the
 * suite throws. The detail line also says how much CPU the service's process and PostgreSQL (all of
 * its processes on the machine, read from /proc) used per event, the latter next to its CPU per
 * pgbench transaction: where the service's share of the machine goes.
 *
 * Uses DATABASE_URL (a throwaway schema, dropped afterwards; pgbench needs it) and REDIS_URL for
 * the rate-limit counters when set (else in memory), as the service would.
 */
import { Database } from '@platform/database';
import { startBenchService, type BenchMeasurement } from '@platform/bench';
import { OutboxMessage } from '@platform/messaging';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { emailApiService } from '../src/service';
import { buildTrackStatement } from '../src/events/track.repository';
import { WORKFLOWS_CONSUMER } from '../src/workflows/engine/workflow-triggers.consumer';
import { LoadProcess, type PostLoadResult } from '@platform/bench';
import { benchEnv, benchProject, benchTag, round } from './bench-api';

export interface EmailTrackBenchOptions {
  /** Seconds of each load run, the service's and pgbench's alike (default 10). */
  seconds?: number;
  /** Load runs per side, alternating pgbench and the service (default 2). */
  rounds?: number;
  /** Concurrent connections of the load on the service (default 20). */
  connections?: number;
  /** pgbench clients (default 10, the service's pool size). */
  clients?: number;
  /** Default process.env.DATABASE_URL (required: pgbench runs against it). */
  databaseUrl?: string;
  /** Default process.env.REDIS_URL; in-memory counters when unset. */
  redisUrl?: string;
}

const PGBENCH = '/usr/bin/pgbench';
/** The `source` of pgbench's outbox rows (written as sent: nothing handles them). */
const PGBENCH_SOURCE = 'pgbench';
const TRACK_BODY = { event: 'bench_event', data: { plan: 'pro' } };

/**
 * The pgbench script: TrackRepository's statement for a new contact with the body the service is
 * sent, its parameters as pgbench variables (-D) or, for what is new in every transaction (email,
 * ids, outbox envelope), made in SQL from a random number.
 */
function pgbenchScript(schema: string, outbox: string): string {
  const values: Record<number, string> = {
    1: ':project',
    2: `('pgb-' || :n || '@bench.test')`,
    3: `('cnt_pgb' || :n)`,
    4: 'NULL',
    5: ':data',
    6: ':unset',
    7: `('evt_pgb' || :n)`,
    8: ':name',
    9: ':data',
    10: 'gen_random_uuid()',
    11: ':type',
    12: ':source',
    13: 'now()',
    14: 'NULL',
  };
  // The outbox row is written already sent: the service's relay and consumers are not pgbench's to load.
  const sent = buildTrackStatement(schema, outbox)
    .replace('correlation_id, data)', 'correlation_id, data, sent_at)')
    .replace("'contactCreated', contact.inserted)", "'contactCreated', contact.inserted), now()");
  if (!sent.includes('data, sent_at)') || !sent.includes('contact.inserted), now()')) throw new Error('email-api bench: the track statement changed shape; update pgbenchScript');
  const statement = sent.replace(/\$(\d+)/g, (_, n: string) => values[Number(n)]);
  return `\\set n random(1, 1000000000000000)\n${statement.replace(/\s*\n\s*/g, ' ')};\n`;
}

interface PgbenchResult {
  tps: number;
  transactions: number;
  p99: number;
  average: number;
}

async function runPgbench(databaseUrl: string, dir: string, script: string, vars: Record<string, string>, clients: number, seconds: number): Promise<PgbenchResult> {
  const logs = await mkdtemp(join(dir, 'log-'));
  const args = ['-n', '-M', 'prepared', '-c', String(clients), '-j', '2', '-T', String(seconds), '-f', script, '-l', `--log-prefix=${join(logs, 'tx')}`];
  for (const [k, v] of Object.entries(vars)) args.push('-D', `${k}=${v}`);
  args.push(databaseUrl);
  const { stdout } = await promisify(execFile)(PGBENCH, args, { cwd: logs, maxBuffer: 16 * 1024 * 1024 });
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1]);
  const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
  if (!Number.isFinite(tps) || failed > 0) throw new Error(`pgbench: ${stdout}`);
  // One line per transaction: client, transaction number, latency in µs, …
  const latencies: number[] = [];
  for (const file of await readdir(logs)) {
    for (const line of (await readFile(join(logs, file), 'utf8')).split('\n')) {
      const us = Number(line.split(' ')[2]);
      if (line && Number.isFinite(us)) latencies.push(us / 1000);
    }
  }
  await rm(logs, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  return {
    tps,
    transactions: latencies.length,
    p99: latencies[Math.min(latencies.length - 1, Math.ceil(0.99 * latencies.length) - 1)] ?? 0,
    average: latencies.reduce((a, b) => a + b, 0) / Math.max(latencies.length, 1),
  };
}

/**
 * CPU seconds PostgreSQL has used on this machine so far (Linux /proc): its live processes plus the
 * backends that have ended (the postmaster's children's time, so pgbench's connections count after
 * they close); null where it cannot be read. Every database's work counts, other users' too.
 */
async function postgresCpuSeconds(): Promise<number | null> {
  try {
    const run = promisify(execFile);
    const ticksPerSecond = Number((await run('getconf', ['CLK_TCK'])).stdout.trim());
    const pids = (await run('pgrep', ['postgres'])).stdout.trim().split('\n');
    const stats = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null)));
    const procs = stats.flatMap((stat) => {
      if (!stat) return [];
      // after "pid (comm) ": state, ppid, … utime (14th field), stime, cutime, cstime
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ pid: stat.slice(0, stat.indexOf(' ')), ppid: f[1], own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) }];
    });
    const ids = new Set(procs.map((p) => p.pid));
    const ticks = procs.reduce((sum, p) => sum + p.own + (ids.has(p.ppid) ? 0 : p.children), 0);
    return Number.isFinite(ticks) && ticksPerSecond > 0 ? ticks / ticksPerSecond : null;
  } catch {
    return null;
  }
}

/**
 * Waits until every `email.event_tracked` in the outbox has been published and handled by the
 * workflow engine's consumer (in this process, off the request path), so that no round starts
 * with the previous one's backlog.
 */
async function settle(db: Database): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const [{ behind }] = await db.rows<{ behind: number }>(
      `SELECT (SELECT count(*) FROM ${db.table('outbox')} WHERE type = 'email.event_tracked' AND source <> $2)
            - (SELECT count(*) FROM ${db.table('processed_events')} WHERE consumer = $1) AS behind`,
      [WORKFLOWS_CONSUMER, PGBENCH_SOURCE],
    );
    if (Number(behind) <= 0) return;
    if (Date.now() > deadline) throw new Error(`email-api bench: ${behind} tracked events still unhandled after 5 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function runEmailTrackBench(opts: EmailTrackBenchOptions = {}): Promise<BenchMeasurement[]> {
  const seconds = opts.seconds ?? 10;
  const rounds = opts.rounds ?? 2;
  const connections = opts.connections ?? 20;
  const clients = opts.clients ?? 10;
  const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL;
  const redisUrl = opts.redisUrl ?? process.env.REDIS_URL;
  if (!databaseUrl) throw new Error('email-api bench: DATABASE_URL is required (pgbench, the baseline, runs against it)');
  const bench = await startBenchService(emailApiService, { ...benchEnv(benchTag()), ...(redisUrl ? { REDIS_URL: redisUrl } : {}) }, databaseUrl);
  const { service } = bench;
  const loader = await LoadProcess.start();
  const dir = await mkdtemp(join(tmpdir(), 'email-track-bench-'));
  try {
    const { project } = await benchProject(service.url);
    const db = service.app.get(Database);
    const script = join(dir, 'track.sql');
    await writeFile(script, pgbenchScript(db.schema, db.repository(OutboxMessage).metadata.tablePath));
    const vars = { project: project.id, data: JSON.stringify(TRACK_BODY.data), unset: '{}', name: 'pgbench_event', type: 'email.event_tracked', source: PGBENCH_SOURCE };
    const headers = { authorization: `Bearer ${project.publicKey}` };
    const body = (prefix: string, event = TRACK_BODY.event) => JSON.stringify({ email: `${prefix}-[<id>]@bench.test`, ...TRACK_BODY, event });

    // warm-up (pools, prepared statements, JIT) of both sides, not counted
    await runPgbench(databaseUrl, dir, script, vars, clients, 2);
    await loader.post(`${service.url}/v1/track`, 2, connections, body('warm', 'warmup'), headers);
    await settle(db);

    const base: PgbenchResult[] = [];
    const track: PostLoadResult[] = [];
    let cpuMs = 0; // the service's process (this one) during the service's rounds
    // PostgreSQL's CPU during each side's rounds, until their work is done (the service's: its events published and handled)
    let pgBaseSeconds: number | null = 0;
    let pgTrackSeconds: number | null = 0;
    const pgSince = async (before: number | null, sum: number | null) => {
      const now = before === null || sum === null ? null : await postgresCpuSeconds();
      return now === null ? null : sum! + now - before!;
    };
    for (let r = 0; r < rounds; r++) {
      let pgBefore = await postgresCpuSeconds();
      base.push(await runPgbench(databaseUrl, dir, script, vars, clients, seconds));
      await settle(db);
      pgBaseSeconds = await pgSince(pgBefore, pgBaseSeconds);
      pgBefore = await postgresCpuSeconds();
      const cpuBefore = process.cpuUsage();
      track.push(await loader.post(`${service.url}/v1/track`, seconds, connections, body(`u${r}`), headers));
      const used = process.cpuUsage(cpuBefore);
      cpuMs += (used.user + used.system) / 1000;
      await settle(db);
      pgTrackSeconds = await pgSince(pgBefore, pgTrackSeconds);
    }

    const ok = track.reduce((a, t) => a + Object.entries(t.statuses).reduce((n, [s, c]) => n + (s.startsWith('2') ? c : 0), 0), 0);
    const sent = track.reduce((a, t) => a + Object.values(t.statuses).reduce((n, c) => n + c, 0), 0);
    const [{ n: stored }] = await db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('events')} WHERE project_id = $1 AND name = $2`, [project.id, TRACK_BODY.event]);
    if (stored !== ok) throw new Error(`email-api bench lost events: ${ok} requests answered 2xx, ${stored} events stored`);
    if (ok !== sent) throw new Error(`email-api bench: ${sent - ok} answers not 2xx out of ${sent} (${JSON.stringify(track.map((t) => t.statuses))}, e.g. ${track[0].bodies[0]})`);

    const trackSeconds = track.reduce((a, t) => a + t.seconds, 0);
    const perSecond = ok / trackSeconds;
    const basePerSecond = base.reduce((a, b) => a + b.tps, 0) / base.length;
    const p99 = Math.max(...track.map((t) => t.p99));
    const baseP99 = Math.max(...base.map((b) => b.p99));
    const average = track.reduce((a, t) => a + t.average * t.seconds, 0) / trackSeconds;
    const baseAverage = base.reduce((a, b) => a + b.average, 0) / base.length;
    const runs = `${rounds} × ${seconds} s alternating with pgbench`;
    const pgbenchTransactions = base.reduce((a, b) => a + b.transactions, 0);
    const postgresDetail =
      pgTrackSeconds === null || pgBaseSeconds === null
        ? ''
        : `, PostgreSQL (all of its processes on the machine) ${round((pgTrackSeconds * 1000) / ok, 2)} ms per event, until the events were published and handled, against ${round((pgBaseSeconds * 1000) / Math.max(pgbenchTransactions, 1), 2)} ms per pgbench transaction`;
    return [
      {
        name: 'email-api: /v1/track events/s',
        value: round(perSecond),
        unit: 'events/s',
        baseline: round(basePerSecond),
        ratio: round(perSecond / basePerSecond, 3),
        detail: `${runs}, ${connections} connections, each track a new contact, ${redisUrl ? 'Redis' : 'in-memory'} rate limit; ${stored} events stored = ${ok} answered 2xx (none lost); the service's process used ${round(cpuMs / ok, 2)} ms of CPU per event (${round(cpuMs / 1000 / trackSeconds, 2)} cores)${postgresDetail}; baseline: pgbench -M prepared -c ${clients} running the same statement (${base.map((b) => round(b.tps)).join(' / ')} tps)`,
      },
      {
        name: 'email-api: /v1/track p99 latency',
        value: round(p99),
        unit: 'ms',
        baseline: round(baseP99),
        ratio: round(p99 / Math.max(baseP99, 0.1), 3),
        detail: `worst p99 of ${runs} (average ${round(average)} ms, ${connections} connections) vs the worst p99 of pgbench's transactions (average ${round(baseAverage)} ms, ${clients} clients)`,
      },
    ];
  } finally {
    await loader.close();
    await bench.close();
    await rm(dir, { recursive: true, force: true });
  }
}
