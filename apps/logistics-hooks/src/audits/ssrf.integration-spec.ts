// Audit notification webhooks (AuditWebhookConsumer): AUDIT_WEBHOOK_URL never reaches an address
// of our own network, whether written in the URL, served by DNS for a public-looking name, or named
// by a redirect (none is followed).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import type { EventEnvelope } from '@platform/messaging';
import { routeSystemLookupTo, startFakeDnsServer, type FakeDnsServer } from '@platform/testing';
import type { LogisticsHooksConfig } from '../config';
import type { AuditNotification } from './audit-events';
import { AuditWebhookConsumer } from './audit-webhook.consumer';

describe('audit notification webhooks refuse private addresses', () => {
  let server: Server;
  let port: number;
  let dns: FakeDnsServer;
  let restoreDns: () => void;
  const hits: string[] = [];

  beforeAll(async () => {
    Logger.overrideLogger(false);
    server = createServer((req, res) => {
      hits.push(req.url!);
      const to = new URL(req.url!, 'http://x').searchParams.get('to');
      if (to) res.writeHead(307, { location: to }).end();
      else res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    dns = await startFakeDnsServer({ 'hooks.example.com': { A: ['127.0.0.1'] }, 'meta.example.com': { A: ['169.254.169.254'] } });
    restoreDns = routeSystemLookupTo(dns, ['hooks.example.com', 'meta.example.com']);
  });
  afterAll(async () => {
    restoreDns();
    await dns.close();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (hits.length = 0));

  const event = { id: 'evt-1', data: { audit_id: 'a1' } } as unknown as EventEnvelope<AuditNotification>;
  const deliver = (allowPrivate: boolean, url: string) =>
    new AuditWebhookConsumer({ OUTBOUND_ALLOW_PRIVATE: allowPrivate, AUDIT_WEBHOOK_URL: url, AUDIT_WEBHOOK_SECRET: 's' } as LogisticsHooksConfig).deliver(event);

  it('refuses a literal private, metadata or IPv6-mapped loopback address', async () => {
    for (const url of [`http://127.0.0.1:${port}/hook`, 'http://192.168.0.5/hook', 'http://169.254.169.254/latest/meta-data/', `http://[::ffff:127.0.0.1]:${port}/hook`]) {
      await expect(deliver(false, url)).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    }
    expect(hits).toHaveLength(0);
  });

  it('refuses a name that the DNS server resolves to loopback or to the metadata address', async () => {
    await expect(deliver(false, `http://hooks.example.com:${port}/hook`)).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS', message: expect.stringContaining('resolves to 127.0.0.1, a loopback address') });
    await expect(deliver(false, 'http://meta.example.com/hook')).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS', message: expect.stringContaining('resolves to 169.254.169.254, a metadata address') });
    expect(dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['hooks.example.com', 'meta.example.com']));
    expect(hits).toHaveLength(0);
  });

  it('follows no redirect, so one to the metadata address is never requested', async () => {
    await deliver(true, `http://hooks.example.com:${port}/hook`);
    const to = encodeURIComponent('http://meta.example.com/latest/meta-data/');
    await expect(deliver(true, `http://hooks.example.com:${port}/r?to=${to}`)).rejects.toMatchObject({ code: 'TOO_MANY_REDIRECTS' });
    expect(hits).toEqual(['/hook', `/r?to=${to}`]);
  });
});
