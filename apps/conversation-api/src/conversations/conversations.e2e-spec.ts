// Conversations: filters and pagination, automatic round-robin assignment with a per-agent cap,
// manual assignment, statuses with their side effects (snooze and its wake-up), labels.
import { deliver, delivered, login, ADMIN_EMAIL, ADMIN_PASSWORD, startApp, textDelivery, userWithRole, whatsappChannel, type ConversationTestApp, type Session } from '../../test/helpers';
import { startFakeWhatsApp, type FakeWhatsApp } from '../../test/fake-whatsapp';
import { WA } from '../../test/helpers';
import { SnoozeWorker } from './snooze.worker';

describe('conversation-api conversations', () => {
  let t: ConversationTestApp;
  let provider: FakeWhatsApp;
  let admin: Session;
  let alice: Session & { id: string };
  let bob: Session & { id: string };
  let channelId: string;
  let n = 0;

  const incoming = async (from: string, text = 'hello', name?: string) => {
    await deliver(t, channelId, textDelivery({ id: `wamid.C${++n}`, from, text, name })).expect(200);
  };
  const list = async (query: Record<string, string | number | boolean> = {}, s: Session = admin) => (await t.http.get('/api/v1/conversations').query(query).set(s.auth).expect(200)).body;

  beforeAll(async () => {
    provider = await startFakeWhatsApp({ accessToken: WA.accessToken });
    t = await startApp({ WHATSAPP_API_URL: provider.url });
    admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    alice = await userWithRole(t, admin, 'agent', 'alice@conversation.test');
    bob = await userWithRole(t, admin, 'agent', 'bob@conversation.test');
    const team = (await t.http.post('/api/v1/teams').set(admin.auth).send({ name: 'Support', member_ids: [alice.id, bob.id] }).expect(201)).body.data;
    channelId = (await whatsappChannel(t, admin, { auto_assignment: true, assignment_cap: 2, member_ids: [alice.id, bob.id], team_id: team.id })).id;
  });

  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  it('assigns new conversations round robin, up to the cap of open conversations per agent', async () => {
    for (let i = 1; i <= 5; i++) await incoming(`1555000100${i}`, `need help ${i}`, `Customer ${i}`);
    const all = await list({ limit: 100 });
    expect(all.meta.total).toBe(5);
    const byAssignee = (id: string | null) => all.data.filter((c: { assignee_id: string | null }) => c.assignee_id === id).length;
    expect(byAssignee(alice.id)).toBe(2);
    expect(byAssignee(bob.id)).toBe(2);
    expect(byAssignee(null)).toBe(1);
    // Turns alternate: the first two conversations went to different agents.
    const ordered = [...all.data].sort((x: { display_id: number }, y: { display_id: number }) => x.display_id - y.display_id);
    expect(ordered[0].assignee_id).not.toBe(ordered[1].assignee_id);
    expect(ordered.map((c: { display_id: number }) => c.display_id)).toEqual([1, 2, 3, 4, 5]);
    expect(all.data.every((c: { team_id: string }) => c.team_id)).toBe(true);

    // A resolved conversation frees a slot: the next new one goes to that agent.
    const alices = (await list({ assignee_id: alice.id })).data;
    await t.http.post(`/api/v1/conversations/${alices[0].id}/close`).set(alice.auth).expect(200);
    await incoming('15550001006', 'new one');
    const fresh = (await list({ q: '15550001006' })).data[0];
    expect(fresh.assignee_id).toBe(alice.id);
  });

  it('filters by status, assignee (me), team, channel, label, unassigned and search, with pagination', async () => {
    expect((await list({ unassigned: true })).meta.total).toBe(1);
    expect((await list({ assignee_id: 'me' }, bob)).data.every((c: { assignee_id: string }) => c.assignee_id === bob.id)).toBe(true);
    expect((await list({ status: 'resolved' })).meta.total).toBe(1);
    expect((await list({ status: 'open' })).meta.total).toBe(5);
    expect((await list({ channel_id: channelId })).meta.total).toBe(6);
    expect((await list({ channel_id: '00000000-0000-4000-8000-000000000000' })).meta.total).toBe(0);
    const team = (await t.http.get('/api/v1/teams').set(admin.auth)).body.data[0];
    expect((await list({ team_id: team.id })).meta.total).toBe(6);

    const target = (await list({ q: 'Customer 3' })).data;
    expect(target).toHaveLength(1);
    expect((await list({ q: 'need help 3' })).data.map((c: { id: string }) => c.id)).toEqual([target[0].id]);
    await t.http.patch(`/api/v1/conversations/${target[0].id}`).set(alice.auth).send({ labels: ['billing', 'vip'], priority: 'high' }).expect(200);
    const labelled = await list({ label: 'vip' });
    expect(labelled.data.map((c: { id: string; priority: string }) => [c.id, c.priority])).toEqual([[target[0].id, 'high']]);

    const page2 = await list({ limit: 4, page: 2 });
    expect(page2.meta).toEqual({ total: 6, page: 2, limit: 4 });
    expect(page2.data).toHaveLength(2);
    const bad = await t.http.get('/api/v1/conversations').query({ status: 'closed', limit: 1000 }).set(admin.auth).expect(422);
    expect(bad.body.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'status']);
  });

  it('assigns by hand, with activity lines; only active users of the account', async () => {
    const conversation = (await list({ unassigned: true })).data[0];
    const res = await t.http.post(`/api/v1/conversations/${conversation.id}/assign`).set(bob.auth).send({ assignee_id: bob.id }).expect(200);
    expect(res.body.data.assignee_id).toBe(bob.id);
    const unassign = await t.http.post(`/api/v1/conversations/${conversation.id}/assign`).set(admin.auth).send({ assignee_id: null, team_id: null }).expect(200);
    expect(unassign.body.data).toMatchObject({ assignee_id: null, team_id: null });
    const msgs = (await t.http.get(`/api/v1/conversations/${conversation.id}`).set(admin.auth)).body.data.messages.map((m: { content: string }) => m.content);
    expect(msgs).toEqual(expect.arrayContaining(['Assigned to bob by bob', 'Unassigned by Administrator', 'Team removed by Administrator']));
    const unknown = await t.http.post(`/api/v1/conversations/${conversation.id}/assign`).set(admin.auth).send({ assignee_id: '00000000-0000-4000-8000-000000000000' }).expect(404);
    expect(unknown.body.error.code).toBe('ASSIGNEE_NOT_FOUND');
  });

  it('moves through pending, snoozed and resolved; a due snooze wakes up; an incoming message ends a snooze', async () => {
    const conversation = (await list({ q: 'Customer 2' })).data[0];
    const status = (body: object) => t.http.post(`/api/v1/conversations/${conversation.id}/status`).set(alice.auth).send(body);
    expect((await status({ status: 'pending' }).expect(200)).body.data.status).toBe('pending');
    const past = await status({ status: 'snoozed', snoozed_until: new Date(Date.now() - 1000).toISOString() }).expect(422);
    expect(past.body.error.errors[0].field).toBe('snoozed_until');
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const snoozed = (await status({ status: 'snoozed', snoozed_until: until }).expect(200)).body.data;
    expect(snoozed).toMatchObject({ status: 'snoozed', snoozed_until: until });

    // The worker opens snoozes that are due (made due here by moving the time in the database).
    const { DataSource } = await import('typeorm');
    await t.app.get(DataSource).query(`UPDATE ${t.config.DATABASE_SCHEMA}.conversations SET snoozed_until = now() - interval '1 second' WHERE id = $1`, [conversation.id]);
    expect(await t.app.get(SnoozeWorker).drain()).toBe(1);
    const woken = (await t.http.get(`/api/v1/conversations/${conversation.id}`).set(alice.auth)).body.data;
    expect(woken).toMatchObject({ status: 'open', snoozed_until: null });
    expect(woken.messages.map((m: { content: string }) => m.content)).toContain('Conversation was reopened: the snooze ended');

    await status({ status: 'snoozed' }).expect(200);
    await incoming('15550001002', 'still there?');
    expect((await t.http.get(`/api/v1/conversations/${conversation.id}`).set(alice.auth)).body.data.status).toBe('open');

    const resolved = (await t.http.post(`/api/v1/conversations/${conversation.id}/close`).set(alice.auth).expect(200)).body.data;
    expect(resolved).toMatchObject({ status: 'resolved', waiting_since: null });
    expect((await t.http.post(`/api/v1/conversations/${conversation.id}/reopen`).set(alice.auth).expect(200)).body.data.status).toBe('open');
  });

  it('keeps first-response and waiting-since times', async () => {
    await incoming('15550002001', 'first question', 'Timing');
    const c = (await list({ q: 'Timing' })).data[0];
    expect(c.first_reply_created_at).toBeNull();
    const waiting = c.waiting_since;
    expect(waiting).not.toBeNull();
    await incoming('15550002001', 'second question');
    expect((await t.http.get(`/api/v1/conversations/${c.id}`).set(admin.auth)).body.data.waiting_since).toBe(waiting);
    await t.http.post(`/api/v1/conversations/${c.id}/whisper`).set(admin.auth).send({ content: 'note' }).expect(201);
    const afterNote = (await t.http.get(`/api/v1/conversations/${c.id}`).set(admin.auth)).body.data;
    expect(afterNote).toMatchObject({ waiting_since: waiting, first_reply_created_at: null });
    // A reply the provider refuses is no response: the contact still waits.
    provider.failNext({ status: 400, code: 131047, message: 'Re-engagement message' });
    const refused = (await t.http.post(`/api/v1/conversations/${c.id}/messages`).set(admin.auth).send({ content: 'refused answer' }).expect(201)).body.data;
    expect(await delivered(t, admin.auth, c.id, refused.id)).toMatchObject({ status: 'failed' });
    expect((await t.http.get(`/api/v1/conversations/${c.id}`).set(admin.auth)).body.data).toMatchObject({ waiting_since: waiting, first_reply_created_at: null });
    const answer = (await t.http.post(`/api/v1/conversations/${c.id}/messages`).set(admin.auth).send({ content: 'answer' }).expect(201)).body.data;
    expect(await delivered(t, admin.auth, c.id, answer.id)).toMatchObject({ status: 'sent' });
    const replied = (await t.http.get(`/api/v1/conversations/${c.id}`).set(admin.auth)).body.data;
    expect(replied.waiting_since).toBeNull();
    expect(replied.first_reply_created_at).toBe(answer.created_at);
    const more = (await t.http.post(`/api/v1/conversations/${c.id}/messages`).set(admin.auth).send({ content: 'more' }).expect(201)).body.data;
    await delivered(t, admin.auth, c.id, more.id);
    expect((await t.http.get(`/api/v1/conversations/${c.id}`).set(admin.auth)).body.data.first_reply_created_at).toBe(replied.first_reply_created_at);
  });

  it('stores concurrent first messages of many new senders on an auto-assigning channel, each once', async () => {
    const channel = (await whatsappChannel(t, admin, { auto_assignment: true, member_ids: [alice.id, bob.id] })).id;
    const bodies = Array.from({ length: 12 }, (_v, i) => textDelivery({ id: `wamid.P${i}`, from: `1666000000${String(i).padStart(2, '0')}`, text: `parallel ${i}` }));
    const results = await Promise.all(bodies.map((body) => deliver(t, channel, body)));
    expect(results.map((r) => r.status)).toEqual(bodies.map(() => 200));
    const stored = await list({ channel_id: channel, limit: 100 });
    expect(stored.meta.total).toBe(12);
    const counts = [alice.id, bob.id].map((id) => stored.data.filter((c: { assignee_id: string }) => c.assignee_id === id).length);
    expect(counts).toEqual([6, 6]);
    expect(new Set(stored.data.map((c: { display_id: number }) => c.display_id)).size).toBe(12);
  });
});
