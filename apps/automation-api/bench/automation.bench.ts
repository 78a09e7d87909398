/**
 * automation-api benchmark scenarios for `npm run bench` (tools/bench.ts), each against a baseline
 * measured in the same run on loopback:
 *
 *  - `automation-api: webhook deliveries/s` — signed platform webhooks (one comment each, distinct
 *    ids) POSTed to /webhooks/instagram: signature check over the raw body, durable insert into the
 *    work queue, 200. Baseline: a bare Node HTTP server that reads the body and answers 200.
 *  - `automation-api: click redirects/s` — GET /r/{code} of tracked links (lookup, click row, run
 *    counter, contact tag, Event, outbox event), 302. Baseline: a bare Node server answering 302.
 *
 * Uses DATABASE_URL when set (a real PostgreSQL; the benchmark creates and drops its own schema),
 * else the embedded PGlite under a temporary DATA_DIR.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { DataSource } from 'typeorm';
import { automationApiService } from '../src/service';
import { inParallel, listenOnLoopback as listen, sendRequest, startBenchService, type BenchMeasurement } from '@platform/bench';

export interface AutomationBenchOptions {
  /** webhook deliveries (default 2000) */
  deliveries?: number;
  /** click redirects (default 2000) */
  clicks?: number;
  /** concurrent client requests (default 16) */
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

const send = async (url: string, method: string, body?: string, headers: Record<string, string> = {}): Promise<number> => (await sendRequest(url, method, body, headers)).status;

function commentDelivery(i: number, runTag: string): { body: string; signature: string } {
  const body = JSON.stringify({
    object: 'instagram',
    entry: [{ id: IG_USER, time: Math.floor(Date.now() / 1000), changes: [{ field: 'comments', value: { id: `bench-${runTag}-${i}`, from: { id: `u${i % 500}`, username: `user${i % 500}` }, text: 'nothing matches this', media: { id: 'm1' } } }] }],
  });
  return { body, signature: `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` };
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
  const concurrency = opts.concurrency ?? 16;
  const baseline = await startBaseline();
  try {
    const tag = randomUUID().slice(0, 8);
    const payloads = Array.from({ length: n }, (_v, i) => commentDelivery(i, tag));
    const base = await inParallel(n, concurrency, async (i) => {
      await send(baseline.url, 'POST', payloads[i].body, { 'x-hub-signature-256': payloads[i].signature });
    });
    const value = await withService(opts, async (url) =>
      inParallel(n, concurrency, async (i) => {
        const status = await send(`${url}/webhooks/instagram`, 'POST', payloads[i].body, { 'x-hub-signature-256': payloads[i].signature });
        if (status !== 200) throw new Error(`webhook answered ${status}`);
      }),
    );
    return {
      name: 'automation-api: webhook deliveries/s',
      value: round(value),
      unit: 'deliveries/s',
      baseline: round(base),
      ratio: round(value / base, 3),
      detail: `${n} signed comment webhooks, ${concurrency} concurrent, stored in the work queue vs a bare Node server`,
    };
  } finally {
    await baseline.close();
  }
}

/** Click redirects per second (lookup + counted click + 302). */
export async function benchClickRedirect(opts: AutomationBenchOptions = {}): Promise<BenchMeasurement> {
  const n = opts.clicks ?? 2000;
  const concurrency = opts.concurrency ?? 16;
  const links = 200;
  const baseline = await startBaseline();
  try {
    const base = await inParallel(n, concurrency, async () => {
      await send(`${baseline.url}/r/abcdefghijkl`, 'GET');
    });
    const value = await withService(opts, async (url, ds, schema) => {
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
      return inParallel(n, concurrency, async (i) => {
        const status = await send(`${url}/r/${codes[i % links]}`, 'GET');
        if (status !== 302) throw new Error(`redirect answered ${status}`);
      });
    });
    return {
      name: 'automation-api: click redirects/s',
      value: round(value),
      unit: 'redirects/s',
      baseline: round(base),
      ratio: round(value / base, 3),
      detail: `${n} GET /r/{code} over ${links} tracked links, ${concurrency} concurrent, each counted vs a bare Node server answering 302`,
    };
  } finally {
    await baseline.close();
  }
}

/** Named scenarios for tools/bench.ts. */
export const automationBenchScenarios = [
  { name: 'automation-api: webhook deliveries/s', run: (opts?: AutomationBenchOptions) => benchWebhookIngest(opts) },
  { name: 'automation-api: click redirects/s', run: (opts?: AutomationBenchOptions) => benchClickRedirect(opts) },
];
