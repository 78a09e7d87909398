/**
 * email-api benchmark suite for `npm run bench`: the open pixel (`GET /t/o/:token`) and the click
 * redirect (`GET /t/c/:token`) in requests per second, next to a bare Node server answering the
 * same GIF and 302 (same headers) on loopback in the same run (same load generator, same connections,
 * both warmed up the same way; autocannon runs in a process of its own, LoadProcess of @platform/bench); and
 * `GET /analytics/timeseries` p95 over a project holding 1,000,000 mail events, next to the bare
 * server's p95 for the same sequence of requests.
 *
 * Every pixel and redirect request is recorded (key-less public path: verify the signed token; the
 * redirect reads its link with one prepared statement; the hits are written in batches, one prepared
 * statement each that reads the mails, inserts the events, stamps the mails and queues the rollup
 * counts). No event may be lost: the events stored must equal the answers, or the suite throws.
 */
import { Database } from '@platform/database';
import { startBenchService, type BenchMeasurement } from '@platform/bench';
import { LoadProcess, type GetLoadResult } from '@platform/bench';
import { benchEnv, benchProject, benchTag, json, round } from './bench-api';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { emailApiService } from '../src/service';
import { MailEventsService } from '../src/mail-events/mail-events.service';
import { TrackingLinks } from '../src/tracking/tracking-links';

export interface EmailTrackingBenchOptions {
  /** Requests per load run (default 5000). */
  requests?: number;
  /** Load runs per side and path, alternating bare server and service (default 4). */
  rounds?: number;
  /** Concurrent connections (default 20). */
  connections?: number;
  /** Mail events in the analytics project (default 1,000,000). */
  events?: number;
  /** Time-series requests measured (default 100). */
  queries?: number;
  databaseUrl?: string;
}

const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * The baseline: a bare Node server answering the pixel and the redirect as the service does (the
 * same headers, a request id included), without a database.
 */
async function startBareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/t/c/')) {
      res.writeHead(302, { location: 'https://shop.example.test/a', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'content-length': 0, 'x-request-id': randomUUID() });
      res.end();
    } else if (req.url?.startsWith('/t/o/')) {
      res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store, max-age=0', 'content-length': GIF.length, 'x-request-id': randomUUID() });
      res.end(GIF);
    } else {
      const body = JSON.stringify({ interval: 'hour', points: [] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Several runs as one: their seconds and answers summed, the worst p99. */
function combine(runs: GetLoadResult[]): GetLoadResult {
  const statuses: Record<string, number> = {};
  for (const r of runs) for (const [status, n] of Object.entries(r.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  return { seconds: runs.reduce((a, r) => a + r.seconds, 0), p99: Math.max(...runs.map((r) => r.p99)), statuses };
}

const answered = (r: GetLoadResult, status: number) => r.statuses[String(status)] ?? 0;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function runEmailTrackingBench(opts: EmailTrackingBenchOptions = {}): Promise<BenchMeasurement[]> {
  const requests = opts.requests ?? 5000;
  const rounds = opts.rounds ?? 4;
  const connections = opts.connections ?? 20;
  const events = opts.events ?? 1_000_000;
  const queries = opts.queries ?? 100;
  // No SMTP_URL: the mails are stored (tracked all the same), nothing leaves the machine.
  const bench = await startBenchService(emailApiService, { ...benchEnv(benchTag()), PREFETCH_WINDOW_SECONDS: '0', SCANNER_WINDOW_SECONDS: '0' }, opts.databaseUrl);
  const { service } = bench;
  const bare = await startBareServer();
  const loader = await LoadProcess.start();
  const load = loader.get.bind(loader);
  try {
    const { project, auth } = await benchProject(service.url);
    const sent = (await json(`${service.url}/v1/send`, { method: 'POST', headers: auth, body: JSON.stringify({ to: 'reader@example.com', subject: 'Hi', body: '<p>Hi</p><a href="https://shop.example.test/a">A</a>' }) })).body;
    const emailId = sent.data.emails[0].email as string;
    const tokens = service.app.get(TrackingLinks).tokens;
    const db = service.app.get(Database);
    const stored = async (type: string) =>
      (await db.rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('mail_events')} WHERE email_id = $1 AND type = $2`, [emailId, type]))[0].n;

    const ua = { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15' };
    const openPath = `/t/o/${tokens.open(emailId)}`;
    const clickPath = `/t/c/${tokens.click(emailId, 0)}`;
    // warm-up (pools, prepared statements, JIT) of the service and the bare server alike, not counted
    for (const url of [service.url, bare.url]) {
      await load(`${url}${openPath}`, 1000, connections, ua);
      await load(`${url}${clickPath}`, 1000, connections, ua);
    }
    await service.app.get(MailEventsService).flushTracking();
    const opensBefore = await stored('open');
    const clicksBefore = await stored('click');

    // Rounds alternating the bare server and the service, summed: a burst of other work on the
    // machine then weighs on both sides alike instead of on whichever ran during it.
    const measured = { baseOpen: [] as GetLoadResult[], open: [] as GetLoadResult[], baseClick: [] as GetLoadResult[], click: [] as GetLoadResult[] };
    for (let round = 0; round < rounds; round++) {
      measured.baseOpen.push(await load(`${bare.url}${openPath}`, requests, connections, ua));
      measured.open.push(await load(`${service.url}${openPath}`, requests, connections, ua));
      measured.baseClick.push(await load(`${bare.url}${clickPath}`, requests, connections, ua));
      measured.click.push(await load(`${service.url}${clickPath}`, requests, connections, ua));
    }
    const [baseOpen, open, baseClick, click] = [measured.baseOpen, measured.open, measured.baseClick, measured.click].map(combine);
    const total = requests * rounds;
    await service.app.get(MailEventsService).flushTracking();
    const opens = (await stored('open')) - opensBefore;
    const clicks = (await stored('click')) - clicksBefore;
    if (opens !== answered(open, 200) || answered(open, 200) !== total) throw new Error(`bench: ${answered(open, 200)} pixel answers, ${opens} opens stored, of ${total}`);
    if (clicks !== answered(click, 302) || answered(click, 302) !== total) throw new Error(`bench: ${answered(click, 302)} redirects, ${clicks} clicks stored, of ${total}`);

    // 1,000,000 mail events over the last 30 days, straight into the tables (the rollups as the
    // statements maintain them), then the hourly series of those 30 days in a zone with a half-hour offset.
    const to = new Date();
    const from = new Date(to.getTime() - 30 * 24 * 3_600_000);
    for (let done = 0; done < events; done += 100_000) {
      const n = Math.min(100_000, events - done);
      await db.rows(
        `INSERT INTO ${db.table('mail_events')} (id, project_id, email_id, type, bounce_type, flag, source, idempotency_key, created_at)
         SELECT 'mev_b' || lpad(($3 + k)::text, 19, '0'), $1, $2, (ARRAY['send', 'delivery', 'open', 'open', 'click', 'bounce'])[1 + k % 6], CASE WHEN k % 6 = 5 THEN 'soft' END,
                CASE WHEN k % 17 = 0 AND k % 6 IN (2, 3) THEN 'privacy_proxy' END,
                'bench', 'bench:' || ($3 + k), $4::timestamptz + make_interval(secs => (k * 2591999.0 / $5)::float8)
           FROM generate_series(1, $5::int) k`,
        [project.id, emailId, done, from, n],
      );
    }
    await db.rows(`DELETE FROM ${db.table('mail_event_rollups')} WHERE project_id = $1`, [project.id]);
    await db.rows(
      `INSERT INTO ${db.table('mail_event_rollups')} (project_id, bucket, sent, delivered, opened, opened_flagged, clicked, bounced)
       SELECT project_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00'),
              count(*) FILTER (WHERE type = 'send'), count(*) FILTER (WHERE type = 'delivery'), count(*) FILTER (WHERE type = 'open' AND flag IS NULL),
              count(*) FILTER (WHERE type = 'open' AND flag IS NOT NULL), count(*) FILTER (WHERE type = 'click'), count(*) FILTER (WHERE type = 'bounce')
         FROM ${db.table('mail_events')} WHERE project_id = $1 GROUP BY 1, 2`,
      [project.id],
    );
    await db.rows(`ANALYZE ${db.table('mail_event_rollups')}`);
    const seriesPath = `/analytics/timeseries?interval=hour&timeZone=Asia/Kolkata&from=${from.toISOString()}&to=${to.toISOString()}`;
    const timed = async (url: string, headers: Record<string, string>) => {
      const times: number[] = [];
      let body: any;
      for (let i = 0; i < queries + 5; i++) {
        const started = performance.now();
        body = (await json(url, { headers })).body;
        if (i >= 5) times.push(performance.now() - started);
      }
      return { times, body };
    };
    const series = await timed(`${service.url}${seriesPath}`, auth);
    const baseSeries = await timed(`${bare.url}${seriesPath}`, {});
    const counted = Object.values(series.body.totals as Record<string, number>).reduce((a, b) => a + b, 0);
    if (counted < events) throw new Error(`bench: the series counted ${counted} events, ${events} were written`);
    const p95 = percentile(series.times, 95);
    const baseP95 = percentile(baseSeries.times, 95);

    const perSecond = (r: { seconds: number }, n: number) => n / r.seconds;
    const o = perSecond(open, total);
    const bo = perSecond(baseOpen, total);
    const c = perSecond(click, total);
    const bc = perSecond(baseClick, total);
    return [
      {
        name: 'email-api: open pixel requests/s',
        value: round(o),
        unit: 'req/s',
        baseline: round(bo),
        ratio: round(o / bo, 3),
        detail: `${rounds} × ${requests} GET /t/o/:token alternating with the bare server, ${connections} connections, worst p99 ${open.p99} ms (bare ${baseOpen.p99} ms); ${opens} opens stored = answers; bare Node server answering the same GIF`,
      },
      {
        name: 'email-api: click redirect requests/s',
        value: round(c),
        unit: 'req/s',
        baseline: round(bc),
        ratio: round(c / bc, 3),
        detail: `${rounds} × ${requests} GET /t/c/:token (302) alternating with the bare server, ${connections} connections, worst p99 ${click.p99} ms (bare ${baseClick.p99} ms); ${clicks} clicks stored = answers; bare Node server answering the same 302`,
      },
      {
        name: 'email-api: /analytics/timeseries p95',
        value: round(p95),
        unit: 'ms',
        baseline: round(baseP95),
        ratio: round(p95 / Math.max(baseP95, 0.1), 3),
        detail: `${queries} sequential requests, hourly series of 30 days (${series.body.points.length} buckets, Asia/Kolkata) over ${events.toLocaleString('en')} mail events of one project (median ${round(percentile(series.times, 50))} ms); baseline: the bare server answering the same requests`,
      },
    ];
  } finally {
    await loader.close();
    await bare.close();
    await bench.close();
  }
}
