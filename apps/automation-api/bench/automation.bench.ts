/**
 * automation-api benchmark scenarios for `npm run bench` (tools/bench.ts), each against a baseline
 * measured in the same run on loopback, by the same load generator running in a process of its own
 * (LoadProcess of @platform/bench), both sides warmed up alike, then rounds alternating the bare server and the
 * service (a burst of other work on the machine weighs on both sides alike):
 *
 *  - `automation-api: webhook deliveries/s` — signed platform webhooks (one comment each, distinct
 *    ids) POSTed to /webhooks/instagram: signature check over the raw body, durable insert into the
 *    work queue, 200. Baseline: a bare Node HTTP server that reads the body and answers 200.
 *    Every delivery answered 200 must be stored (work items counted afterwards), or the suite throws.
 *  - `automation-api: click redirects/s` — GET /r/{code} of tracked links (lookup, click row), 302;
 *    then counted (run counter, contact tag, Event, outbox event): a round of the service lasts until
 *    its last click is counted. Baseline: a bare Node server answering 302.
 *    Every redirect must be counted (clicks, run counters and Events afterwards), or the suite throws.
 *
 * Uses DATABASE_URL when set (a real PostgreSQL; the benchmark creates and drops its own schema),
 * else the embedded PGlite under a temporary DATA_DIR.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { DataSource } from 'typeorm';
import { automationApiService } from '../src/service';
import { listenOnLoopback as listen, LoadProcess, perSecond, startBenchService, type BenchMeasurement, type LoadRequest, type LoadResult } from '@platform/bench';

export interface AutomationBenchOptions {
  /** requests per measured round and side (default 2000) */
  deliveries?: number;
  /** requests per measured round and side (default 2000) */
  clicks?: number;
  /** measured rounds per side (default 3) */
  rounds?: number;
  /** concurrent client connections (default 16) */
  concurrency?: number;
  databaseUrl?: string;
}

const KEY = 'bench-key-0123456789abcdef';
const IG_USER = '17841499999999999';
const SECRET = 'bench-app-secret';

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Baseline server: reads the body, answers 200 (POST) or 302 (GET). */
function startBaseline() {
  return listen(
    createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.method === 'GET') res.writeHead(302, { location: 'https://example.com/target' }).end();
        else res.writeHead(200, { 'content-type': 'text/plain' }).end('EVENT_RECEIVED');
      });
    }),
  );
}

const answered = (runs: LoadResult[], status: number) => runs.reduce((n, r) => n + (r.statuses[String(status)] ?? 0), 0);

/**
 * Warm-up of both sides (not counted), then `rounds` rounds alternating the bare server and the
 * service; `requests(side, round)` gives each run its requests (round -1: the warm-up). `settle`,
 * when given, waits after each run of the service for the work it does after answering; its time
 * counts in the run's.
 */
async function alternate(
  loader: LoadProcess,
  urls: { bare: string; service: string },
  rounds: number,
  concurrency: number,
  requests: (side: 'bare' | 'service', round: number) => LoadRequest[],
  settle: () => Promise<void> = async () => undefined,
): Promise<{ bare: LoadResult[]; service: LoadResult[] }> {
  const service = async (r: number) => {
    const run = await loader.run(urls.service, requests('service', r), concurrency);
    const started = performance.now();
    await settle();
    return { ...run, seconds: run.seconds + (performance.now() - started) / 1000 };
  };
  await loader.run(urls.bare, requests('bare', -1), concurrency);
  await service(-1);
  const out = { bare: [] as LoadResult[], service: [] as LoadResult[] };
  for (let r = 0; r < rounds; r++) {
    out.bare.push(await loader.run(urls.bare, requests('bare', r), concurrency));
    out.service.push(await service(r));
  }
  return out;
}

/** Polls `done` every millisecond or two, for at most `seconds`. */
async function until(done: () => Promise<boolean>, seconds = 30): Promise<void> {
  const deadline = performance.now() + seconds * 1000;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`bench: the service did not finish its work within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

function commentDelivery(id: string): LoadRequest {
  const body = JSON.stringify({
    object: 'instagram',
    entry: [{ id: IG_USER, time: Math.floor(Date.now() / 1000), changes: [{ field: 'comments', value: { id, from: { id: `u${id.length % 500}`, username: `user${id.length % 500}` }, text: 'nothing matches this', media: { id: 'm1' } } }] }],
  });
  return { method: 'POST', path: '/webhooks/instagram', body, headers: { 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` } };
}

async function withService<T>(opts: AutomationBenchOptions, fn: (url: string, ds: DataSource, schema: string) => Promise<T>): Promise<T> {
  const bench = await startBenchService(
    automationApiService,
    {
      AUTOMATION_API_KEY: KEY,
      IG_USER_ID: IG_USER,
      IG_ACCESS_TOKEN: 'bench-token',
      IG_APP_SECRET: SECRET,
      IG_VERIFY_TOKEN: 'bench-verify',
      // Nothing answers here; no automation matches, so the engine never calls it.
      IG_GRAPH_URL: 'http://127.0.0.1:9/v23.0',
      PUBLIC_BASE_URL: 'https://bench.example.com',
    },
    opts.databaseUrl,
  );
  try {
    return await fn(bench.url, bench.service.app.get(DataSource), bench.schema);
  } finally {
    await bench.close();
  }
}

/** Webhook deliveries accepted per second (signature check + durable insert + 200). */
export async function benchWebhookIngest(opts: AutomationBenchOptions = {}): Promise<BenchMeasurement> {
  const n = opts.deliveries ?? 2000;
  const rounds = opts.rounds ?? 3;
  const concurrency = opts.concurrency ?? 16;
  const baseline = await startBaseline();
  const loader = await LoadProcess.start();
  try {
    const tag = randomUUID().slice(0, 8);
    const batch = (side: string, r: number) => Array.from({ length: r < 0 ? n / 4 : n }, (_v, i) => commentDelivery(`bench-${tag}-${side}-${r}-${i}`));
    const { base, value, stored, ok } = await withService(opts, async (url, ds, schema) => {
      const runs = await alternate(loader, { bare: baseline.url, service: url }, rounds, concurrency, batch);
      const [{ count }] = (await ds.query(`SELECT count(*)::int AS count FROM ${schema}.inbound_events WHERE dedup_key LIKE $1`, [`%bench-${tag}-service-%`])) as Array<{ count: number }>;
      return { base: perSecond(runs.bare, n), value: perSecond(runs.service, n), stored: count, ok: answered(runs.service, 200) };
    });
    const measured = n * rounds;
    // The warm-up's deliveries are stored too.
    if (ok !== measured || stored !== measured + n / 4) throw new Error(`bench: ${ok} of ${measured} deliveries answered 200, ${stored} stored (warm-up included)`);
    return {
      name: 'automation-api: webhook deliveries/s',
      value: round(value),
      unit: 'deliveries/s',
      baseline: round(base),
      ratio: round(value / base, 3),
      detail: `${rounds} × ${n} signed comment webhooks alternating with the bare server, ${concurrency} connections from a load process of its own, each stored in the work queue before 200 (${stored} stored = answers + warm-up) vs a bare Node server`,
    };
  } finally {
    await loader.close();
    await baseline.close();
  }
}

/** Click redirects per second (lookup + stored click + 302, each counted before the round ends). */
export async function benchClickRedirect(opts: AutomationBenchOptions = {}): Promise<BenchMeasurement> {
  const n = opts.clicks ?? 2000;
  const rounds = opts.rounds ?? 3;
  const concurrency = opts.concurrency ?? 16;
  const links = 200;
  const baseline = await startBaseline();
  const loader = await LoadProcess.start();
  try {
    const { base, value, counted } = await withService(opts, async (url, ds, schema) => {
      const created = await fetch(`${url}/api/v1/automations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench', keywords: ['bench'], link_url: 'https://example.com/target' }),
      }).then((r) => r.json() as Promise<{ automation: { id: number } }>);
      const [{ id: accountId }] = await ds.query(`SELECT id FROM ${schema}.accounts LIMIT 1`);
      const codes: string[] = [];
      for (let i = 0; i < links; i++) {
        const [{ id: runId }] = await ds.query(
          `INSERT INTO ${schema}.runs (account_id, automation_id, contact_ig_id, trigger, state, link_sent_at) VALUES ($1, $2, $3, 'dm', 'done', now()) RETURNING id`,
          [accountId, created.automation.id, `u${i}`],
        );
        await ds.query(`INSERT INTO ${schema}.contacts (account_id, ig_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [accountId, `u${i}`]);
        const code = `bench${String(i).padStart(7, '0')}`;
        await ds.query(`INSERT INTO ${schema}.click_links (token, account_id, automation_id, run_id, url) VALUES ($1, $2, $3, $4, 'https://example.com/target')`, [
          code,
          accountId,
          created.automation.id,
          runId,
        ]);
        codes.push(code);
      }
      const clicks = (r: number) => Array.from({ length: r < 0 ? n / 4 : n }, (_v, i): LoadRequest => ({ method: 'GET', path: `/r/${codes[i % links]}` }));
      // Each click is stored before its 302 and counted right after: a round lasts until its clicks are counted.
      const counted = async () => ((await ds.query(`SELECT NOT EXISTS (SELECT 1 FROM ${schema}.clicks WHERE counted_at IS NULL) AS done`)) as Array<{ done: boolean }>)[0].done;
      const runs = await alternate(loader, { bare: baseline.url, service: url }, rounds, concurrency, (_side, r) => clicks(r), () => until(counted));
      const total = n * rounds + n / 4;
      if (answered(runs.service, 302) !== n * rounds) throw new Error(`bench: ${answered(runs.service, 302)} of ${n * rounds} clicks answered 302`);
      const [row] = (await ds.query(
        `SELECT (SELECT count(*)::int FROM ${schema}.clicks WHERE counted_at IS NOT NULL) AS clicks, (SELECT sum(click_count)::int FROM ${schema}.runs) AS counted,
                (SELECT count(*)::int FROM ${schema}.events WHERE kind = 'link_clicked') AS events`,
      )) as Array<{ clicks: number; counted: number; events: number }>;
      if (row.clicks !== total || row.counted !== total || row.events !== total) throw new Error(`bench: ${total} clicks answered (warm-up included), ${JSON.stringify(row)} stored`);
      return { base: perSecond(runs.bare, n), value: perSecond(runs.service, n), counted: total };
    });
    return {
      name: 'automation-api: click redirects/s',
      value: round(value),
      unit: 'redirects/s',
      baseline: round(base),
      ratio: round(value / base, 3),
      detail: `${rounds} × ${n} GET /r/{code} over ${links} tracked links alternating with the bare server, ${concurrency} connections from a load process of its own, each stored before the 302 and counted before the round ends (${counted} counted = answers + warm-up) vs a bare Node server answering 302`,
    };
  } finally {
    await loader.close();
    await baseline.close();
  }
}

/** Named scenarios for tools/bench.ts. */
export const automationBenchScenarios = [
  { name: 'automation-api: webhook deliveries/s', run: (opts?: AutomationBenchOptions) => benchWebhookIngest(opts) },
  { name: 'automation-api: click redirects/s', run: (opts?: AutomationBenchOptions) => benchClickRedirect(opts) },
];
