// Truck tracking links (BatchTrackingService): an address of our own network is never fetched,
// whether written in the link, served by DNS for a public-looking name, or named by a redirect;
// the shipment reads `not_found` with the reason.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { routeSystemLookupTo, startFakeDnsServer, type FakeDnsServer } from '@platform/testing';
import type { LogisticsHooksConfig } from '../config';
import { BatchTrackingService } from './batch-tracking.service';

describe('truck tracking links refuse private addresses', () => {
  let server: Server;
  let port: number;
  let dns: FakeDnsServer;
  let restoreDns: () => void;
  const hits: string[] = [];
  const services: BatchTrackingService[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url!);
      const to = new URL(req.url!, 'http://x').searchParams.get('to');
      if (to) res.writeHead(302, { location: to }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ lat: 51.9, lon: 4.4, speed: 60, recorded_at: new Date().toISOString(), driver: 'd' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    dns = await startFakeDnsServer({ 'track.example.com': { A: ['127.0.0.1'] }, 'meta.example.com': { A: ['169.254.169.254'] } });
    restoreDns = routeSystemLookupTo(dns, ['track.example.com', 'meta.example.com']);
  });
  afterAll(async () => {
    restoreDns();
    await Promise.all(services.map((s) => s.onModuleDestroy()));
    await dns.close();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (hits.length = 0));

  const tracking = (allowPrivate: boolean) => {
    const config = { OUTBOUND_ALLOW_PRIVATE: allowPrivate, BATCH_TRACK_TIMEOUT_MS: 5000, BATCH_TRACK_MAX_SHIPMENTS: 200, BATCH_TRACK_CONCURRENCY: 4, BATCH_EXPIRED_AFTER_MIN: 120, BATCH_DELAY_TOLERANCE_MIN: 30, BATCH_STOPPED_BELOW_KMH: 5 } as LogisticsHooksConfig;
    const service = new BatchTrackingService(config);
    services.push(service);
    return service;
  };
  const reasons = async (allowPrivate: boolean, urls: string[]) =>
    (await tracking(allowPrivate).track(urls.map((tracking_url) => ({ tracking_url })))).shipments.map((s) => `${s.status}: ${s.reason}`);
  const REFUSED = 'not_found: the link is not a public http(s) address';

  it('refuses a literal private, metadata or IPv6-mapped loopback address', async () => {
    expect(await reasons(false, [`http://127.0.0.1:${port}/feed`, 'http://10.1.2.3/feed', 'http://169.254.169.254/latest/meta-data/', `http://[::ffff:127.0.0.1]:${port}/feed`])).toEqual([REFUSED, REFUSED, REFUSED, REFUSED]);
    expect(hits).toHaveLength(0);
  });

  it('refuses a name that the DNS server resolves to loopback or to the metadata address', async () => {
    expect(await reasons(false, [`http://track.example.com:${port}/feed`, 'http://meta.example.com/feed'])).toEqual([REFUSED, REFUSED]);
    expect(dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['track.example.com', 'meta.example.com']));
    expect(hits).toHaveLength(0);
  });

  it('checks every redirect hop: a redirect to the metadata address is refused even with OUTBOUND_ALLOW_PRIVATE', async () => {
    const links = ['http://meta.example.com/latest/meta-data/', 'http://169.254.169.254/latest/meta-data/'].map((to) => `http://track.example.com:${port}/r?to=${encodeURIComponent(to)}`);
    const [reached] = await reasons(true, [`http://track.example.com:${port}/feed`]);
    expect(reached).not.toBe(REFUSED);
    expect(await reasons(true, links)).toEqual([REFUSED, REFUSED]);
    expect(hits).toHaveLength(3);
  });
});
