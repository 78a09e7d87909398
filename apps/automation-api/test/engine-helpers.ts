import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeGraphComment } from '@platform/testing';
import type { AutomationTestContext } from './automation-app';

export function signBody(raw: string, secret = 'app-secret'): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

/** POSTs a platform webhook to the receiver with a correct signature (or the one given). */
export function deliver(ctx: AutomationTestContext, payload: unknown, signature?: string) {
  const raw = JSON.stringify(payload);
  return ctx.t.http
    .post('/webhooks/instagram')
    .set('content-type', 'application/json')
    .set('x-hub-signature-256', signature ?? signBody(raw))
    .send(raw);
}

export function commentWebhook(entryId: string, c: FakeGraphComment) {
  return {
    object: 'instagram',
    entry: [
      {
        id: entryId,
        time: Math.floor(Date.now() / 1000),
        changes: [{ field: 'comments', value: { id: c.id, from: c.from, text: c.text, media: { id: c.media_id, media_product_type: 'FEED' }, ...(c.parent_id ? { parent_id: c.parent_id } : {}) } }],
      },
    ],
  };
}

export function messageWebhook(entryId: string, senderId: string, mid: string, text: string, opts: { story?: string; echo?: boolean } = {}) {
  return {
    object: 'instagram',
    entry: [
      {
        id: entryId,
        time: Date.now(),
        messaging: [
          {
            sender: { id: opts.echo ? entryId : senderId },
            recipient: { id: opts.echo ? senderId : entryId },
            timestamp: Date.now(),
            message: { mid, text, ...(opts.echo ? { is_echo: true } : {}), ...(opts.story ? { reply_to: { story: { id: opts.story, url: 'https://cdn.example.com/s.mp4' } } } : {}) },
          },
        ],
      },
    ],
  };
}

export function postbackWebhook(entryId: string, senderId: string, mid: string, payload: string) {
  return {
    object: 'instagram',
    entry: [{ id: entryId, time: Date.now(), messaging: [{ sender: { id: senderId }, recipient: { id: entryId }, timestamp: Date.now(), postback: { mid, title: 'Send link', payload } }] }],
  };
}

/** `messaging_seen`: the person read the conversation up to `watermark` (ms). */
export function seenWebhook(entryId: string, readerId: string, watermark: number) {
  return {
    object: 'instagram',
    entry: [{ id: entryId, time: Date.now(), messaging: [{ sender: { id: readerId }, recipient: { id: entryId }, timestamp: watermark, read: { watermark } }] }],
  };
}

/** Waits until the work queue has nothing due and the outbox is published (polling the database). */
export async function settle(ctx: AutomationTestContext, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await ctx.ds.query(
      `SELECT (SELECT count(*) FROM ${ctx.schema}.inbound_events WHERE processed_at IS NULL AND next_attempt_at <= now() + interval '1 second')::int
            + (SELECT count(*) FROM ${ctx.schema}.clicks WHERE counted_at IS NULL)::int
            + (SELECT count(*) FROM ${ctx.schema}.outbox WHERE sent_at IS NULL)::int AS n`,
    );
    if (row.n === 0) return;
    if (Date.now() > deadline) throw new Error(`work queue not drained within ${timeoutMs} ms (${row.n} pending)`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface HookSink {
  url: string;
  received: Array<{ headers: IncomingMessage['headers']; body: string }>;
  /** Status answered to the next requests (default 200). */
  statuses: number[];
  close(): Promise<void>;
}

/** A local HTTP server standing in for a customer's webhook endpoint. */
export async function startHookSink(): Promise<HookSink> {
  const sink: HookSink = { url: '', received: [], statuses: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      sink.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(sink.statuses.shift() ?? 200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  sink.close = () => new Promise((r) => server.close(() => r()));
  return sink;
}
