/**
 * logistics-hooks benchmarks for `npm run bench` (tools/bench.ts):
 *
 * - `/ocean-track` answers per second from the database cache: one container tracked once from a fake
 *   DCSA Track & Trace carrier, then asked again and again (API key check, validation, one prepared
 *   cache read). Baseline: a bare Node HTTP server answering the same JSON, same load.
 * - A 200-shipment `/{prefix}-batch-track` against a local tracking-feed server whose 20 links answer in
 *   500 ms each (goal: under 2 s). Baseline: the same 20 links fetched at once with plain `fetch`.
 *
 * Uses DATABASE_URL when set (a throwaway schema, dropped afterwards), else the embedded PGlite.
 */
import { createServer } from 'node:http';
import { inParallel, listenOnLoopback, sendRequest, startBenchService, type BenchMeasurement } from '@platform/bench';
import { startFakeDcsaTnt, startFakeTrackingFeed, sampleDcsaShipment } from '@platform/testing';
import { logisticsHooksService } from '../src/service';

const API_KEY = 'bench-logistics-key-0123456789';
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** `/ocean-track` answers per second served from the cache, next to a bare Node server. */
export async function benchOceanTrackCache(opts: { requests?: number; concurrency?: number } = {}): Promise<BenchMeasurement> {
  const n = opts.requests ?? 3000;
  const concurrency = opts.concurrency ?? 16;
  const body = JSON.stringify({ api_key: API_KEY, tracking_number: 'MAEU7654320' });
  const carrier = await startFakeDcsaTnt({ auth: { type: 'bearer', token: 'bench-token' }, shipments: [sampleDcsaShipment()] });
  const bench = await startBenchService(logisticsHooksService, {
    LOGISTICS_API_KEY: API_KEY,
    OCEAN_CARRIERS: JSON.stringify({ MAERSK: { url: carrier.url, auth: { type: 'bearer', token: 'bench-token' } } }),
    OCEAN_CACHE_TTL_SECONDS: '3600',
    LOG_LEVEL: 'warn',
  });
  try {
    const first = await sendRequest(`${bench.url}/ocean-track`, 'POST', body, { 'content-type': 'application/json' });
    if (first.status !== 200) throw new Error(`ocean-track answered ${first.status}: ${first.body}`);
    const answer = first.body;
    const baseline = await listenOnLoopback(
      createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
      }),
    );
    let base: number;
    try {
      base = await inParallel(n, concurrency, async () => void (await sendRequest(baseline.url, 'POST', body, { 'content-type': 'application/json' })));
    } finally {
      await baseline.close();
    }
    const before = carrier.requests.length;
    const rate = await inParallel(n, concurrency, async () => {
      const res = await sendRequest(`${bench.url}/ocean-track`, 'POST', body, { 'content-type': 'application/json' });
      if (res.status !== 200) throw new Error(`ocean-track answered ${res.status}`);
    });
    if (carrier.requests.length !== before) throw new Error(`the carrier was asked ${carrier.requests.length - before} times during the cached run`);
    return {
      name: 'logistics-hooks: /ocean-track answers/s (cached)',
      value: round(rate),
      unit: 'req/s',
      baseline: round(base),
      ratio: round(rate / base, 3),
      detail: `${n} requests, ${concurrency} at a time, one DCSA call before the run; baseline: a bare Node server answering the same JSON`,
    };
  } finally {
    await bench.close();
    await carrier.close();
  }
}

/** One 200-shipment batch-track over 20 links answering in 500 ms each (goal: under 2 s). */
export async function benchBatchTrack(opts: { shipments?: number; links?: number; delayMs?: number } = {}): Promise<BenchMeasurement> {
  const shipments = opts.shipments ?? 200;
  const links = opts.links ?? 20;
  const delayMs = opts.delayMs ?? 500;
  const now = Date.now();
  const trucks = Object.fromEntries(
    Array.from({ length: links }, (_v, i) => [`truck-${i}`, { lat: 19 + i / 100, lon: -99 - i / 100, speed: 40 + i, recorded_at: new Date(now - 60_000).toISOString(), driver: `Driver ${i}` }]),
  );
  const feed = await startFakeTrackingFeed(trucks, { delayMs });
  const bench = await startBenchService(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, OUTBOUND_ALLOW_PRIVATE: 'true', BATCH_TRACK_MAX_SHIPMENTS: String(shipments), LOG_LEVEL: 'warn' });
  try {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: links }, (_v, i) => fetch(feed.link(`truck-${i}`)).then((r) => r.json())));
    const base = (performance.now() - t0) / 1000;
    const body = JSON.stringify({
      api_key: API_KEY,
      shipments: Array.from({ length: shipments }, (_v, i) => ({ unit: `U-${i}`, containers: [], tracking_url: feed.link(`truck-${i % links}`), eta: new Date(now + 3_600_000).toISOString() })),
    });
    const t1 = performance.now();
    const res = await sendRequest(`${bench.url}/ops-batch-track`, 'POST', body, { 'content-type': 'application/json' });
    const seconds = (performance.now() - t1) / 1000;
    if (res.status !== 200) throw new Error(`batch-track answered ${res.status}: ${res.body}`);
    const totals = (JSON.parse(res.body) as { totals: { trucks: number; on_time: number } }).totals;
    if (totals.trucks !== shipments || totals.on_time !== shipments) throw new Error(`batch-track categorised ${JSON.stringify(totals)}`);
    return {
      name: 'logistics-hooks: 200-shipment batch-track',
      value: round(seconds, 2),
      unit: 's',
      baseline: round(base, 2),
      ratio: round(seconds / base, 2),
      detail: `${shipments} shipments over ${links} links answering in ${delayMs} ms (goal: under 2 s); baseline: the ${links} links fetched at once with fetch`,
    };
  } finally {
    await bench.close();
    await feed.close();
  }
}
