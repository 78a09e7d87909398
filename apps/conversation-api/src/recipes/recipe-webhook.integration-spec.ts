// A recipe's webhook call: signed with the recipe's secret, refused for private addresses whatever
// the host name (checked when connecting), no redirects followed.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyHmacSignature } from '@platform/http-safety';
import { fakeDnsLookup, startFakeDnsServer } from '@platform/testing';
import { RecipeWebhookCaller } from './recipe-webhook';

describe('recipe webhooks', () => {
  let server: Server;
  let port: number;
  const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        const to = new URL(req.url!, 'http://x').searchParams.get('to');
        if (req.url === '/moved' || to) res.writeHead(302, { location: to ?? '/hook' }).end();
        else res.writeHead(req.url === '/fail' ? 500 : 204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const ids = { recipeId: '9d2f0c3e-4b7a-4f51-9a43-1c2d3e4f5a6b', eventId: '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d' };
  // A public-looking name that resolves to loopback: only the check at connection time can catch it.
  const rebinding = (async () => [{ address: '127.0.0.1', family: 4 }]) as never;

  it('refuses a host that resolves to a private address, sending nothing', async () => {
    const caller = new RecipeWebhookCaller({ lookup: rebinding });
    await expect(caller.call(`http://hooks.example.com:${port}/hook`, 'whsec_test', ids, { a: 1 })).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    await expect(caller.call(`http://127.0.0.1:${port}/hook`, 'whsec_test', ids, { a: 1 })).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    expect(received).toHaveLength(0);
  });

  it('refuses names served by DNS that resolve to loopback or metadata, IPv6-mapped loopback, and any redirect (to metadata here)', async () => {
    const dns = await startFakeDnsServer({ 'hooks.example.com': { A: ['127.0.0.1'] }, 'meta.example.com': { A: ['169.254.169.254'] } });
    try {
      const caller = new RecipeWebhookCaller({ lookup: fakeDnsLookup(dns) });
      for (const url of [`http://hooks.example.com:${port}/hook`, 'http://meta.example.com/latest/meta-data/', `http://[::ffff:127.0.0.1]:${port}/hook`, 'http://169.254.169.254/latest/meta-data/']) {
        await expect(caller.call(url, 'whsec_test', ids, {})).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
      }
      expect(dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['hooks.example.com', 'meta.example.com']));
      expect(received).toHaveLength(0);
      // Loopback allowed (a test receiver): the redirect to metadata is not followed at all.
      const open = new RecipeWebhookCaller({ allowPrivate: true, lookup: fakeDnsLookup(dns) });
      const to = encodeURIComponent('http://meta.example.com/latest/meta-data/');
      await expect(open.call(`http://127.0.0.1:${port}/redirect?to=${to}`, 'whsec_test', ids, {})).rejects.toMatchObject({ code: 'TOO_MANY_REDIRECTS' });
      expect(received.splice(0).map((r) => r.body)).toEqual(['{}']);
    } finally {
      await dns.close();
    }
  });

  it('signs the body with the recipe secret and names the recipe and event', async () => {
    const caller = new RecipeWebhookCaller({ allowPrivate: true });
    expect(await caller.call(`http://127.0.0.1:${port}/hook`, 'whsec_test', ids, { event: 'x', n: 1 })).toBe(204);
    const [got] = received.splice(0);
    expect(JSON.parse(got.body)).toEqual({ event: 'x', n: 1 });
    expect(verifyHmacSignature(got.body, 'whsec_test', got.headers['x-recipe-signature'] as string)).toBe(true);
    expect(verifyHmacSignature(got.body, 'another-secret', got.headers['x-recipe-signature'] as string)).toBe(false);
    expect(got.headers).toMatchObject({ 'x-recipe-id': ids.recipeId, 'x-recipe-event-id': ids.eventId, 'content-type': 'application/json' });

    await expect(caller.call(`http://127.0.0.1:${port}/fail`, 'whsec_test', ids, {})).rejects.toThrow('the receiver answered 500');
    await expect(caller.call(`http://127.0.0.1:${port}/moved`, 'whsec_test', ids, {})).rejects.toThrow();
    expect(received.map((r) => r.body)).toEqual(['{}', '{}']);
  });
});
