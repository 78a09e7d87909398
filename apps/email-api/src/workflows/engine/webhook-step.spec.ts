import { verifyHmacSignature } from '@platform/http-safety';
import { fakeDnsLookup, startFakeDnsServer } from '@platform/testing';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmailApiConfig } from '../../config';
import type { EngineContact, StepDef } from '../executions.repository';
import { StepError } from './step-error';
import { WebhookStep, type WebhookCall } from './webhook-step';

const contact: EngineContact = { id: 'cnt_1', email: 'ada@example.com', subscribed: true, data: { plan: 'pro' } };
const call: WebhookCall = {
  executionId: 'e1',
  workflowId: 'w1',
  deliveryId: 'e1:2',
  trigger: { type: 'EVENT', eventName: 'paid', eventId: 'evt_1', data: { amount: 5 } },
  context: {},
  signingKey: 'k'.repeat(64),
};
const step = (config: Record<string, unknown>): StepDef => ({ id: 's1', workflowId: 'w1', type: 'WEBHOOK', name: 'hook', config });
const webhooks = (allowPrivate: boolean, lookup?: WebhookStep['lookup']) => {
  const w = new WebhookStep({ WORKFLOW_WEBHOOK_ALLOW_PRIVATE: allowPrivate } as EmailApiConfig);
  w.lookup = lookup;
  return w;
};
const failure = async (p: Promise<unknown>): Promise<StepError> => {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(StepError);
  return err as StepError;
};

describe('WebhookStep', () => {
  let server: Server;
  let url: string;
  const seen: Array<{ method: string; headers: IncomingHttpHeaders; body: string }> = [];
  let status = 200;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, headers: req.headers, body });
        const to = new URL(req.url!, 'http://x').searchParams.get('to');
        if (to) return void res.writeHead(302, { location: to }).end();
        res.writeHead(status, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  beforeEach(() => {
    seen.length = 0;
    status = 200;
  });

  it('refuses private addresses for good: a literal one, and a public name that resolves to one (nothing is sent)', async () => {
    const literal = await failure(webhooks(false).call(call, step({ url: 'http://10.0.0.7/hook', method: 'POST' }), contact));
    expect(literal).toMatchObject({ permanent: true });
    expect(literal.message).toMatch(/^BLOCKED_ADDRESS/);
    const port = (server.address() as AddressInfo).port;
    const rebound = await failure(webhooks(false, async () => [{ address: '127.0.0.1', family: 4 }]).call(call, step({ url: `http://hooks.example.com:${port}/hook`, method: 'POST' }), contact));
    expect(rebound).toMatchObject({ permanent: true });
    expect(rebound.message).toMatch(/^BLOCKED_ADDRESS/);
    expect(seen).toHaveLength(0);
  });

  it('refuses names served by DNS that resolve to loopback or metadata, IPv6-mapped loopback, and redirects to them', async () => {
    const dns = await startFakeDnsServer({ 'hooks.example.com': { A: ['127.0.0.1'] }, 'meta.example.com': { A: ['169.254.169.254'] } });
    try {
      const port = (server.address() as AddressInfo).port;
      const lookup = fakeDnsLookup(dns);
      for (const target of [`http://hooks.example.com:${port}/hook`, `http://[::ffff:127.0.0.1]:${port}/hook`]) {
        const err = await failure(webhooks(false, lookup).call(call, step({ url: target, method: 'POST' }), contact));
        expect(err).toMatchObject({ permanent: true, output: { error: 'BLOCKED_ADDRESS' } });
      }
      expect(seen).toHaveLength(0);
      expect(dns.queries.map((q) => q.name)).toContain('hooks.example.com');
      // The first hop is allowed (loopback under WORKFLOW_WEBHOOK_ALLOW_PRIVATE); the redirect names metadata, which no setting allows.
      for (const to of ['http://meta.example.com/latest/meta-data/', 'http://169.254.169.254/latest/meta-data/']) {
        const err = await failure(webhooks(true, lookup).call(call, step({ url: `${url}/r?to=${encodeURIComponent(to)}`, method: 'GET' }), contact));
        expect(err).toMatchObject({ permanent: true, output: { error: 'BLOCKED_ADDRESS' } });
      }
      expect(seen).toHaveLength(2);
      expect(dns.queries.map((q) => q.name)).toContain('meta.example.com');
    } finally {
      await dns.close();
    }
  });

  it('signs `<timestamp>.<body>`, sends the default payload and the delivery id, keeps 4 KiB of the answer', async () => {
    const result = await webhooks(true).call(call, step({ url: `${url}/in`, method: 'POST', headers: { 'X-Plan': '{{data.plan}}' } }), contact);
    expect(result).toMatchObject({ status: 200, truncated: true });
    expect(result.body).toHaveLength(4096);
    const [req] = seen;
    expect(req.headers).toMatchObject({ 'x-webhook-id': 'e1:2', 'idempotency-key': 'e1:2', 'x-plan': 'pro', 'content-type': 'application/json' });
    expect(verifyHmacSignature(`${req.headers['x-webhook-timestamp']}.${req.body}`, call.signingKey, String(req.headers['x-webhook-signature']))).toBe(true);
    expect(JSON.parse(req.body)).toEqual({ workflowId: 'w1', executionId: 'e1', stepId: 's1', contact: { id: 'cnt_1', email: 'ada@example.com', subscribed: true, data: { plan: 'pro' } }, event: call.trigger, context: {} });
  });

  it('renders a JSON body; GET carries none; a non-2xx answer is a failure to retry, with the answer kept', async () => {
    await webhooks(true).call(call, step({ url, method: 'PATCH', body: { who: '{{email}}', amount: '{{event.amount}}', n: 3 } }), contact);
    expect(JSON.parse(seen[0].body)).toEqual({ who: 'ada@example.com', amount: '5', n: 3 });
    await webhooks(true).call(call, step({ url, method: 'GET' }), contact);
    expect(seen[1]).toMatchObject({ method: 'GET', body: '' });
    status = 502;
    const err = await failure(webhooks(true).call(call, step({ url, method: 'POST', body: 'plain {{email}}' }), contact));
    expect(err).toMatchObject({ permanent: false, message: 'the receiver answered 502', output: { status: 502 } });
    expect(seen[2].body).toBe('plain ada@example.com');
  });
});
