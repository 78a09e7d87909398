// WhatsApp deliveries as the receiver takes them under load, on two replicas of one database: the
// channel each replica remembers (a changed app secret applies at once, on the replica that changed it
// and on the other), concurrent deliveries stored together (group commits) and still exactly once per
// provider message id, with one conversation per sender, round robin, events in the outbox, messages
// in their order; a body the raw route hands on to Express answered the same way.
import { DataSource } from 'typeorm';
import { ADMIN_EMAIL, ADMIN_PASSWORD, sign, textDelivery, WA } from '../../test/helpers';
import { startReplicas, type Replicas } from '../../test/replicas';

type Http = Replicas['http'][number];

describe('conversation-api WhatsApp deliveries under load', () => {
  let r: Replicas;
  let auth: { Authorization: string };

  const post = (http: Http, channelId: string, body: string, signature = sign(body)) =>
    http.post(`/api/v1/webhooks/whatsapp/${channelId}`).set('content-type', 'application/json').set('x-hub-signature-256', signature).send(body);
  const rows = <T>(sql: string, params: unknown[] = []) => r.apps[0].app.get(DataSource).query(sql.replaceAll('$schema', r.schema), params) as Promise<T[]>;
  const channel = async (extra: Record<string, unknown> = {}) =>
    (
      await r.http[0]
        .post('/api/v1/channels/whatsapp')
        .set(auth)
        .send({ name: 'Load', phone_number_id: WA.phoneNumberId, access_token: WA.accessToken, app_secret: WA.appSecret, verify_token: WA.verifyToken, ...extra })
        .expect(201)
    ).body.data.id as string;

  beforeAll(async () => {
    r = await startReplicas(2, { CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE: '100000' });
    const login = await r.http[0].post('/api/v1/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200);
    auth = { Authorization: `Bearer ${login.body.data.access_token}` };
  });

  afterAll(async () => {
    await r?.close();
  });

  it('applies a changed app secret at once on every replica, though each remembers the channel', async () => {
    const id = await channel();
    const first = textDelivery({ id: 'wamid.SECRET1', from: '15550100001', text: 'before' });
    // Both replicas have read (and remember) the channel.
    await post(r.http[0], id, first).expect(200);
    await post(r.http[1], id, first).expect(200);

    await r.http[0].patch(`/api/v1/channels/${id}`).set(auth).send({ app_secret: 'the-new-app-secret' }).expect(200);
    const next = textDelivery({ id: 'wamid.SECRET2', from: '15550100001', text: 'after' });
    // The replica that changed it forgot the old secret; the other reads the channel again when a signature does not match what it remembers.
    await post(r.http[0], id, next).expect(401);
    expect((await post(r.http[0], id, next, sign(next, 'the-new-app-secret')).expect(200)).body.data).toMatchObject({ received: 1 });
    const other = textDelivery({ id: 'wamid.SECRET3', from: '15550100001', text: 'on the other replica' });
    expect((await post(r.http[1], id, other, sign(other, 'the-new-app-secret')).expect(200)).body.data).toMatchObject({ received: 1 });
    await post(r.http[1], id, textDelivery({ id: 'wamid.SECRET4', from: '15550100001', text: 'x' }), sign('another body', 'the-new-app-secret')).expect(401);

    // The verify token likewise.
    await r.http[0].patch(`/api/v1/channels/${id}`).set(auth).send({ verify_token: 'the-new-verify-token' }).expect(200);
    for (const http of r.http) {
      const ok = await http.get(`/api/v1/webhooks/whatsapp/${id}`).query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'the-new-verify-token', 'hub.challenge': '42' }).expect(200);
      expect(ok.text).toBe('42');
    }
  });

  it('stores identical first deliveries of a new sender, sent at once to both replicas, exactly once', async () => {
    const id = await channel({ phone_number_id: WA.phoneNumberId });
    const body = textDelivery({ id: 'wamid.TWIN', from: '15550200002', name: 'Twin Sender', text: 'only once' });
    const answers = await Promise.all(Array.from({ length: 8 }, (_v, i) => post(r.http[i % 2], id, body)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(answers.reduce((n, a) => n + a.body.data.received, 0)).toBe(1);
    expect(answers.reduce((n, a) => n + a.body.data.duplicates, 0)).toBe(7);

    expect(await rows(`SELECT count(*)::int AS n FROM $schema.messages WHERE channel_id = $1 AND source_id = 'wamid.TWIN'`, [id])).toEqual([{ n: 1 }]);
    expect(await rows(`SELECT count(*)::int AS n FROM $schema.contact_inboxes WHERE channel_id = $1`, [id])).toEqual([{ n: 1 }]);
    expect(await rows(`SELECT count(*)::int AS n FROM $schema.conversations WHERE channel_id = $1`, [id])).toEqual([{ n: 1 }]);
    // One event of each kind in the outbox, all published.
    const events = await waitForPublished(id);
    expect(events.map((e) => e.type).sort()).toEqual(['conversation.created', 'conversation.message_created']);
  });

  it('stores concurrent deliveries of new and known senders once each, a conversation per sender, in order, round robin', async () => {
    const agents: string[] = [];
    const roles = (await r.http[0].get('/api/v1/roles').set(auth).expect(200)).body.data as Array<{ id: string; name: string }>;
    for (const who of ['ana', 'ben']) {
      const user = await r.http[0]
        .post('/api/v1/users')
        .set(auth)
        .send({ email: `${who}@load.test`, name: who, password: 'agent-password-1', role_id: roles.find((x) => x.name === 'agent')!.id })
        .expect(201);
      agents.push(user.body.data.id);
    }
    const id = await channel({ auto_assignment: true, member_ids: agents });
    // Two senders known before, ten new ones; each sends three messages at once, one delivery of them carrying two messages.
    for (const known of ['15550300000', '15550300001']) await post(r.http[0], id, textDelivery({ id: `wamid.K-${known}`, from: known, text: 'hello' })).expect(200);
    const senders = Array.from({ length: 12 }, (_v, i) => String(15550300000 + i));
    const bodies: string[] = [];
    for (const from of senders) {
      bodies.push(textDelivery({ id: `wamid.L-${from}-1`, from, name: `Sender ${from}`, text: 'first' }));
      bodies.push(twoMessages(from, `wamid.L-${from}-2`, 'second', `wamid.L-${from}-3`, 'third'));
    }
    // Redeliveries of some of them at the same time.
    const redelivered = bodies.slice(0, 6);
    const answers = await Promise.all([...bodies, ...redelivered].map((body, i) => post(r.http[i % 2], id, body)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(answers.reduce((n, a) => n + a.body.data.received, 0)).toBe(36);
    // The first six deliveries hold nine messages.
    expect(answers.reduce((n, a) => n + a.body.data.duplicates, 0)).toBe(9);

    const conversations = await rows<{ contact_id: string; assignee_id: string; n: number; texts: string[] }>(
      `SELECT v.contact_id, v.assignee_id, count(m.id)::int AS n, array_agg(m.content ORDER BY m.created_at, m.id) AS texts
         FROM $schema.conversations v JOIN $schema.messages m ON m.conversation_id = v.id AND m.message_type = 'incoming'
        WHERE v.channel_id = $1 GROUP BY v.id`,
      [id],
    );
    expect(conversations).toHaveLength(12);
    for (const c of conversations) {
      const expected = c.n === 4 ? ['hello', 'first', 'second', 'third'] : ['first', 'second', 'third'];
      // A delivery's messages keep their order; deliveries of one sender arrive in any order.
      expect(c.texts.filter((x) => x !== 'first')).toEqual(expected.filter((x) => x !== 'first'));
      expect(c.texts.sort()).toEqual([...expected].sort());
    }
    // Round robin over the twelve conversations: six each.
    expect(agents.map((a) => conversations.filter((c) => c.assignee_id === a).length)).toEqual([6, 6]);
    // Every stored message announced once, every new conversation once.
    const events = await waitForPublished(id);
    expect(events.filter((e) => e.type === 'conversation.message_created')).toHaveLength(38);
    expect(new Set(events.filter((e) => e.type === 'conversation.message_created').map((e) => e.message_id)).size).toBe(38);
    expect(events.filter((e) => e.type === 'conversation.created')).toHaveLength(12);
  });

  it('opens nothing for a new sender whose only message is stored already (under another sender)', async () => {
    const id = await channel();
    await post(r.http[0], id, textDelivery({ id: 'wamid.ONCE', from: '15550600006', text: 'mine' })).expect(200);
    const answers = await Promise.all([0, 1].map((n) => post(r.http[n], id, textDelivery({ id: 'wamid.ONCE', from: '15550600007', name: 'Impostor', text: 'mine too' }))));
    expect(answers.map((a) => a.body.data)).toEqual([0, 1].map(() => ({ received: 0, duplicates: 1, statuses: 0, ignored: 0 })));
    expect(await rows(`SELECT source_id FROM $schema.contact_inboxes WHERE channel_id = $1`, [id])).toEqual([{ source_id: '15550600006' }]);
    expect(await rows(`SELECT count(*)::int AS n FROM $schema.conversations WHERE channel_id = $1`, [id])).toEqual([{ n: 1 }]);
  });

  it('reopens a resolved conversation once when several of its messages arrive at once', async () => {
    const id = await channel();
    await post(r.http[0], id, textDelivery({ id: 'wamid.R0', from: '15550400004', text: 'question' })).expect(200);
    const [conversation] = await rows<{ id: string }>(`SELECT id FROM $schema.conversations WHERE channel_id = $1`, [id]);
    await r.http[0].post(`/api/v1/conversations/${conversation.id}/close`).set(auth).expect(200);
    const answers = await Promise.all([1, 2, 3, 4].map((n) => post(r.http[n % 2], id, textDelivery({ id: `wamid.R${n}`, from: '15550400004', text: `again ${n}` }))));
    expect(answers.reduce((n, a) => n + a.body.data.received, 0)).toBe(4);
    const [after] = await rows<{ status: string; waiting_since: Date | null }>(`SELECT status, waiting_since FROM $schema.conversations WHERE id = $1`, [conversation.id]);
    expect(after.status).toBe('open');
    expect(after.waiting_since).not.toBeNull();
    expect(await rows(`SELECT count(*)::int AS n FROM $schema.messages WHERE conversation_id = $1 AND content = 'Conversation was reopened by a new message from the contact'`, [conversation.id])).toEqual([{ n: 1 }]);
    const events = await waitForPublished(id);
    // The agent's close, then one reopening.
    expect(events.filter((e) => e.type === 'conversation.status_changed').map((e) => e.to)).toEqual(['resolved', 'open']);
  });

  it('answers a body the raw route hands on to Express (white space first) as the raw route does', async () => {
    const id = await channel();
    const body = ` ${textDelivery({ id: 'wamid.SPACE', from: '15550500005', text: 'spaced' })}`;
    const handedOn = await post(r.http[0], id, body).expect(200);
    const raw = await post(r.http[0], id, textDelivery({ id: 'wamid.PLAIN', from: '15550500005', text: 'plain' })).expect(200);
    expect(handedOn.body).toEqual({ success: true, data: { received: 1, duplicates: 0, statuses: 0, ignored: 0 } });
    expect(raw.body).toEqual(handedOn.body);
    for (const res of [handedOn, raw]) {
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['x-ratelimit-limit-webhook']).toBe('100000');
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    await post(r.http[0], id, ` {"object":`).expect(400);
  });

  /** The channel's outbox events once all are published, in order (type, the message id of message events, the new status of status changes). */
  async function waitForPublished(channelId: string): Promise<Array<{ type: string; message_id: string | null; to: string | null }>> {
    for (let i = 0; i < 200; i++) {
      const events = await rows<{ type: string; message_id: string | null; to: string | null; sent: boolean }>(
        `SELECT type, data -> 'message' ->> 'id' AS message_id, data ->> 'to' AS to, sent_at IS NOT NULL AS sent FROM $schema.outbox WHERE data ->> 'channelId' = $1 ORDER BY id`,
        [channelId],
      );
      if (events.every((e) => e.sent)) return events.map(({ type, message_id, to }) => ({ type, message_id, to }));
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('outbox events of the channel not published');
  }
});

/** One delivery of two text messages of one sender, in this order. */
function twoMessages(from: string, id1: string, text1: string, id2: string, text2: string): string {
  const one = JSON.parse(textDelivery({ id: id1, from, name: `Sender ${from}`, text: text1 }));
  const two = JSON.parse(textDelivery({ id: id2, from, name: `Sender ${from}`, text: text2 }));
  one.entry[0].changes[0].value.messages.push(two.entry[0].changes[0].value.messages[0]);
  return JSON.stringify(one);
}
