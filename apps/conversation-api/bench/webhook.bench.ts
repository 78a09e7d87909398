/**
 * conversation-api benchmark for `npm run bench` (tools/bench.ts): inbound WhatsApp webhook messages
 * processed per second. Each request is a signed delivery of one text message with a new provider id:
 * signature check over the raw body, the per-tenant rate limit, then in one transaction the contact
 * (created on a sender's first message), its conversation (created, with round-robin assignment among
 * two agents), the message and the waiting time — answered 200 once stored. Each run has 200 senders
 * of its own (so a tenth of a 2000-message run opens conversations). Baseline: a bare Node HTTP server
 * that reads the body and answers 200. Both are loaded by the same generator in a process of its own
 * (LoadProcess of @platform/bench), warmed up alike, then in rounds alternating the bare server and the service (a
 * burst of other work on the machine weighs on both sides alike).
 * Every message must be stored exactly once, or the benchmark throws.
 *
 * Uses DATABASE_URL when set (a throwaway schema, dropped afterwards), else the embedded PGlite, and
 * REDIS_URL for the rate-limit counters when set.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { DataSource } from 'typeorm';
import { conversationApiService } from '../src/service';
import { listenOnLoopback, LoadProcess, perSecond, sendRequest, startBenchService, type BenchMeasurement, type LoadRequest, type LoadResult } from '@platform/bench';

export interface ConversationBenchOptions {
  /** Messages per measured round and side (default 2000). */
  messages?: number;
  /** Measured rounds per side (default 3). */
  rounds?: number;
  /** Concurrent client connections (default 16). */
  concurrency?: number;
  /** Distinct senders per round (default 200). */
  senders?: number;
  databaseUrl?: string;
}

const PHONE_NUMBER_ID = '106540352242922';
const APP_SECRET = 'bench-app-secret';
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const send = sendRequest;

/** Message `i` of run `run` (-1: the warm-up), from one of that run's `senders` senders. */
function delivery(path: string, run: number, i: number, senders: number, tag: string): LoadRequest {
  const sender = (run + 1) * senders + (i % senders);
  const from = String(4917000000000 + sender);
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001111', phone_number_id: PHONE_NUMBER_ID }, contacts: [{ profile: { name: `Sender ${sender}` }, wa_id: from }], messages: [{ from, id: `wamid.bench-${tag}-${run}-${i}`, timestamp: '1700000000', type: 'text', text: { body: `message ${i}` } }] } }] }],
  });
  return { method: 'POST', path, body, headers: { 'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}` } };
}


/** Inbound webhook messages stored per second, next to a bare Node server. */
export async function benchInboundWebhooks(opts: ConversationBenchOptions = {}): Promise<BenchMeasurement> {
  const n = opts.messages ?? 2000;
  const rounds = opts.rounds ?? 3;
  const concurrency = opts.concurrency ?? 16;
  const senders = opts.senders ?? 200;
  const warmUp = Math.ceil(n / 4);
  const tag = randomUUID().slice(0, 8);

  const baseline = await listenOnLoopback(
    createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}'));
    }),
  );
  const loader = await LoadProcess.start();
  const bench = await startBenchService(
    conversationApiService,
    {
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      REDIS_KEY_PREFIX: `conversation-bench-${tag}:`,
      CONVERSATION_JWT_SECRET: randomBytes(32).toString('hex'),
      CONVERSATION_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      CONVERSATION_ADMIN_EMAIL: 'bench@conversation.test',
      CONVERSATION_ADMIN_PASSWORD: 'bench-password-1',
      CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE: '10000000',
      // Nothing answers here: inbound text needs no provider call.
      WHATSAPP_API_URL: 'http://127.0.0.1:9/v21.0',
    },
    opts.databaseUrl,
  );
  const { service, schema } = bench;
  try {
    const json = (r: { status: number; body: string }, expected: number) => {
      if (r.status !== expected) throw new Error(`expected ${expected}, got ${r.status}: ${r.body}`);
      return JSON.parse(r.body) as { data: Record<string, unknown> };
    };
    const login = json(await send(`${service.url}/api/v1/auth/login`, 'POST', JSON.stringify({ email: 'bench@conversation.test', password: 'bench-password-1' })), 200);
    const auth = { authorization: `Bearer ${login.data.access_token as string}` };
    const roles = (await send(`${service.url}/api/v1/roles`, 'GET', undefined, auth)).body;
    const agentRole = (JSON.parse(roles).data as Array<{ id: string; name: string }>).find((r) => r.name === 'agent')!.id;
    const members: string[] = [];
    for (const who of ['one', 'two']) {
      const user = json(await send(`${service.url}/api/v1/users`, 'POST', JSON.stringify({ email: `agent-${who}@conversation.test`, name: who, password: 'agent-password-1', role_id: agentRole }), auth), 201);
      members.push(user.data.id as string);
    }
    const channel = json(
      await send(
        `${service.url}/api/v1/channels/whatsapp`,
        'POST',
        JSON.stringify({ name: 'Bench', phone_number_id: PHONE_NUMBER_ID, access_token: 'bench-access-token', app_secret: APP_SECRET, verify_token: 'bench-verify-token', auto_assignment: true, member_ids: members }),
        auth,
      ),
      201,
    );
    const path = `/api/v1/webhooks/whatsapp/${channel.data.id as string}`;
    const requests = (run: number) => Array.from({ length: run < 0 ? warmUp : n }, (_v, i) => delivery(path, run, i, senders, tag));
    const check = (r: LoadResult, expected: number) => {
      if (r.statuses['200'] !== expected) throw new Error(`webhook answers ${JSON.stringify(r.statuses)}, expected ${expected} × 200`);
    };

    // Warm-up of both sides (not counted), then rounds alternating the bare server and the service.
    await loader.run(baseline.url, requests(-1), concurrency);
    check(await loader.run(service.url, requests(-1), concurrency), warmUp);
    const bare: LoadResult[] = [];
    const served: LoadResult[] = [];
    for (let r = 0; r < rounds; r++) {
      bare.push(await loader.run(baseline.url, requests(r), concurrency));
      const run = await loader.run(service.url, requests(r), concurrency);
      check(run, n);
      served.push(run);
    }

    const ds = service.app.get(DataSource);
    const [stored] = (await ds.query(`SELECT count(*)::int AS n FROM ${schema}.messages WHERE message_type = 'incoming'`)) as Array<{ n: number }>;
    const [conversations] = (await ds.query(`SELECT count(*)::int AS n FROM ${schema}.conversations`)) as Array<{ n: number }>;
    const expectedMessages = warmUp + rounds * n;
    const expectedConversations = Math.min(warmUp, senders) + rounds * Math.min(n, senders);
    if (stored.n !== expectedMessages || conversations.n !== expectedConversations) {
      throw new Error(`stored ${stored.n} messages in ${conversations.n} conversations, expected ${expectedMessages} in ${expectedConversations}`);
    }
    const value = perSecond(served, n);
    const base = perSecond(bare, n);
    return {
      name: 'conversation-api: inbound webhook messages/s',
      value: round(value),
      unit: 'messages/s',
      baseline: round(base),
      ratio: round(value / base, 3),
      detail: `${rounds} × ${n} signed WhatsApp text deliveries (${senders} new senders a round) alternating with the bare server, ${concurrency} connections from a load process of its own, each stored (contact, conversation with round-robin assignment, message) before 200, vs a bare Node server`,
    };
  } finally {
    await bench.close();
    await loader.close();
    await baseline.close();
  }
}
