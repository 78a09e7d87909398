/**
 * conversation-api benchmark for `npm run bench` (tools/bench.ts): inbound WhatsApp webhook messages
 * per second with five published recipes evaluated on each, next to the same app without recipes.
 * Each message is a signed delivery of one text from one of 200 senders, stored in one transaction
 * with its conversation events (outbox); the recipes consumer takes every event through the inbox,
 * loads the account's recipes on its trigger, evaluates their conditions (text contains, a regular
 * expression, business hours in Europe/Berlin, a contact attribute, a channel) and runs the actions
 * of those that hold (a label on every tenth message, a priority on another tenth, a label on each
 * new conversation), logging each run. A figure counts from the first request to the last event
 * consumed, so the recipe work is inside it; each run is checked (every message stored once, every
 * event consumed once, the expected runs logged), or the benchmark throws.
 *
 * Uses DATABASE_URL when set (throwaway schemas, dropped afterwards), else the embedded PGlite, and
 * REDIS_URL for the rate-limit counters when set.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { conversationApiService } from '../src/service';
import { inParallel, sendRequest, startBenchService, type BenchMeasurement } from '@platform/bench';

export interface RecipesBenchOptions {
  /** Messages delivered per figure (default 1000). */
  messages?: number;
  /** Concurrent requests (default 16). */
  concurrency?: number;
  /** Distinct senders (default 200). */
  senders?: number;
  databaseUrl?: string;
}

const PHONE_NUMBER_ID = '106540352242922';
const APP_SECRET = 'bench-app-secret';
const CONSUMER = 'conversation-api.recipes';
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function text(i: number): string {
  if (i % 10 === 0) return `I want a refund for message ${i}`;
  if (i % 10 === 5) return `order #${i} has not arrived`;
  return `message ${i}: hello, a question about my account`;
}

function delivery(i: number, senders: number, tag: string): { body: string; signature: string } {
  const from = String(4917100000000 + (i % senders));
  const body = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001111', phone_number_id: PHONE_NUMBER_ID }, contacts: [{ profile: { name: `Sender ${i % senders}` }, wa_id: from }], messages: [{ from, id: `wamid.recipes-${tag}-${i}`, timestamp: '1700000000', type: 'text', text: { body: text(i) } }] } }] }],
  });
  return { body, signature: `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}` };
}

/** Messages per second from the first request until the recipes consumer took the last event; with or without five recipes. */
async function figure(withRecipes: boolean, n: number, concurrency: number, senders: number, databaseUrl?: string): Promise<{ rate: number; answered: number }> {
  const tag = randomUUID().slice(0, 8);
  const payloads = Array.from({ length: n }, (_v, i) => delivery(i, senders, tag));
  const bench = await startBenchService(
    conversationApiService,
    {
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      REDIS_KEY_PREFIX: `conversation-recipes-bench-${tag}:`,
      CONVERSATION_JWT_SECRET: randomBytes(32).toString('hex'),
      CONVERSATION_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      CONVERSATION_ADMIN_EMAIL: 'bench@conversation.test',
      CONVERSATION_ADMIN_PASSWORD: 'bench-password-1',
      CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE: '10000000',
      CONVERSATION_RATE_LIMIT_PER_MINUTE: '10000000',
      EVENTS_OUTBOX_POLL_MS: '50',
      WHATSAPP_API_URL: 'http://127.0.0.1:9/v21.0',
    },
    databaseUrl,
  );
  const { service, schema } = bench;
  const json = (r: { status: number; body: string }, expected: number) => {
    if (r.status !== expected) throw new Error(`expected ${expected}, got ${r.status}: ${r.body}`);
    return JSON.parse(r.body) as { data: Record<string, unknown> };
  };
  try {
    const login = json(await sendRequest(`${service.url}/api/v1/auth/login`, 'POST', JSON.stringify({ email: 'bench@conversation.test', password: 'bench-password-1' })), 200);
    const auth = { authorization: `Bearer ${login.data.access_token as string}` };
    const roles = JSON.parse((await sendRequest(`${service.url}/api/v1/roles`, 'GET', undefined, auth)).body).data as Array<{ id: string; name: string }>;
    const members: string[] = [];
    for (const who of ['one', 'two']) {
      const user = json(await sendRequest(`${service.url}/api/v1/users`, 'POST', JSON.stringify({ email: `agent-${who}@conversation.test`, name: who, password: 'agent-password-1', role_id: roles.find((r) => r.name === 'agent')!.id }), auth), 201);
      members.push(user.data.id as string);
    }
    const channel = json(
      await sendRequest(
        `${service.url}/api/v1/channels/whatsapp`,
        'POST',
        JSON.stringify({ name: 'Bench', phone_number_id: PHONE_NUMBER_ID, access_token: 'bench-access-token', app_secret: APP_SECRET, verify_token: 'bench-verify-token', auto_assignment: true, member_ids: members }),
        auth,
      ),
      201,
    );
    const channelId = channel.data.id as string;
    const ids: string[] = [];
    if (withRecipes) {
      json(await sendRequest(`${service.url}/api/v1/account`, 'PATCH', JSON.stringify({ time_zone: 'Europe/Berlin', business_hours: { monday: { open: '09:00', close: '17:00' }, tuesday: { open: '09:00', close: '17:00' } } }), auth), 200);
      for (const name of ['billing', 'new', 'after-hours']) json(await sendRequest(`${service.url}/api/v1/labels`, 'POST', JSON.stringify({ name }), auth), 201);
      const recipes = [
        { trigger: 'message_created', conditions: [{ type: 'message_type', message_types: ['incoming'] }, { type: 'text_contains', value: 'refund' }], actions: [{ type: 'add_label', label: 'billing' }] },
        { trigger: 'message_created', conditions: [{ type: 'text_matches', pattern: '^order #\\d+' }], actions: [{ type: 'set_priority', priority: 'high' }] },
        { trigger: 'message_created', conditions: [{ type: 'business_hours', within: false }, { type: 'text_contains', value: 'after hours' }], actions: [{ type: 'add_label', label: 'after-hours' }] },
        { trigger: 'message_created', conditions: [{ type: 'contact_attribute', key: 'plan', operator: 'equals', value: 'enterprise' }], actions: [{ type: 'set_priority', priority: 'urgent' }] },
        { trigger: 'conversation_created', conditions: [{ type: 'channel', channel_ids: [channelId] }], actions: [{ type: 'add_label', label: 'new' }] },
      ];
      for (const [i, definition] of recipes.entries()) {
        const recipe = json(await sendRequest(`${service.url}/api/v1/recipes`, 'POST', JSON.stringify({ name: `Recipe ${i + 1}` }), auth), 201);
        const id = recipe.data.id as string;
        const saved = await sendRequest(`${service.url}/api/v1/recipes/${id}/draft`, 'PUT', JSON.stringify(definition), { ...auth, 'if-match': `"${id}.1"` });
        json(saved, 200);
        json(await sendRequest(`${service.url}/api/v1/recipes/${id}/publish`, 'POST', undefined, { ...auth, 'if-match': `"${id}.2"` }), 201);
        ids.push(id);
      }
    }

    const ds = service.app.get(DataSource);
    const consumed = async () => ((await ds.query(`SELECT count(*)::int AS n FROM ${schema}.processed_events WHERE consumer = $1`, [CONSUMER])) as Array<{ n: number }>)[0].n;
    const before = await consumed();
    const conversations = Math.min(n, senders);
    const expectedEvents = n + conversations; // message_created for each, conversation_created for each new conversation
    const hook = `${service.url}/api/v1/webhooks/whatsapp/${channelId}`;
    const started = process.hrtime.bigint();
    await inParallel(n, concurrency, async (i) => {
      const r = await sendRequest(hook, 'POST', payloads[i].body, { 'x-hub-signature-256': payloads[i].signature });
      if (r.status !== 200 || !r.body.includes('"received":1')) throw new Error(`webhook answered ${r.status}: ${r.body}`);
    });
    const answered = Number(process.hrtime.bigint() - started) / 1e9;
    const deadline = Date.now() + 300_000;
    let seen = 0;
    while ((seen = (await consumed()) - before) < expectedEvents) {
      if (Date.now() > deadline) throw new Error(`the recipes consumer took ${seen} of ${expectedEvents} events in 5 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;

    const [stored] = (await ds.query(`SELECT count(*)::int AS n FROM ${schema}.messages WHERE message_type = 'incoming'`)) as Array<{ n: number }>;
    if (stored.n !== n || seen !== expectedEvents) throw new Error(`stored ${stored.n} messages and consumed ${seen} events, expected ${n} and ${expectedEvents}`);
    if (withRecipes) {
      const runs = (await ds.query(`SELECT recipe_id, count(*)::int AS n FROM ${schema}.recipe_runs WHERE outcome = 'succeeded' GROUP BY recipe_id`)) as Array<{ recipe_id: string; n: number }>;
      const count = (id: string) => runs.find((r) => r.recipe_id === id)?.n ?? 0;
      const expected = [Math.ceil(n / 10), Math.floor((n + 4) / 10), 0, 0, conversations];
      const got = ids.map(count);
      if (got.join() !== expected.join()) throw new Error(`recipe runs ${got.join(', ')}, expected ${expected.join(', ')}`);
    }
    return { rate: n / seconds, answered: n / answered };
  } finally {
    await bench.close();
  }
}

/** Inbound messages per second through webhook, outbox and the recipes consumer, with five published recipes vs none. */
export async function benchRecipes(opts: RecipesBenchOptions = {}): Promise<BenchMeasurement> {
  const n = opts.messages ?? 1000;
  const concurrency = opts.concurrency ?? 16;
  const senders = opts.senders ?? 200;
  const without = await figure(false, n, concurrency, senders, opts.databaseUrl);
  const withRecipes = await figure(true, n, concurrency, senders, opts.databaseUrl);
  return {
    name: 'conversation-api: inbound webhook messages/s with five recipes',
    value: round(withRecipes.rate),
    unit: 'messages/s',
    baseline: round(without.rate),
    ratio: round(withRecipes.rate / without.rate, 3),
    detail: `${n} signed WhatsApp text deliveries from ${senders} senders, ${concurrency} concurrent, counted until the recipes consumer took every event (outbox → inbox); five published recipes evaluated on each (${Math.ceil(n / 10)} + ${Math.floor((n + 4) / 10)} + ${Math.min(n, senders)} runs with actions) vs the same app without recipes (goal ≥ 0.8); webhook answers alone: ${round(withRecipes.answered)} vs ${round(without.answered)} messages/s`,
  };
}
