// Truck tracking links (BatchTrackingService): an address of our own network is never fetched,
// whether written in the link, served by DNS for a public-looking name, or named by a redirect;
// the shipment reads `not_found` with the reason.
import { startSsrfTargets, type SsrfTargets } from '@platform/testing';
import type { LogisticsHooksConfig } from '../config';
import { BatchTrackingService } from './batch-tracking.service';

describe('truck tracking links refuse private addresses', () => {
  let targets: SsrfTargets;
  let port: number;
  let hits: string[];
  const services: BatchTrackingService[] = [];

  beforeAll(async () => {
    targets = await startSsrfTargets({
      loopbackName: 'track.example.com',
      redirectStatus: 302,
      answer: () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lat: 51.9, lon: 4.4, speed: 60, recorded_at: new Date().toISOString(), driver: 'd' }) }),
    });
    ({ port, hits } = targets);
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.onModuleDestroy()));
    await targets.close();
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
    const urls = targets.privateUrls('/feed');
    expect(await reasons(false, urls)).toEqual(urls.map(() => REFUSED));
    expect(hits).toHaveLength(0);
  });

  it('refuses a name that the DNS server resolves to loopback or to the metadata address', async () => {
    expect(await reasons(false, [`http://track.example.com:${port}/feed`, 'http://meta.example.com/feed'])).toEqual([REFUSED, REFUSED]);
    expect(targets.dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['track.example.com', 'meta.example.com']));
    expect(hits).toHaveLength(0);
  });

  it('checks every redirect hop: a redirect to the metadata address is refused even with OUTBOUND_ALLOW_PRIVATE', async () => {
    const links = ['http://meta.example.com/latest/meta-data/', 'http://169.254.169.254/latest/meta-data/'].map((to) => targets.redirectTo(to));
    const [reached] = await reasons(true, [`http://track.example.com:${port}/feed`]);
    expect(reached).not.toBe(REFUSED);
    expect(await reasons(true, links)).toEqual([REFUSED, REFUSED]);
    expect(hits).toHaveLength(3);
  });
});
