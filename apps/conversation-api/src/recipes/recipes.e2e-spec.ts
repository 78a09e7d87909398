// Recipes and what they need: the ETag-guarded draft (428, 412, weak tags and `*` refused), 422 with
// the path of each bad node, publish, versions, rollback, disable and delete with their permissions;
// account settings, the labels catalogue and canned responses; recipes running on conversation
// events: round-robin assignment and a canned reply through the WhatsApp provider exactly once with two
// replicas, a webhook to a private address refused, loops stopped, business hours across a DST change.
// Two replicas on one database (and RabbitMQ's queues when available).
import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { Database } from '@platform/database';
import { isPublicAddress } from '@platform/http-safety';
import { EventBus } from '@platform/messaging';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { ConversationCreated, ConversationMessageCreated, type ConversationEventData } from '../conversations/conversation-events';
import { MessageDeliveryWorker } from '../conversations/message-delivery.worker';
import { startFakeWhatsApp, type FakeWhatsApp } from '../../test/fake-whatsapp';
import { startReplicas, type Replicas } from '../../test/replicas';
import { ADMIN_EMAIL, ADMIN_PASSWORD, sign, textDelivery, WA } from '../../test/helpers';

/** Polls `probe` until it returns a value other than undefined (at most `ms`). */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

type Http = Replicas['http'][number];
type Auth = { Authorization: string };

describe('conversation-api recipes', () => {
  let r: Replicas;
  let a: Http;
  let admin: Auth;
  let agent: Auth & { id: string };
  let provider: FakeWhatsApp;

  const loginAs = async (http: Http, email: string, password: string): Promise<Auth> => {
    const res = await http.post('/api/v1/auth/login').send({ email, password }).expect(200);
    return { Authorization: `Bearer ${res.body.data.access_token}` };
  };
  const expectError = (res: Response, status: number, code: string) => {
    expect({ status: res.status, success: res.body.success, code: res.body.error?.code, statusCode: res.body.error?.statusCode }).toEqual({ status, success: false, code, statusCode: status });
    expect(res.body.error.requestId).toEqual(expect.any(String));
  };

  beforeAll(async () => {
    provider = await startFakeWhatsApp({ accessToken: WA.accessToken });
    r = await startReplicas(2, { WHATSAPP_API_URL: provider.url, CONVERSATION_DELIVERY_RETRY_MS: '10' });
    a = r.http[0];
    admin = await loginAs(a, ADMIN_EMAIL, ADMIN_PASSWORD);
    const roles = (await a.get('/api/v1/roles').set(admin).expect(200)).body.data as Array<{ id: string; name: string }>;
    const created = await a
      .post('/api/v1/users')
      .set(admin)
      .send({ email: 'recipe-agent@conversation.test', name: 'Rita Agent', password: 'user-password-1', role_id: roles.find((x) => x.name === 'agent')!.id })
      .expect(201);
    agent = { ...(await loginAs(a, 'recipe-agent@conversation.test', 'user-password-1')), id: created.body.data.id };
  });

  afterAll(async () => {
    await r?.close();
    await provider?.close();
  });

  it('keeps account settings, labels and canned responses', async () => {
    const before = await a.get('/api/v1/account').set(agent).expect(200);
    expect(before.body.data).toMatchObject({ time_zone: 'UTC', business_hours: null, out_of_office: { enabled: false, message: null } });

    expectError(await a.patch('/api/v1/account').set(agent).send({ time_zone: 'Europe/Berlin' }), 403, 'FORBIDDEN');
    const bad = await a
      .patch('/api/v1/account')
      .set(admin)
      .send({ time_zone: 'Mars/Olympus', business_hours: { monday: { open: '10:00', close: '09:00' }, tuesday: { open: '9:00', close: '17:00' } }, out_of_office: { enabled: true } });
    expectError(bad, 422, 'VALIDATION_ERROR');
    expect(bad.body.error.errors.map((e: { field: string }) => e.field)).toEqual(['business_hours.tuesday.open']);
    const bad2 = await a.patch('/api/v1/account').set(admin).send({ time_zone: 'Mars/Olympus', business_hours: { monday: { open: '10:00', close: '09:00' } }, out_of_office: { enabled: true } });
    expect(bad2.body.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(['business_hours.monday.close', 'out_of_office.message', 'time_zone']);

    const hours = { monday: { open: '09:00', close: '17:00' }, friday: { open: '09:00', close: '24:00' }, sunday: null };
    const patched = await a
      .patch('/api/v1/account')
      .set(admin)
      .send({ time_zone: 'Europe/Berlin', business_hours: hours, out_of_office: { enabled: true, message: 'Hi {{contact.first_name}}, we are closed.' } })
      .expect(200);
    expect(patched.body.data).toMatchObject({ time_zone: 'Europe/Berlin', business_hours: hours, out_of_office: { enabled: true, message: 'Hi {{contact.first_name}}, we are closed.' } });
    expect((await a.patch('/api/v1/account').set(admin).send({ out_of_office: { enabled: false } }).expect(200)).body.data.out_of_office).toEqual({ enabled: false, message: 'Hi {{contact.first_name}}, we are closed.' });

    // Labels: unique without regard to case; agents read, recipe editors write.
    const billing = (await a.post('/api/v1/labels').set(admin).send({ name: 'billing', color: '#ff0000' }).expect(201)).body.data;
    expectError(await a.post('/api/v1/labels').set(admin).send({ name: 'Billing' }), 409, 'LABEL_NAME_TAKEN');
    expectError(await a.post('/api/v1/labels').set(agent).send({ name: 'x' }), 403, 'FORBIDDEN');
    expectError(await a.post('/api/v1/labels').set(admin).send({ name: '', color: 'red' }), 422, 'VALIDATION_ERROR');
    await a.post('/api/v1/labels').set(admin).send({ name: 'vip' }).expect(201);
    const temp = (await a.post('/api/v1/labels').set(admin).send({ name: 'temp' }).expect(201)).body.data;
    expect((await a.patch(`/api/v1/labels/${temp.id}`).set(admin).send({ name: 'temporary', description: 'to go' }).expect(200)).body.data).toMatchObject({ name: 'temporary', description: 'to go' });
    await a.delete(`/api/v1/labels/${temp.id}`).set(admin).expect(200);
    expectError(await a.get(`/api/v1/labels/${temp.id}`).set(agent), 404, 'LABEL_NOT_FOUND');
    expect((await a.get('/api/v1/labels').set(agent).expect(200)).body.data.map((l: { name: string }) => l.name)).toEqual(['billing', 'vip']);
    expect(billing.color).toBe('#ff0000');

    // Canned responses: short codes, known variables only.
    const unknown = await a.post('/api/v1/canned-responses').set(admin).send({ short_code: 'oops', content: 'Hi {{contact.password}}' });
    expectError(unknown, 422, 'VALIDATION_ERROR');
    expect(unknown.body.error.errors).toEqual([{ field: 'content', message: 'unknown variable {{contact.password}}', code: 'unknown_variable' }]);
    const greet = (await a.post('/api/v1/canned-responses').set(admin).send({ short_code: 'greet', content: 'Hi {{contact.first_name}}, {{agent.name}} here.' }).expect(201)).body.data;
    expectError(await a.post('/api/v1/canned-responses').set(admin).send({ short_code: 'GREET', content: 'x' }), 409, 'SHORT_CODE_TAKEN');
    expectError(await a.post('/api/v1/canned-responses').set(admin).send({ short_code: 'has space', content: 'x' }), 422, 'VALIDATION_ERROR');
    await a.post('/api/v1/canned-responses').set(admin).send({ short_code: 'bye', content: 'Goodbye!' }).expect(201);
    const found = await a.get('/api/v1/canned-responses').query({ q: 'gr' }).set(agent).expect(200);
    expect(found.body.data.map((c: { short_code: string }) => c.short_code)).toEqual(['greet']);
    expect(found.body.meta).toEqual({ total: 1, page: 1, limit: 25 });
    expect((await a.patch(`/api/v1/canned-responses/${greet.id}`).set(admin).send({ content: 'Hello {{contact.name}}!' }).expect(200)).body.data.content).toBe('Hello {{contact.name}}!');
    expectError(await a.patch(`/api/v1/canned-responses/${greet.id}`).set(agent).send({ content: 'x' }), 403, 'FORBIDDEN');
  });

  it('guards the draft with ETags: 428 without If-Match or with *, 412 when weak or stale', async () => {
    const recipe = (await a.post('/api/v1/recipes').set(admin).send({ name: 'Triage' }).expect(201)).body.data;
    expect(recipe).toMatchObject({ name: 'Triage', enabled: true, published_version: null, trigger: null, draft_revision: 1, webhook_secret: expect.stringMatching(/^whsec_/) });

    const draft = await a.get(`/api/v1/recipes/${recipe.id}/draft`).set(agent).expect(200);
    expect(draft.body.data).toEqual({ trigger: null, match: 'all', conditions: [], actions: [] });
    const etag = draft.headers.etag;
    expect(etag).toBe(`"${recipe.id}.1"`);

    const body = { trigger: 'message_created', conditions: [{ type: 'text_contains', value: 'invoice' }], actions: [{ type: 'add_label', label: 'billing' }] };
    const put = (headers: Record<string, string>) => a.put(`/api/v1/recipes/${recipe.id}/draft`).set(admin).set(headers).send(body);
    expectError(await put({}), 428, 'PRECONDITION_REQUIRED');
    expectError(await put({ 'If-Match': '*' }), 428, 'IF_MATCH_WILDCARD_REFUSED');
    expectError(await put({ 'If-Match': `W/${etag}` }), 412, 'WEAK_ETAG_REFUSED');
    const stale = await put({ 'If-Match': `"${recipe.id}.0"` });
    expectError(stale, 412, 'PRECONDITION_FAILED');
    expect(stale.headers.etag).toBe(etag);
    expectError(await a.put(`/api/v1/recipes/${recipe.id}/draft`).set(agent).set('If-Match', etag).send(body), 403, 'FORBIDDEN');

    const saved = await put({ 'If-Match': etag }).expect(200);
    expect(saved.headers.etag).toBe(`"${recipe.id}.2"`);
    expect(saved.body.data).toEqual({ ...body, match: 'all' });
    // The other replica sees the same draft under the same tag; the old tag is stale now, on either.
    expect((await r.http[1].get(`/api/v1/recipes/${recipe.id}/draft`).set(admin).expect(200)).headers.etag).toBe(saved.headers.etag);
    expectError(await r.http[1].put(`/api/v1/recipes/${recipe.id}/draft`).set(admin).set('If-Match', etag).send(body), 412, 'PRECONDITION_FAILED');
    expectError(await put({ 'If-Match': `"other", ${etag}` }), 412, 'PRECONDITION_FAILED');
    expect((await put({ 'If-Match': `"other", ${saved.headers.etag}` }).expect(200)).headers.etag).toBe(`"${recipe.id}.3"`);
  });

  it('answers 422 naming the path of each bad node', async () => {
    const recipe = (await a.post('/api/v1/recipes').set(admin).send({ name: 'Broken' }).expect(201)).body.data;
    const etag = `"${recipe.id}.1"`;
    const res = await a
      .put(`/api/v1/recipes/${recipe.id}/draft`)
      .set(admin)
      .set('If-Match', etag)
      .send({
        trigger: 'message_sent',
        extra: 1,
        conditions: [{ type: 'text_matches', pattern: '(a+)+$' }, { type: 'priority', priorities: ['high', 'urgentest'] }, { type: 'business_hours', within: true }, 'nope'],
        actions: [{ type: 'launch_rocket' }, { type: 'webhook', url: 'http://127.0.0.1:9/hook' }, { type: 'snooze', minutes: 0 }, { type: 'assign_team', team_id: 'x', colour: 'red' }],
      });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(res.body.error.errors.map((e: { field: string }) => e.field)).toEqual([
      'extra',
      'trigger',
      'conditions[0].pattern',
      'conditions[1].priorities[1]',
      'conditions[3]',
      'actions[0].type',
      'actions[1].url',
      'actions[2].minutes',
      'actions[3].colour',
      'actions[3].team_id',
    ]);
    expect(res.body.error.errors.find((e: { field: string }) => e.field === 'actions[1].url').message).toMatch(/loopback|private|public/);
    // Nothing was saved.
    expect((await a.get(`/api/v1/recipes/${recipe.id}/draft`).set(admin).expect(200)).headers.etag).toBe(etag);
  });

  it('publishes immutable numbered versions, rolls back, disables and deletes, each with its permission', async () => {
    const recipe = (await a.post('/api/v1/recipes').set(admin).send({ name: 'Label invoices' }).expect(201)).body.data;
    let etag = `"${recipe.id}.1"`;
    const save = async (definition: object) => {
      const res = await a.put(`/api/v1/recipes/${recipe.id}/draft`).set(admin).set('If-Match', etag).send(definition).expect(200);
      etag = res.headers.etag;
    };
    const publish = (tag?: string, auth: Auth = admin) => {
      const req = a.post(`/api/v1/recipes/${recipe.id}/publish`).set(auth);
      return tag ? req.set('If-Match', tag) : req;
    };

    // An empty draft is not publishable; nor one naming a label outside the catalogue.
    const empty = await publish(etag);
    expectError(empty, 422, 'VALIDATION_ERROR');
    expect(empty.body.error.errors.map((e: { field: string }) => e.field)).toEqual(['trigger', 'actions']);
    await save({ trigger: 'message_created', conditions: [{ type: 'label', operator: 'lacks', label: 'no-such-label' }], actions: [{ type: 'add_label', label: 'billing' }, { type: 'reply', canned_response_id: '00000000-0000-4000-8000-000000000000' }] });
    const dangling = await publish(etag);
    expectError(dangling, 422, 'VALIDATION_ERROR');
    expect(dangling.body.error.errors.map((e: { field: string }) => e.field)).toEqual(['conditions[0].label', 'actions[1].canned_response_id']);

    const v1 = { trigger: 'message_created', match: 'all', conditions: [{ type: 'text_contains', value: 'invoice' }], actions: [{ type: 'add_label', label: 'billing' }] };
    await save(v1);
    expectError(await publish(), 428, 'PRECONDITION_REQUIRED');
    expectError(await publish(`"${recipe.id}.1"`), 412, 'PRECONDITION_FAILED');
    expectError(await publish(etag, agent), 403, 'FORBIDDEN');
    const first = await publish(etag).expect(201);
    expect(first.body.data).toMatchObject({ recipe_id: recipe.id, version: 1, definition: v1, rolled_back_from: null });
    expect(first.headers.etag).toBe(etag);

    const v2 = { ...v1, conditions: [{ type: 'text_contains', value: 'refund' }], actions: [{ type: 'add_label', label: 'vip' }, { type: 'set_priority', priority: 'high' }] };
    await save(v2);
    // Saving a draft leaves the published version as it was.
    expect((await a.get(`/api/v1/recipes/${recipe.id}/versions/1`).set(agent).expect(200)).body.data.definition).toEqual(v1);
    expect((await publish(etag).expect(201)).body.data.version).toBe(2);
    expect((await a.get(`/api/v1/recipes/${recipe.id}`).set(agent).expect(200)).body.data).toMatchObject({ published_version: 2, trigger: 'message_created' });
    expect((await a.get(`/api/v1/recipes/${recipe.id}`).set(agent).expect(200)).body.data.webhook_secret).toBeUndefined();

    const versions = await a.get(`/api/v1/recipes/${recipe.id}/versions`).set(agent).expect(200);
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expectError(await a.get(`/api/v1/recipes/${recipe.id}/versions/9`).set(agent), 404, 'VERSION_NOT_FOUND');

    // Rollback: version 1 becomes the draft and is published as version 3.
    expectError(await a.post(`/api/v1/recipes/${recipe.id}/rollback`).set(agent).send({ version: 1 }), 403, 'FORBIDDEN');
    expectError(await a.post(`/api/v1/recipes/${recipe.id}/rollback`).set(admin).send({ version: 7 }), 404, 'VERSION_NOT_FOUND');
    expectError(await a.post(`/api/v1/recipes/${recipe.id}/rollback`).set(admin).set('If-Match', `"${recipe.id}.1"`).send({ version: 1 }), 412, 'PRECONDITION_FAILED');
    const rolled = await a.post(`/api/v1/recipes/${recipe.id}/rollback`).set(admin).send({ version: 1 }).expect(201);
    expect(rolled.body.data).toMatchObject({ version: 3, definition: v1, rolled_back_from: 1 });
    const draft = await a.get(`/api/v1/recipes/${recipe.id}/draft`).set(admin).expect(200);
    expect(draft.body.data).toEqual(v1);
    expect(draft.headers.etag).toBe(rolled.headers.etag);
    expect(draft.headers.etag).not.toBe(etag);
    expect((await a.get(`/api/v1/recipes/${recipe.id}/versions/2`).set(agent).expect(200)).body.data.definition).toEqual(v2);

    // Disable, enable, delete.
    expectError(await a.post(`/api/v1/recipes/${recipe.id}/disable`).set(agent), 403, 'FORBIDDEN');
    expect((await a.post(`/api/v1/recipes/${recipe.id}/disable`).set(admin).expect(200)).body.data.enabled).toBe(false);
    expect((await a.post(`/api/v1/recipes/${recipe.id}/enable`).set(admin).expect(200)).body.data.enabled).toBe(true);
    const list = await a.get('/api/v1/recipes').query({ limit: 2 }).set(agent).expect(200);
    expect(list.body.meta).toEqual({ total: 3, page: 1, limit: 2 });
    expect(list.body.data[0]).toMatchObject({ id: recipe.id, published_version: 3 });
    // An empty first page is its own answer, with no count apart (which could see a run stored in between: a total beside no data).
    const statements = jest.spyOn(r.apps[0].app.get(Database), 'one');
    expect((await a.get(`/api/v1/recipes/${recipe.id}/runs`).set(agent).expect(200)).body).toMatchObject({ data: [], meta: { total: 0 } });
    expect(statements.mock.calls.filter(([sql]) => /SELECT count\(\*\) AS n/.test(sql))).toEqual([]);
    statements.mockRestore();
    expectError(await a.delete(`/api/v1/recipes/${recipe.id}`).set(agent), 403, 'FORBIDDEN');
    await a.delete(`/api/v1/recipes/${recipe.id}`).set(admin).expect(200);
    expectError(await a.get(`/api/v1/recipes/${recipe.id}`).set(admin), 404, 'RECIPE_NOT_FOUND');
    expectError(await a.get(`/api/v1/recipes/${recipe.id}/versions`).set(admin), 404, 'RECIPE_NOT_FOUND');
  });

  describe('running on conversation events', () => {
    let alice: Auth & { id: string };
    let bob: Auth & { id: string };
    let teamId: string;
    let channelId: string;
    let accountId: string;
    let n = 0;

    const user = async (email: string, name: string) => {
      const roles = (await a.get('/api/v1/roles').set(admin).expect(200)).body.data as Array<{ id: string; name: string }>;
      const created = await a.post('/api/v1/users').set(admin).send({ email, name, password: 'user-password-1', role_id: roles.find((x) => x.name === 'agent')!.id }).expect(201);
      return { ...(await loginAs(a, email, 'user-password-1')), id: created.body.data.id as string };
    };
    const canned = async (short_code: string, content: string) => (await a.post('/api/v1/canned-responses').set(admin).send({ short_code, content }).expect(201)).body.data.id as string;
    const publish = async (name: string, definition: Record<string, unknown>) => {
      const recipe = (await a.post('/api/v1/recipes').set(admin).send({ name }).expect(201)).body.data;
      const saved = await a.put(`/api/v1/recipes/${recipe.id}/draft`).set(admin).set('If-Match', `"${recipe.id}.1"`).send(definition).expect(200);
      await a.post(`/api/v1/recipes/${recipe.id}/publish`).set(admin).set('If-Match', saved.headers.etag).expect(201);
      return recipe.id as string;
    };
    /** A contact's message through the webhook of one replica. */
    const inbound = (replica: number, from: string, text: string, name: string, id = `wamid.R${++n}`) => {
      const body = textDelivery({ id, from, text, name });
      return r.http[replica].post(`/api/v1/webhooks/whatsapp/${channelId}`).set('content-type', 'application/json').set('x-hub-signature-256', sign(body)).send(body).expect(200);
    };
    const runs = async (recipeId: string) => (await a.get(`/api/v1/recipes/${recipeId}/runs`).query({ limit: 100 }).set(admin).expect(200)).body;
    const runsOnce = (recipeId: string, total: number) => waitFor(`${total} runs of ${recipeId}`, async () => ((await runs(recipeId)).meta.total >= total ? runs(recipeId) : undefined));
    const conversationOf = async (phone: string) => {
      const list = await a.get('/api/v1/conversations').query({ q: phone }).set(admin).expect(200);
      expect(list.body.data).toHaveLength(1);
      return (await a.get(`/api/v1/conversations/${list.body.data[0].id}`).set(admin).expect(200)).body.data;
    };
    const outgoing = (c: { messages: Array<{ message_type: string; private: boolean; content: string }> }) => c.messages.filter((m) => m.message_type === 'outgoing' && !m.private).map((m) => m.content);

    beforeAll(async () => {
      alice = await user('alice@recipes.test', 'Alice');
      bob = await user('bob@recipes.test', 'Bob');
      teamId = (await a.post('/api/v1/teams').set(admin).send({ name: 'Tier 1', member_ids: [alice.id, bob.id] }).expect(201)).body.data.id;
      channelId = (
        await a
          .post('/api/v1/channels/whatsapp')
          .set(admin)
          .send({ name: 'Support', phone_number: '+15550001111', phone_number_id: WA.phoneNumberId, access_token: WA.accessToken, app_secret: WA.appSecret, verify_token: WA.verifyToken, member_ids: [alice.id, bob.id] })
          .expect(201)
      ).body.data.id;
      accountId = (await a.get('/api/v1/account').set(admin).expect(200)).body.data.id;
    });

    it('assigns round robin within the cap and replies with a canned response through the provider, exactly once with two replicas', async () => {
      const welcome = await canned('welcome', 'Hi {{contact.first_name}}, {{agent.name}} will help you with #{{conversation.id}}.');
      const routing = await publish('Route new chats', {
        trigger: 'conversation_created',
        conditions: [{ type: 'channel', channel_ids: [channelId] }],
        actions: [{ type: 'assign_team', team_id: teamId, cap: 1 }, { type: 'reply', canned_response_id: welcome }],
      });
      // Three new contacts, through both replicas; the first delivery is redelivered to the other replica.
      const first = await inbound(0, '15550002001', 'hello?', 'Ann Lee', 'wamid.R-first');
      await inbound(1, '15550002001', 'hello?', 'Ann Lee', 'wamid.R-first');
      await inbound(1, '15550002002', 'anyone there?', 'Ben Ode');
      await inbound(0, '15550002003', 'hi', 'Cy Park');
      expect(first.body.data).toMatchObject({ received: 1 });

      const done = await runsOnce(routing, 3);
      expect(done.meta.total).toBe(3);
      expect(done.data.map((x: { outcome: string }) => x.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      expect(new Set(done.data.map((x: { event_id: string }) => x.event_id)).size).toBe(3);

      // The replies leave through the delivery workers of both replicas, each once.
      const senders = ['15550002001', '15550002002', '15550002003'];
      const sent = await waitFor('three replies sent', async () => {
        for (const app of r.apps) await app.app.get(MessageDeliveryWorker).drain();
        const out = provider.sent.filter((m) => senders.includes(m.to));
        return out.length >= 3 ? out : undefined;
      });
      for (const app of r.apps) await app.app.get(MessageDeliveryWorker).drain();
      expect(provider.sent.filter((m) => senders.includes(m.to))).toHaveLength(3);

      const conversations = await Promise.all(senders.map(conversationOf));
      const [ann] = conversations;
      // Cap 1 per agent: two conversations went to different agents, the third stays with the team
      // only. Which one is left depends on the order the replicas took the three events in.
      const assigned = conversations.filter((c) => c.assignee_id);
      expect(new Set(assigned.map((c) => c.assignee_id))).toEqual(new Set([alice.id, bob.id]));
      expect(assigned).toHaveLength(2);
      const left = conversations.filter((c) => !c.assignee_id);
      expect(left).toEqual([expect.objectContaining({ assignee_id: null, team_id: teamId })]);
      const name = (id: string | null) => (id === alice.id ? 'Alice' : id === bob.id ? 'Bob' : '');
      const firstNames = ['Ann', 'Ben', 'Cy'];
      conversations.forEach((c, i) => expect(outgoing(c)).toEqual([`Hi ${firstNames[i]}, ${name(c.assignee_id)} will help you with #${c.display_id}.`]));
      expect(sent.map((m) => m.text?.body).sort()).toEqual(conversations.flatMap(outgoing).sort());
      const reply = ann.messages.find((m: { message_type: string }) => m.message_type === 'outgoing');
      expect(reply).toMatchObject({ sender: null, status: 'sent' });
      const activity = (c: { messages: Array<{ message_type: string; content: string }> }) => c.messages.filter((m) => m.message_type === 'activity').map((m) => m.content).sort();
      expect(activity(left[0])).toEqual(['Team changed by Recipe "Route new chats"']);
      expect(activity(assigned[0])).toEqual([
        `Assigned to ${name(assigned[0].assignee_id)} by Recipe "Route new chats"`,
        'Team changed by Recipe "Route new chats"',
      ]);

      // An agent fills the same canned response in for a conversation of their inbox (as themselves); not for another inbox's.
      const rendered = await a.get(`/api/v1/canned-responses/${welcome}/render`).query({ conversation_id: ann.id }).set(alice).expect(200);
      expect(rendered.body.data).toEqual({ content: `Hi Ann, Alice will help you with #${ann.display_id}.` });
      expectError(await a.get(`/api/v1/canned-responses/${welcome}/render`).query({ conversation_id: ann.id }).set(agent), 404, 'CONVERSATION_NOT_FOUND');
      expectError(await a.get(`/api/v1/canned-responses/${welcome}/render`).query({ conversation_id: 'nope' }).set(alice), 422, 'VALIDATION_ERROR');

      // The event published again with its id, by both replicas, is taken once: no second run, no second reply.
      const again = done.data.find((x: { conversation_id: string }) => x.conversation_id === ann.id);
      const data: ConversationEventData = { accountId, conversationId: ann.id, channelId, origin: null };
      for (const app of r.apps) await app.app.get(EventBus).publish(ConversationCreated, data, { id: again.event_id });
      // A new conversation after the repeats: once its run is logged, the repeats before it were taken (and dropped).
      await inbound(0, '15550002008', 'hello', 'Gus');
      const after = await runsOnce(routing, 4);
      expect(after.data.filter((x: { conversation_id: string }) => x.conversation_id === ann.id)).toHaveLength(1);
      for (const app of r.apps) await app.app.get(MessageDeliveryWorker).drain();
      expect(outgoing(await conversationOf('15550002001'))).toHaveLength(1);
      expect(provider.sent.filter((m) => m.to === '15550002001')).toHaveLength(1);
      expect((await runs(routing)).meta.total).toBe(4);
      await a.post(`/api/v1/recipes/${routing}/disable`).set(admin).expect(200);
    });

    it('stops a recipe answering itself and a chain of recipes longer than the cap', async () => {
      await publish('Echo', { trigger: 'message_created', conditions: [{ type: 'text_contains', value: 'echo' }], actions: [{ type: 'reply', canned_response_id: await canned('echo', 'echo: got it') }] });
      const steps = ['go!', 'alpha!', 'beta!', 'gamma!', 'delta!'];
      const chain: string[] = [];
      for (let i = 0; i < 4; i++) {
        chain.push(await publish(`Step ${i}`, { trigger: 'message_created', conditions: [{ type: 'text_contains', value: steps[i] }], actions: [{ type: 'reply', canned_response_id: await canned(`step${i}`, steps[i + 1]) }] }));
      }
      const echo = (await a.get('/api/v1/recipes').query({ limit: 100 }).set(admin).expect(200)).body.data.find((x: { name: string }) => x.name === 'Echo').id;

      await inbound(0, '15550002004', 'echo please', 'Dee');
      await inbound(1, '15550002005', 'go!', 'Eve');
      const echoRuns = await runsOnce(echo, 2);
      expect(echoRuns.data.map((x: { outcome: string; depth: number; error: string | null }) => [x.outcome, x.depth, x.error]).sort()).toEqual([
        ['loop_stopped', 1, 'the event came from an action of this recipe'],
        ['succeeded', 0, null],
      ]);
      const last = await runsOnce(chain[3], 1);
      expect(last.data.map((x: { outcome: string; depth: number }) => [x.outcome, x.depth])).toEqual([['loop_stopped', 3]]);
      expect(last.data[0].error).toMatch(/chain of 3 recipe runs/);
      for (let i = 0; i < 3; i++) expect((await runs(chain[i])).data.map((x: { outcome: string; depth: number }) => [x.outcome, x.depth])).toEqual([['succeeded', i]]);
      expect(outgoing(await conversationOf('15550002004'))).toEqual(['echo: got it']);
      expect(outgoing(await conversationOf('15550002005'))).toEqual(['alpha!', 'beta!', 'gamma!']);
      // Nothing else comes: the first recipe's run on a redelivery is not repeated either.
      expect((await runs(echo)).meta.total).toBe(2);
    });

    it('refuses a recipe webhook to a private address, while the other actions run', async () => {
      const host = hostname();
      // The machine's own name resolves to a loopback or private address (what a rebinding name would do).
      const addresses = await lookup(host, { all: true });
      expect(addresses.length).toBeGreaterThan(0);
      expect(addresses.filter((x) => isPublicAddress(x.address))).toEqual([]);
      const hits: string[] = [];
      const receiver: Server = createServer((req, res) => {
        hits.push(req.url ?? '');
        res.writeHead(204).end();
      });
      await new Promise<void>((resolve) => receiver.listen(0, resolve));
      try {
        const url = `http://${host}:${(receiver.address() as AddressInfo).port}/hook`;
        const hook = await publish('Notify', { trigger: 'message_created', conditions: [{ type: 'text_contains', value: 'hook me' }], actions: [{ type: 'webhook', url }, { type: 'add_label', label: 'vip' }] });
        await inbound(0, '15550002006', 'please hook me', 'Fay');
        const [run] = (await runsOnce(hook, 1)).data;
        expect(run.outcome).toBe('failed');
        expect(run.actions[0]).toMatchObject({ type: 'webhook', outcome: 'failed' });
        expect(run.actions[0].detail).toMatch(/loopback|private/);
        expect(run.actions[1]).toEqual({ type: 'add_label', outcome: 'done' });
        expect((await conversationOf('15550002006')).labels).toEqual(['vip']);
        expect(hits).toEqual([]);
      } finally {
        await new Promise((resolve) => receiver.close(resolve));
      }
    });

    it('reads business hours on the wall clock of the account across a daylight-saving change (fixed event times)', async () => {
      await a.post('/api/v1/labels').set(admin).send({ name: 'in-hours' }).expect(201);
      await a.post('/api/v1/labels').set(admin).send({ name: 'after-hours' }).expect(201);
      const within = await publish('In hours', { trigger: 'message_created', conditions: [{ type: 'text_contains', value: 'what time?' }, { type: 'business_hours', within: true }], actions: [{ type: 'add_label', label: 'in-hours' }] });
      const outside = await publish('After hours', { trigger: 'message_created', conditions: [{ type: 'text_contains', value: 'what time?' }, { type: 'business_hours', within: false }], actions: [{ type: 'add_label', label: 'after-hours' }] });
      const account = (await a.get('/api/v1/account').set(admin).expect(200)).body.data;
      expect(account).toMatchObject({ time_zone: 'Europe/Berlin', business_hours: { monday: { open: '09:00', close: '17:00' } } });
      const conversations = await Promise.all(['15550002001', '15550002002'].map(conversationOf));
      // The same UTC time on two Mondays: 09:30 in Berlin before the change of 25 October 2026 (UTC+2), 08:30 after it (UTC+1).
      const at = ['2026-10-19T07:30:00.000Z', '2026-10-26T07:30:00.000Z'];
      const bus = r.apps[1].app.get(EventBus);
      for (const [i, c] of conversations.entries()) {
        await bus.publish(
          ConversationMessageCreated,
          { accountId, conversationId: c.id, channelId, message: { id: c.messages[0].id, type: 'incoming', content: 'what time?', contentType: 'text' }, origin: null },
          { occurredAt: at[i] },
        );
      }
      const [inRun] = (await runsOnce(within, 1)).data;
      const [outRun] = (await runsOnce(outside, 1)).data;
      expect([inRun.conversation_id, outRun.conversation_id]).toEqual([conversations[0].id, conversations[1].id]);
      expect((await conversationOf('15550002001')).labels).toEqual(['in-hours']);
      expect((await conversationOf('15550002002')).labels).toEqual(['after-hours']);
    });

    it('survives a replica losing its database connection mid-run: the run is redone from scratch, once', async () => {
      const crash = await publish('Crash course', {
        trigger: 'conversation_created',
        conditions: [{ type: 'channel', channel_ids: [channelId] }],
        // The reply is written first; the assignment then waits for the team's row, which this test holds.
        actions: [{ type: 'reply', canned_response_id: await canned('crash', 'Hello {{contact.first_name}}') }, { type: 'assign_team', team_id: teamId }],
      });
      const pg = new Client({ connectionString: r.databaseUrl });
      await pg.connect();
      try {
        await pg.query('BEGIN');
        await pg.query(`SELECT id FROM ${r.schema}.teams WHERE id = $1 FOR UPDATE`, [teamId]);
        await inbound(1, '15550002009', 'crash test', 'Gil Mo');
        // The run that took the event is inside its transaction (inbox mark, reply queued), waiting for the team.
        const pid = await waitFor('a run waiting for the team row', async () => {
          // Sessions waiting for this one (pg_locks is read afresh in a transaction, unlike pg_stat_activity).
          const rows = (await pg.query('SELECT DISTINCT pid FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))')).rows as Array<{ pid: number }>;
          return rows[0]?.pid;
        });
        // Its connection dies as in a crash: PostgreSQL rolls the whole run back, the broker hands the event out again.
        await pg.query('SELECT pg_terminate_backend($1)', [pid]);
        await pg.query('COMMIT');
      } finally {
        await pg.end();
      }
      const [run] = (await runsOnce(crash, 1)).data;
      expect(run).toMatchObject({ outcome: 'succeeded', actions: [{ type: 'reply', outcome: 'done' }, { type: 'assign_team', outcome: 'done' }] });
      await waitFor('the reply sent', async () => {
        for (const app of r.apps) await app.app.get(MessageDeliveryWorker).drain();
        return provider.sent.some((m) => m.to === '15550002009') ? true : undefined;
      });
      for (const app of r.apps) await app.app.get(MessageDeliveryWorker).drain();
      const gil = await conversationOf('15550002009');
      expect(outgoing(gil)).toEqual(['Hello Gil']);
      expect(provider.sent.filter((m) => m.to === '15550002009')).toHaveLength(1);
      expect(gil.team_id).toBe(teamId);
      expect((await runs(crash)).meta.total).toBe(1);
    });
  });
});
