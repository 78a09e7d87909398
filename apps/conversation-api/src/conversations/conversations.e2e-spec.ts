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
  it('pages through a long conversation with cursors, exactly, while messages arrive', async () => {
    for (let i = 1; i <= 7; i++) await incoming('15550003001', `paging message ${i}`, 'Pager');
    const c = (await list({ q: 'Pager' })).data[0];
    const page = async (query: Record<string, string | number>, s: Session = admin) => (await t.http.get(`/api/v1/conversations/${c.id}/messages`).query(query).set(s.auth).expect(200)).body;
    const texts = (body: { data: Array<{ content: string }> }) => body.data.map((m) => m.content);

    const latest = await page({ limit: 3 });
    expect(texts(latest)).toEqual(['paging message 5', 'paging message 6', 'paging message 7']);
    expect(latest.meta).toMatchObject({ total: 7, limit: 3, has_newer: false });
    expect(latest.meta.older).toEqual(expect.any(String));
    // A message arriving meanwhile does not shift the older pages.
    await incoming('15550003001', 'paging message 8');
    const second = await page({ limit: 3, before: latest.meta.older });
    expect(texts(second)).toEqual(['paging message 2', 'paging message 3', 'paging message 4']);
    expect(second.meta.has_newer).toBe(true);
    const third = await page({ limit: 3, before: second.meta.older });
    expect(texts(third)).toEqual(['paging message 1']);
    expect(third.meta.older).toBeNull();
    // Forward from the latest page: what arrived since.
    const since = await page({ after: latest.meta.newer });
    expect(texts(since)).toEqual(['paging message 8']);
    expect(since.meta.has_newer).toBe(false);
    expect(texts(await page({ after: since.meta.newer }))).toEqual([]);
    const forward = await page({ limit: 2, after: third.meta.newer });
    expect(texts(forward)).toEqual(['paging message 2', 'paging message 3']);
    expect(forward.meta.has_newer).toBe(true);

    // Cursors of another conversation, garbage, both directions at once; another inbox's agent.
    const other = (await list({ q: 'Timing' })).data[0];
    const foreign = (await t.http.get(`/api/v1/conversations/${other.id}/messages`).query({ limit: 1 }).set(admin.auth).expect(200)).body.meta.newer;
    expect((await t.http.get(`/api/v1/conversations/${c.id}/messages`).query({ before: foreign }).set(admin.auth).expect(400)).body.error.code).toBe('INVALID_CURSOR');
    expect((await t.http.get(`/api/v1/conversations/${c.id}/messages`).query({ before: 'bm90LWEtY3Vyc29y' }).set(admin.auth).expect(400)).body.error.code).toBe('INVALID_CURSOR');
    const both = await t.http.get(`/api/v1/conversations/${c.id}/messages`).query({ before: latest.meta.older, after: latest.meta.newer, limit: 0 }).set(admin.auth).expect(422);
    expect(both.body.error.errors.map((e: { field: string }) => e.field)).toEqual(['limit']);
    await t.http.get(`/api/v1/conversations/${c.id}/messages`).query({ before: latest.meta.older, after: latest.meta.newer }).set(admin.auth).expect(422);
    const outsider = await userWithRole(t, admin, 'agent', 'outsider@conversation.test');
    expect((await t.http.get(`/api/v1/conversations/${c.id}/messages`).set(outsider.auth).expect(404)).body.error.code).toBe('CONVERSATION_NOT_FOUND');
  });

  it('searches message texts through the full-text index: stems, phrases, exclusions, scope', async () => {
    await incoming('15550004001', 'My refunds for order 1042 never arrived', 'Searcher');
    await incoming('15550004002', 'Where is the refund of order 7?', 'Second searcher');
    await incoming('15550004003', 'Cancelled refund request', 'Third searcher');
    const search = async (query: Record<string, string>, s: Session = admin) => (await t.http.get('/api/v1/search/messages').query(query).set(s.auth).expect(200)).body;
    const hits = await search({ q: 'refund' });
    expect(hits.meta.total).toBe(3);
    expect(hits.data[0]).toMatchObject({ message: { message_type: 'incoming' }, conversation: { display_id: expect.any(Number) } });
    expect(hits.data.map((h: { highlight: string }) => h.highlight).join(' ')).toContain('<b>refunds</b>');
    expect((await search({ q: '"order 1042"' })).data.map((h: { conversation: { contact_name: string } }) => h.conversation.contact_name)).toEqual(['Searcher']);
    expect((await search({ q: 'refund -cancelled' })).meta.total).toBe(2);
    expect((await search({ q: 'refund', limit: '1', page: '2' })).meta).toEqual({ total: 3, page: 2, limit: 1 });
    // The conversation list's q uses the same index (no match on part of a word, as before with ILIKE: whole words).
    expect((await list({ q: 'refunds arrived' })).data.map((c: { contact: { name: string } }) => c.contact.name)).toEqual(['Searcher']);
    // Agents find only their inboxes' messages.
    const outsider = await login(t, 'outsider@conversation.test', 'user-password-1');
    expect((await search({ q: 'refund' }, outsider)).meta.total).toBe(0);
    expect((await search({ q: 'refund' }, alice)).meta.total).toBe(3);
    const bad = await t.http.get('/api/v1/search/messages').query({ q: '' }).set(admin.auth).expect(422);
    expect(bad.body.error.errors[0].field).toBe('q');
  });
  it('reports KPIs, time series in a time zone, agent and team performance from the reporting events, as computed by hand', async () => {
    const { DataSource } = await import('typeorm');
    const ds = t.app.get(DataSource);
    const schema = t.config.DATABASE_SCHEMA;
    const team = (await t.http.post('/api/v1/teams').set(admin.auth).send({ name: 'Analytics', member_ids: [alice.id] }).expect(201)).body.data;
    const ch = (await whatsappChannel(t, admin, { team_id: team.id, member_ids: [alice.id] })).id;
    const send = (from: string, text: string) => deliver(t, ch, textDelivery({ id: `wamid.R${++n}`, from, text })).expect(200);
    await send('15557000001', 'x1');
    await send('15557000002', 'y1');
    await send('15557000003', 'z1');
    const convs = (await list({ channel_id: ch })).data as Array<{ id: string; contact: { phone: string } }>;
    const [X, Y, Z] = ['+15557000001', '+15557000002', '+15557000003'].map((phone) => convs.find((c) => c.contact.phone === phone)!.id);

    // Fixed times: X and Y created at T (HH:20 UTC, three hours ago); replies written at T+600 s, T+1200 s and T+1300 s.
    const HOUR = 3_600_000;
    const hourStart = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
    const T = hourStart + 20 * 60_000;
    const at = (secs: number) => new Date(T + secs * 1000).toISOString();
    await ds.query(`UPDATE ${schema}.conversations SET created_at = $2 WHERE id = ANY($1::uuid[])`, [[X, Y], at(0)]);
    const reply = async (conversation: string, text: string, secs: number) => {
      const m = (await t.http.post(`/api/v1/conversations/${conversation}/messages`).set(admin.auth).send({ content: text }).expect(201)).body.data;
      await ds.query(`UPDATE ${schema}.messages SET created_at = $2 WHERE id = $1`, [m.id, at(secs)]);
      expect(await delivered(t, admin.auth, conversation, m.id)).toMatchObject({ status: 'sent' });
    };
    await reply(X, 'hi X', 600); // first response 600 s
    await reply(Y, 'hi Y', 1200); // first response 1200 s
    await send('15557000001', 'x2');
    await ds.query(`UPDATE ${schema}.conversations SET waiting_since = $2 WHERE id = $1`, [X, at(1000)]);
    await reply(X, 'again X', 1300); // reply time 300 s
    await t.http.post(`/api/v1/conversations/${Y}/status`).set(admin.auth).send({ status: 'pending' }).expect(200);
    await t.http.post(`/api/v1/conversations/${Z}/assign`).set(admin.auth).send({ assignee_id: alice.id }).expect(200);
    await ds.query(`UPDATE ${schema}.conversations SET created_at = now() - interval '1 hour' WHERE id = $1`, [Z]);
    await t.http.post(`/api/v1/conversations/${Z}/close`).set(alice.auth).expect(200); // resolution time 3600 s
    await t.http.patch(`/api/v1/conversations/${X}`).set(admin.auth).send({ labels: ['vip'] }).expect(200);

    const get = async (path: string, query: Record<string, string>, s: Session = admin) => (await t.http.get(`/api/v1/analytics/${path}`).query(query).set(s.auth).expect(200)).body.data;
    const window = { channel_id: ch, from: new Date(T - HOUR).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
    const summary = await get('summary', window);
    expect(summary.now).toEqual({ open: 1, unassigned: 1, pending: 1, snoozed: 0 });
    expect(summary.metrics).toMatchObject({
      conversations: { value: 3, previous: 0, change: null },
      resolved: { value: 1, previous: 0 },
      messages_incoming: { value: 4, previous: 0 },
      messages_outgoing: { value: 3, previous: 0 },
      first_response_time: { value: 900, previous: null, change: null },
      reply_time: { value: 300 },
    });
    expect(summary.metrics.resolution_time.value).toBeGreaterThanOrEqual(3600);
    expect(summary.metrics.resolution_time.value).toBeLessThan(3630);
    // Compared with the period before: [T+900 s, T+1800 s) against [T, T+900 s).
    const halves = await get('summary', { channel_id: ch, from: at(900), to: at(1800) });
    expect(halves.previous_period).toEqual({ from: at(0), to: at(900) });
    expect(halves.metrics).toMatchObject({ first_response_time: { value: 1200, previous: 600, change: 100 }, messages_outgoing: { value: 2, previous: 1, change: 100 }, reply_time: { value: 300, previous: null } });
    // Label (vip: X only) and agent filters.
    expect((await get('summary', { ...window, label: 'vip' })).metrics).toMatchObject({ messages_outgoing: { value: 2 }, first_response_time: { value: 600 }, messages_incoming: { value: 2 } });
    expect((await get('summary', { ...window, agent_id: alice.id })).metrics).toMatchObject({ resolved: { value: 1 }, messages_outgoing: { value: 0 } });

    const agents = await get('agents', window);
    const byName = (rows: Array<{ name: string }>, name: string) => rows.find((r) => r.name === name);
    expect(byName(agents, 'Administrator')).toMatchObject({ messages_outgoing: 3, avg_first_response_time: 900, avg_reply_time: 300, resolved: 0 });
    expect(byName(agents, 'alice')).toMatchObject({ resolved: 1, messages_outgoing: 0, avg_first_response_time: null });
    const teams = await get('teams', window);
    expect(byName(teams, 'Analytics')).toMatchObject({ conversations: 3, resolved: 1, messages_outgoing: 3, avg_first_response_time: 900, open_now: 1 });

    // Hourly buckets: UTC hours, and Kolkata's (UTC+05:30) local hours, which start at :30 UTC.
    const hourly = { channel_id: ch, metric: 'outgoing_messages_count', group_by: 'hour', from: new Date(hourStart).toISOString(), to: new Date(hourStart + 2 * HOUR).toISOString() };
    const utc = await get('timeseries', hourly);
    expect(utc.points.map((p: { timestamp: string; value: number }) => [p.timestamp, p.value])).toEqual([
      [new Date(hourStart).toISOString(), 3],
      [new Date(hourStart + HOUR).toISOString(), 0],
    ]);
    const kolkata = await get('timeseries', { ...hourly, timezone: 'Asia/Kolkata' });
    expect(kolkata.points.map((p: { timestamp: string; value: number }) => [p.timestamp, p.value])).toEqual([
      [new Date(hourStart - HOUR / 2).toISOString(), 0],
      [new Date(hourStart + HOUR / 2).toISOString(), 3],
      [new Date(hourStart + (3 * HOUR) / 2).toISOString(), 0],
    ]);
    const averages = await get('timeseries', { ...hourly, metric: 'avg_first_response_time' });
    expect(averages.points.map((p: { value: number | null; count: number }) => [p.value, p.count])).toEqual([[900, 2], [null, 0]]);
    // Daily buckets in the account's time zone when none is asked for.
    await t.http.patch('/api/v1/account').set(admin.auth).send({ time_zone: 'Asia/Kolkata' }).expect(200);
    const daily = await get('timeseries', { channel_id: ch, metric: 'conversations_count' });
    expect(daily.timezone).toBe('Asia/Kolkata');
    expect(daily.points.every((p: { timestamp: string }) => p.timestamp.endsWith('T18:30:00.000Z'))).toBe(true);
    expect(daily.points.reduce((sum: number, p: { value: number }) => sum + p.value, 0)).toBe(3);

    // Agents see the channels they are members of only; bad input is 422.
    expect((await get('summary', window, bob)).metrics.conversations.value).toBe(0);
    const bad = async (path: string, query: Record<string, string>) => (await t.http.get(`/api/v1/analytics/${path}`).query(query).set(admin.auth).expect(422)).body.error.errors[0].field;
    expect(await bad('timeseries', { metric: 'outgoing_messages_count', timezone: 'Mars/Olympus' })).toBe('timezone');
    expect(await bad('timeseries', { metric: 'bounces' })).toBe('metric');
    expect(await bad('timeseries', { metric: 'conversations_count', group_by: 'hour', from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z' })).toBe('to');
    expect(await bad('summary', { from: '2026-03-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })).toBe('from');
  });
});
