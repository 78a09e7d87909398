// Customer webhooks (DeliveriesWorker): an address of our own network is never reached, whether it
// is written in the URL, served by DNS for a public-looking name, or named by a redirect.
import { startSsrfTargets, type SsrfTargets } from '@platform/testing';
import type { AutomationsService } from '../automations/automations.service';
import type { AutomationConfig } from '../config';
import type { EventsService } from '../events/events.service';
import type { DeliveriesRepository, DeliveryRow } from './deliveries.repository';
import { DeliveriesWorker } from './deliveries.worker';

describe('customer webhook deliveries refuse private addresses', () => {
  let targets: SsrfTargets;
  let port: number;
  let hits: string[];

  beforeAll(async () => {
    targets = await startSsrfTargets();
    ({ port, hits } = targets);
  });
  afterAll(() => targets.close());
  beforeEach(() => (hits.length = 0));

  /** One delivery attempt of `url`; the error recorded on the row (null: delivered). */
  async function deliver(url: string, allowPrivate: boolean): Promise<string | null> {
    const row: DeliveryRow = { id: 'd1', account_id: 1, automation_id: null, run_id: null, kind: 'email_captured', url, payload: { a: 1 }, attempts: 0 };
    let error: string | null = null;
    const deliveries = {
      claimDue: async () => [row],
      markDelivered: async () => undefined,
      markAttemptFailed: async (_id: string, attempt: { error: string }) => void (error = attempt.error),
    } as unknown as DeliveriesRepository;
    const events = { record: async () => undefined } as unknown as EventsService;
    const config = { NODE_ENV: 'test', AUTOMATION_WEBHOOK_ALLOW_PRIVATE: allowPrivate, AUTOMATION_POLL_MS: 1000, AUTOMATION_MAX_ATTEMPTS: 5, AUTOMATION_RETRY_BASE_MS: 1000 } as AutomationConfig;
    const worker = new DeliveriesWorker(deliveries, {} as AutomationsService, events, config);
    expect(await worker.tick()).toBe(1);
    return error;
  }

  it('refuses a literal private, metadata or IPv6-mapped loopback address', async () => {
    for (const url of targets.privateUrls('/hook', 'https')) {
      expect(await deliver(url, false)).toMatch(/resolves to \S+, a (loopback|private|metadata) address; only public internet addresses may be used/);
    }
    expect(hits).toHaveLength(0);
  });

  it('refuses a name that the DNS server resolves to loopback or to the metadata address', async () => {
    expect(await deliver(`https://hooks.example.com:${port}/hook`, false)).toMatch(/hooks\.example\.com resolves to 127\.0\.0\.1, a loopback address/);
    expect(await deliver('https://meta.example.com/latest/meta-data/', false)).toMatch(/meta\.example\.com resolves to 169\.254\.169\.254, a metadata address/);
    expect(targets.dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['hooks.example.com', 'meta.example.com']));
    expect(hits).toHaveLength(0);
  });

  it('follows no redirect, so one to the metadata address is never requested', async () => {
    // Loopback opened for a test receiver; the redirect it answers is a failure, not a second request.
    expect(await deliver(`http://127.0.0.1:${port}/hook`, true)).toBeNull();
    const to = encodeURIComponent('http://meta.example.com/latest/meta-data/');
    expect(await deliver(`http://hooks.example.com:${port}/r?to=${to}`, true)).toMatch(/more than 0 redirects/);
    expect(hits).toEqual(['/hook', `/r?to=${to}`]);
  });
});
