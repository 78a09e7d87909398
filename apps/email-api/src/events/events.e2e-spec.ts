import {
  AutomationEmailCaptured,
  AutomationLinkClicked,
  AutomationLinkSent,
  EmailEventTracked,
  EventBus,
  OutboxMessage,
  type EmailEventTrackedData,
  type EventEnvelope,
} from '@platform/messaging';
import { createTestRabbit, testServices, type TestRabbit } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import { Database } from '@platform/database';
import { IdempotencyPruner } from '../idempotency/idempotency-pruner';
import { TrackService } from './track.service';
import { bearer, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';

describe('events: /v1/track, /events/*, activity, and the event bus (e2e, RabbitMQ when available)', () => {
  let t: EmailTestApp;
  let rabbit: TestRabbit | undefined;
  let project: TestProject;
  const published: Array<EventEnvelope<EmailEventTrackedData>> = [];
  const sk = () => bearer(project.secretKey);

  beforeAll(async () => {
    rabbit = testServices().amqpUrl ? await createTestRabbit() : undefined;
    t = await startEmailApi(
      rabbit
        ? { AMQP_URL: testServices().amqpUrl, EVENTS_EXCHANGE: rabbit.exchange, EVENTS_DLX: rabbit.dlx, EVENTS_QUEUE_PREFIX: `${rabbit.prefix}.` }
        : {},
    );
    if (rabbit) rabbit.queue('email-api.automation');
    const observer = rabbit ? rabbit.queue('observer') : 'test-observer';
    await t.app.get(EventBus).subscribe(observer, [EmailEventTracked], async (e) => {
      published.push(e as EventEnvelope<EmailEventTrackedData>);
    });
    ({ project } = await newProject(t, 'Events'));
  });
  afterAll(async () => {
    await t?.close();
    await rabbit?.cleanup();
  });

  it('tracks with the public key: creates the contact, stores the event and publishes email.event_tracked', async () => {
    const res = await t.http
      .post('/v1/track')
      .set(bearer(project.publicKey))
      .set('X-Request-Id', 'track-req-1')
      .send({ email: 'Track@Example.com', event: 'signed_up', data: { plan: 'pro', coupon: { value: 'WELCOME', persistent: false } } })
      .expect(200);
    expect(res.body).toEqual({ success: true, data: { contact: expect.stringMatching(/^cnt_/), event: expect.stringMatching(/^evt_/), timestamp: expect.any(String) } });
    const contact = await t.http.get(`/contacts/${res.body.data.contact}`).set(sk()).expect(200);
    expect(contact.body).toMatchObject({ email: 'track@example.com', subscribed: true, data: { plan: 'pro' } });
    expect(contact.body.data).not.toHaveProperty('coupon');
    const envelope = await eventually(async () => published.find((e) => e.data.eventId === res.body.data.event), 'email.event_tracked');
    expect(envelope).toMatchObject({
      type: 'email.event_tracked',
      source: 'email-api',
      correlationId: 'track-req-1',
      data: { projectId: project.id, contactId: res.body.data.contact, email: 'track@example.com', event: 'signed_up', properties: { plan: 'pro', coupon: 'WELCOME' }, contactCreated: true },
    });
    // a second event updates the same contact
    await t.http.post('/v1/track').set(sk()).send({ email: 'track@example.com', event: 'upgraded', subscribed: false }).expect(200);
    expect((await t.http.get(`/contacts/${res.body.data.contact}`).set(sk()).expect(200)).body.subscribed).toBe(false);
    const second = await eventually(async () => published.find((e) => e.data.event === 'upgraded'), 'second event');
    expect(second.data.contactCreated).toBe(false);
  });

  it('group-commits concurrent tracks: each write its own contact, event and bus event; a contact twice in one burst in order', async () => {
    const { project: p } = await newProject(t, 'Track batches');
    const tracking = t.app.get(TrackService);
    await tracking.track(p.id, { email: 'old@example.com', event: 'seed', data: { keep: 'x', drop: 1 } });
    // more writes at once than batches may run: the rest share one batch statement
    const writes = [
      { email: 'old@example.com', event: 'again', data: { plan: 'pro', drop: null } },
      ...Array.from({ length: 6 }, (_, i) => ({ email: `b${i}@example.com`, event: 'batched', data: { i, tag: { value: 'once', persistent: false } } })),
      { email: 'B0@example.com', event: 'second', data: { later: true } },
    ];
    const results = await Promise.all(writes.map((w) => tracking.track(p.id, w)));
    expect(results.map((r) => r.contactCreated)).toEqual([false, true, true, true, true, true, true, false]);
    expect(results[7].contact.id).toBe(results[1].contact.id);
    expect(new Set(results.map((r) => r.eventId)).size).toBe(writes.length);
    const db = t.app.get(Database);
    const contacts = await db.rows<{ email: string; subscribed: boolean; data: Record<string, unknown> }>(
      `SELECT email, subscribed, data FROM ${db.table('contacts')} WHERE project_id = $1 ORDER BY email`,
      [p.id],
    );
    expect(contacts).toEqual([
      { email: 'b0@example.com', subscribed: true, data: { i: 0, later: true } },
      ...[1, 2, 3, 4, 5].map((i) => ({ email: `b${i}@example.com`, subscribed: true, data: { i } })),
      { email: 'old@example.com', subscribed: true, data: { keep: 'x', plan: 'pro' } },
    ]);
    const stored = await db.rows<{ id: string; contact_id: string; name: string; data: unknown }>(`SELECT id, contact_id, name, data FROM ${db.table('events')} WHERE project_id = $1`, [p.id]);
    expect(stored).toHaveLength(writes.length + 1);
    for (const [i, r] of results.entries()) {
      expect(stored.find((e) => e.id === r.eventId)).toMatchObject({ contact_id: r.contact.id, name: writes[i].event });
      const bus = await eventually(async () => published.find((e) => e.data.eventId === r.eventId), `bus event of write ${i}`);
      expect(bus.data).toMatchObject({ projectId: p.id, contactId: r.contact.id, email: writes[i].email.toLowerCase(), event: writes[i].event, contactCreated: r.contactCreated });
    }
    expect(stored.find((e) => e.id === results[1].eventId)?.data).toEqual({ i: 0, tag: 'once' });
    // the batches' events were published by the writer itself: each as its outbox row holds it (what the
    // relay would send after a restart), and every row is marked sent
    const envelopes = results.map((r) => published.find((e) => e.data.eventId === r.eventId)!);
    const outbox = db.repository(OutboxMessage).metadata.tablePath;
    const rows = await eventually(async () => {
      const found = await db.rows<{ event_id: string; type: string; source: string; occurred_at: Date; correlation_id: string | null; data: unknown; sent_at: Date | null }>(
        `SELECT event_id, type, source, occurred_at, correlation_id, data, sent_at FROM ${outbox} WHERE event_id = ANY($1::uuid[])`,
        [envelopes.map((e) => e.id)],
      );
      return found.length === writes.length && found.every((r) => r.sent_at !== null) ? found : undefined;
    }, 'outbox rows marked sent');
    for (const row of rows) {
      const envelope = envelopes.find((e) => e.id === row.event_id)!;
      expect({ type: envelope.type, source: envelope.source, occurredAt: envelope.occurredAt, data: envelope.data }).toEqual({ type: row.type, source: row.source, occurredAt: row.occurred_at.toISOString(), data: row.data });
    }
  });

  it('updates an existing contact: data merged, subscription kept unless given, a change recorded as contact.subscribed|unsubscribed', async () => {
    const { project: p } = await newProject(t, 'Track updates');
    const key = bearer(p.publicKey);
    const names = async () => ((await t.http.get('/events/names').set(bearer(p.secretKey)).expect(200)).body as Array<{ name: string; count: number }>).map((n) => [n.name, n.count]);
    const first = await t.http.post('/v1/track').set(key).send({ email: 'up@example.com', event: 'a', subscribed: false, data: { plan: 'free', seats: 1, keep: 'x' } }).expect(200);
    const id = first.body.data.contact;
    const contact = async () => (await t.http.get(`/contacts/${id}`).set(bearer(p.secretKey)).expect(200)).body;
    // a new contact created unsubscribed is no subscription change
    expect(await contact()).toMatchObject({ subscribed: false, data: { plan: 'free', seats: 1, keep: 'x' } });
    const again = await t.http.post('/v1/track').set(key).send({ email: 'UP@example.com', event: 'b', data: { plan: 'pro', seats: null, keep: '' } }).expect(200);
    expect(again.body.data.contact).toBe(id);
    expect(again.body.data.event).not.toBe(first.body.data.event);
    expect(await contact()).toMatchObject({ subscribed: false, data: { plan: 'pro', keep: 'x' } });
    expect((await contact()).data).not.toHaveProperty('seats');
    const bEvent = await eventually(async () => published.find((e) => e.data.eventId === again.body.data.event), 'event b');
    expect(bEvent.data).toMatchObject({ contactId: id, contactCreated: false, properties: { plan: 'pro' } });
    expect(await names()).toEqual(expect.arrayContaining([['a', 1], ['b', 1]]));
    expect((await names()).map(([n]) => n)).not.toContain('contact.subscribed');
    await t.http.post('/v1/track').set(key).send({ email: 'up@example.com', event: 'c', subscribed: true }).expect(200);
    expect((await contact()).subscribed).toBe(true);
    await t.http.post('/v1/track').set(key).send({ email: 'up@example.com', event: 'd', subscribed: true }).expect(200);
    expect(await names()).toEqual(expect.arrayContaining([['contact.subscribed', 1]]));
    const change = await eventually(async () => published.find((e) => e.data.contactId === id && e.data.event === 'contact.subscribed'), 'contact.subscribed');
    expect(change.data).toMatchObject({ projectId: p.id, email: 'up@example.com', properties: null, contactCreated: false });
  });

  it('is idempotent with an Idempotency-Key: one event, the same answer', async () => {
    const body = { email: 'idem@example.com', event: 'paid' };
    const key = randomUUID();
    const first = await t.http.post('/v1/track').set(sk()).set('Idempotency-Key', key).send(body).expect(200);
    const [a, b] = await Promise.all([
      t.http.post('/v1/track').set(sk()).set('Idempotency-Key', key).send(body).expect(200),
      t.http.post('/v1/track').set(bearer(project.publicKey)).set('Idempotency-Key', key).send(body).expect(200),
    ]);
    expect(a.body).toEqual(first.body);
    expect(b.body).toEqual(first.body);
    expect(a.headers['idempotent-replayed']).toBe('true');
    expect((await t.http.post('/v1/track').set(sk()).set('Idempotency-Key', key).send({ ...body, event: 'other' }).expect(409)).body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const events = await t.http.get('/events?name=paid').set(sk()).expect(200);
    expect(events.body.total).toBe(1);
    // after 24 hours a key is free again, and the pruner deletes it
    const ds = t.app.get(Database);
    await ds.affected(`UPDATE ${t.config.DATABASE_SCHEMA}.idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [key]);
    const reused = await t.http.post('/v1/track').set(sk()).set('Idempotency-Key', key).send({ ...body, event: 'other' }).expect(200);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    await ds.affected(`UPDATE ${t.config.DATABASE_SCHEMA}.idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [key]);
    await t.app.get(IdempotencyPruner).drain();
    expect(await ds.rows(`SELECT 1 FROM ${t.config.DATABASE_SCHEMA}.idempotency_keys WHERE key = $1`, [key])).toHaveLength(0);
  });

  it('refuses reserved event names and reserved data keys with 422', async () => {
    for (const event of ['email.opened', 'contact.unsubscribed', 'segment.vip.entry']) {
      const res = await t.http.post('/v1/track').set(sk()).send({ email: 'r@example.com', event }).expect(422);
      expect(res.body.error.errors[0]).toMatchObject({ field: 'event', code: 'reserved_name' });
    }
    expect((await t.http.post('/v1/track').set(sk()).send({ email: 'r@example.com', event: 'ok', data: { subscribed: true } }).expect(422)).body.error.errors[0].field).toBe('data.subscribed');
  });

  it('answers POST /v1/track before Express as the Nest route does (which answers `/v1/track/`)', async () => {
    const { project: p } = await newProject(t, 'Raw track');
    const shape = (res: { status: number; headers: Record<string, string>; text: string }) => ({
      status: res.status,
      headers: Object.entries(res.headers).filter(([name]) => !['date', 'etag', 'content-length', 'ratelimit-remaining', 'ratelimit-reset'].includes(name)),
      body: res.text.replace(/(cnt|evt)_[0-9a-z]+|"timestamp":"[^"]+"/g, '…'),
    });
    const cases: Array<[Record<string, string>, object]> = [
      [bearer(p.publicKey), { email: ' Raw@Example.com', event: 'raw', subscribed: true, data: { plan: 'pro', coupon: { value: 'X', persistent: false } } }],
      [bearer(p.publicKey), { email: 'raw@example.com', event: 'email.sent' }],
      [bearer(p.publicKey), { email: 'raw@example.com', event: 'raw', data: { email: 'x' } }],
      [bearer('pk_unknown'), { email: 'raw@example.com', event: 'raw' }],
      [{}, { email: 'raw@example.com', event: 'raw' }],
    ];
    for (const [auth, body] of cases) {
      const raw = await t.http.post('/v1/track').set(auth).set('X-Request-Id', 'raw-req').send(body);
      const routed = await t.http.post('/v1/track/').set(auth).set('X-Request-Id', 'raw-req').send(body);
      expect([body, shape(raw)]).toEqual([body, shape(routed)]);
    }
    const stored = await t.app.get(Database).rows<{ name: string }>(`SELECT name FROM ${t.config.DATABASE_SCHEMA}.events WHERE project_id = $1 AND name = 'raw'`, [p.id]);
    expect(stored).toHaveLength(2);
  });

  it('lists events, names, stats, usage, events of a contact, and deletes by name', async () => {
    const { project: p } = await newProject(t, 'Event lists');
    const key = bearer(p.secretKey);
    for (const [email, event] of [
      ['e1@example.com', 'viewed'],
      ['e1@example.com', 'viewed'],
      ['e2@example.com', 'viewed'],
      ['e2@example.com', 'bought'],
    ]) {
      await t.http.post('/events/track').set(key).send({ email, event }).expect(200);
    }
    const recent = await t.http.get('/events?limit=3').set(key).expect(200);
    expect(recent.body).toMatchObject({ total: 4, hasMore: true });
    expect(recent.body.data[0]).toMatchObject({ name: 'bought', email: 'e2@example.com', id: expect.stringMatching(/^evt_/) });
    const rest = await t.http.get(`/events?limit=3&cursor=${recent.body.cursor}`).set(key).expect(200);
    expect(rest.body).toMatchObject({ total: 0, hasMore: false });
    expect(rest.body.data).toHaveLength(1);
    const names = await t.http.get('/events/names').set(key).expect(200);
    expect(names.body.map((n: { name: string; count: number }) => [n.name, n.count])).toEqual([
      ['viewed', 3],
      ['bought', 1],
    ]);
    const stats = await t.http.get('/events/stats').set(key).expect(200);
    expect(stats.body).toMatchObject({ total: 4, uniqueNames: 2, uniqueContacts: 2, last24h: 4, topEvents: [{ name: 'viewed', count: 3 }, { name: 'bought', count: 1 }] });
    expect((await t.http.get('/events/viewed/usage').set(key).expect(200)).body).toMatchObject({ name: 'viewed', count: 3, contacts: 2 });
    await t.http.get('/events/never/usage').set(key).expect(404);
    const contactId = recent.body.data[0].contactId;
    const ofContact = await t.http.get(`/events/contact/${contactId}`).set(key).expect(200);
    expect(ofContact.body.data.map((e: { name: string }) => e.name)).toEqual(['bought', 'viewed']);
    await t.http.get(`/events/contact/${contactId}`).set(sk()).expect(404);
    expect((await t.http.delete('/events/viewed').set(key).expect(200)).body).toEqual({ name: 'viewed', deleted: 3 });
    await t.http.delete('/events/viewed').set(key).expect(404);
    expect((await t.http.get('/events').set(key).expect(200)).body.total).toBe(1);
    // another project sees none of it
    expect((await t.http.get('/events/names').set(sk()).expect(200)).body.map((n: { name: string }) => n.name)).not.toContain('bought');
  });

  it('activity: feed, stats, recent count and types', async () => {
    const { project: p } = await newProject(t, 'Activity');
    const key = bearer(p.secretKey);
    await t.http.post('/v1/track').set(key).send({ email: 'act@example.com', event: 'visited' }).expect(200);
    await t.http.post('/v1/send').set(key).send({ to: 'act@example.com', subject: 'Hi', body: 'b' }).expect(200);
    const feed = await t.http.get('/activity').set(key).expect(200);
    expect(feed.body).toMatchObject({ total: 2, hasMore: false });
    expect(feed.body.data.map((a: { type: string; title: string }) => [a.type, a.title])).toEqual([
      ['email.stored', 'Hi'],
      ['event', 'visited'],
    ]);
    expect((await t.http.get('/activity?type=event').set(key).expect(200)).body.total).toBe(1);
    expect((await t.http.get('/activity/types').set(key).expect(200)).body).toEqual(['email.stored', 'event']);
    expect((await t.http.get('/activity/stats').set(key).expect(200)).body).toMatchObject({ total: 2, events: 1, emails: 1, byType: { event: 1, 'email.stored': 1 } });
    expect((await t.http.get('/activity/recent-count').set(key).expect(200)).body.count).toBe(2);
    expect((await t.http.get(`/activity/recent-count?since=${new Date(Date.now() + 60_000).toISOString()}`).set(key).expect(200)).body.count).toBe(0);
    expect((await t.http.get('/activity/recent-count?since=yesterday-ish').set(key).expect(422)).body.error.errors[0].field).toBe('since');
    expect((await t.http.get('/activity').set(sk()).expect(200)).body.data.some((a: { email: string }) => a.email === 'act@example.com')).toBe(false);
  });

  describe('automation events in (consumer email-api.automation)', () => {
    const base = () => ({ accountId: 'acc-1', emailPublicKey: project.publicKey, igUserId: 'ig-42', igUsername: 'ada', automationId: 'auto-1', runId: 'run-1' });

    it('email_captured upserts the contact in the linked project, tracks the event, once per event id', async () => {
      const bus = t.app.get(EventBus);
      const id = randomUUID();
      const data = { ...base(), email: 'Captured@Example.com', automationName: 'Giveaway', tags: ['giveaway', 'ig'] };
      await bus.publish(AutomationEmailCaptured, data, { id });
      await bus.publish(AutomationEmailCaptured, data, { id });
      const contact = await eventually(async () => {
        const res = await t.http.post('/contacts/lookup').set(sk()).send({ emails: ['captured@example.com'] }).expect(200);
        return res.body.found[0];
      }, 'the captured contact');
      const full = await t.http.get(`/contacts/${contact.id}`).set(sk()).expect(200);
      expect(full.body).toMatchObject({ subscribed: true, data: { igUserId: 'ig-42', igUsername: 'ada', automationName: 'Giveaway', tags: ['giveaway', 'ig'] } });
      const events = await eventually(async () => {
        const res = await t.http.get(`/events/contact/${contact.id}`).set(sk()).expect(200);
        return res.body.data.length ? res.body : undefined;
      }, 'the email_captured event');
      expect(events.data.map((e: { name: string }) => e.name)).toEqual(['email_captured']);
      expect(events.data[0].data).toMatchObject({ automationId: 'auto-1', runId: 'run-1' });
      const tracked = await eventually(async () => published.find((e) => e.data.event === 'email_captured'), 'email.event_tracked of the capture');
      expect(tracked.data.projectId).toBe(project.id);
      // tags accumulate across automations
      await bus.publish(AutomationEmailCaptured, { ...data, tags: ['vip'] });
      await eventually(async () => {
        const res = await t.http.get(`/contacts/${contact.id}`).set(sk()).expect(200);
        return (res.body.data.tags as string[]).includes('vip') ? res.body : undefined;
      }, 'the new tag');
      expect((await t.http.get(`/contacts/${contact.id}`).set(sk()).expect(200)).body.data.tags).toEqual(['giveaway', 'ig', 'vip']);
      // the duplicate delivery was handled once
      expect((await t.http.get(`/events/contact/${contact.id}`).set(sk()).expect(200)).body.data).toHaveLength(2);
    });

    it('link_sent and link_clicked are tracked when the email is known; unlinked accounts are ignored', async () => {
      const bus = t.app.get(EventBus);
      await bus.publish(AutomationLinkSent, { ...base(), email: 'linker@example.com', linkUrl: 'https://x.test/a', tracked: true });
      await bus.publish(AutomationLinkClicked, { ...base(), email: 'linker@example.com', linkUrl: 'https://x.test/a', linkIndex: 0, firstClick: true });
      await bus.publish(AutomationLinkClicked, { ...base(), email: null, linkUrl: 'https://x.test/a', linkIndex: 0, firstClick: false });
      await bus.publish(AutomationLinkSent, { ...base(), emailPublicKey: null, email: 'unlinked@example.com', linkUrl: 'https://x.test/b', tracked: false });
      await bus.publish(AutomationLinkSent, { ...base(), emailPublicKey: 'pk_unknown', email: 'unknown@example.com', linkUrl: 'https://x.test/b', tracked: false });
      const names = await eventually(async () => {
        const res = await t.http.get('/events?limit=100').set(sk()).expect(200);
        const mine = res.body.data.filter((e: { email: string }) => e.email === 'linker@example.com').map((e: { name: string }) => e.name);
        return mine.length === 2 ? mine : undefined;
      }, 'the link events');
      expect(names.sort()).toEqual(['link_clicked', 'link_sent']);
      const clicked = (await t.http.get('/events?name=link_clicked').set(sk()).expect(200)).body.data[0];
      expect(clicked.data).toMatchObject({ linkUrl: 'https://x.test/a', linkIndex: 0, firstClick: true });
      const lookup = await t.http.post('/contacts/lookup').set(sk()).send({ emails: ['linker@example.com', 'unlinked@example.com', 'unknown@example.com'] }).expect(200);
      expect(lookup.body.notFound).toEqual(['unlinked@example.com', 'unknown@example.com']);
    });
  });
});
