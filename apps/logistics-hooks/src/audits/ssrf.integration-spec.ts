// Audit notification webhooks (AuditWebhookConsumer): AUDIT_WEBHOOK_URL never reaches an address
// of our own network, whether written in the URL, served by DNS for a public-looking name, or named
// by a redirect (none is followed).
import { Logger } from '@nestjs/common';
import type { EventEnvelope } from '@platform/messaging';
import { startSsrfTargets, type SsrfTargets } from '@platform/testing';
import type { LogisticsHooksConfig } from '../config';
import type { AuditNotification } from './audit-events';
import { AuditWebhookConsumer } from './audit-webhook.consumer';

describe('audit notification webhooks refuse private addresses', () => {
  let targets: SsrfTargets;
  let port: number;
  let hits: string[];

  beforeAll(async () => {
    Logger.overrideLogger(false);
    targets = await startSsrfTargets();
    ({ port, hits } = targets);
  });
  afterAll(() => targets.close());
  beforeEach(() => (hits.length = 0));

  const event = { id: 'evt-1', data: { audit_id: 'a1' } } as unknown as EventEnvelope<AuditNotification>;
  const deliver = (allowPrivate: boolean, url: string) =>
    new AuditWebhookConsumer({ OUTBOUND_ALLOW_PRIVATE: allowPrivate, AUDIT_WEBHOOK_URL: url, AUDIT_WEBHOOK_SECRET: 's' } as LogisticsHooksConfig).deliver(event);

  it('refuses a literal private, metadata or IPv6-mapped loopback address', async () => {
    for (const url of targets.privateUrls('/hook')) {
      await expect(deliver(false, url)).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    }
    expect(hits).toHaveLength(0);
  });

  it('refuses a name that the DNS server resolves to loopback or to the metadata address', async () => {
    await expect(deliver(false, `http://hooks.example.com:${port}/hook`)).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS', message: expect.stringContaining('resolves to 127.0.0.1, a loopback address') });
    await expect(deliver(false, 'http://meta.example.com/hook')).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS', message: expect.stringContaining('resolves to 169.254.169.254, a metadata address') });
    expect(targets.dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['hooks.example.com', 'meta.example.com']));
    expect(hits).toHaveLength(0);
  });

  it('follows no redirect, so one to the metadata address is never requested', async () => {
    await deliver(true, `http://hooks.example.com:${port}/hook`);
    const to = encodeURIComponent('http://meta.example.com/latest/meta-data/');
    await expect(deliver(true, `http://hooks.example.com:${port}/r?to=${to}`)).rejects.toMatchObject({ code: 'TOO_MANY_REDIRECTS' });
    expect(hits).toEqual(['/hook', `/r?to=${to}`]);
  });
});
