import { Database } from '@platform/database';
import { EmailEventTracked, EventBus, type EmailEventTrackedData, type EventEnvelope } from '@platform/messaging';
import { newId } from '../common/ids';
import { bearer, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { matches, type OracleContact } from '../../test/segment-oracle';
import type { Condition, Filter } from './condition';
import { AudienceRepository } from './audience.repository';

const H = 3_600_000;
const D = 24 * H;

/** Writes contacts with their events and emails straight into the tables (fixed times, no API). */
async function seed(db: Database, projectId: string, contacts: OracleContact[], staticMembers: Map<string, string[]>): Promise<void> {
  await db.affected(
    `INSERT INTO ${db.table('contacts')} (id, project_id, email, subscribed, data, created_at, updated_at)
     SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::boolean[], $5::jsonb[], $6::timestamptz[], $7::timestamptz[])`,
    [
      contacts.map((c) => c.id),
      contacts.map(() => projectId),
      contacts.map((c) => c.email),
      contacts.map((c) => c.subscribed),
      contacts.map((c) => JSON.stringify(c.data)),
      contacts.map((c) => new Date(c.createdAt)),
      contacts.map((c) => new Date(c.updatedAt)),
    ],
  );
  const events = contacts.flatMap((c) => c.events.map((e) => ({ c, e })));
  if (events.length) {
    await db.affected(
      `INSERT INTO ${db.table('events')} (id, project_id, contact_id, name, created_at) SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[])`,
      [events.map(() => newId('evt')), events.map(() => projectId), events.map((x) => x.c.id), events.map((x) => x.e.name), events.map((x) => new Date(x.e.at))],
    );
  }
  const emails = contacts.flatMap((c) => c.emails.map((e) => ({ c, e })));
  const ts = (v: number | null) => (v === null ? null : new Date(v));
  for (const { c, e } of emails) {
    await db.affected(
      `INSERT INTO ${db.table('emails')} (id, project_id, contact_id, kind, source, status, to_email, from_email, subject, html, sent_at, opened_at, clicked_at, bounced_at, complained_at, updated_at)
       VALUES ($1, $2, $3, 'MARKETING', 'API', $4, $5, 'x@x.test', 's', 'b', $6, $7, $8, $9, $10, $11)`,
      [newId('eml'), projectId, c.id, e.status, c.email, ts(e.sentAt), ts(e.openedAt), ts(e.clickedAt), ts(e.bouncedAt), ts(e.complainedAt), new Date(e.updatedAt)],
    );
  }
  for (const [segmentId, ids] of staticMembers) {
    await db.affected(`INSERT INTO ${db.table('segment_members')} (segment_id, contact_id) SELECT $1, unnest($2::text[])`, [segmentId, ids]);
  }
}

function contact(email: string, o: Partial<OracleContact> = {}): OracleContact {
  const now = Date.now();
  return { id: newId('cnt'), email, subscribed: true, data: {}, createdAt: now - D, updatedAt: now - D, events: [], emails: [], staticSegments: [], ...o };
}

describe('segments (e2e)', () => {
  let t: EmailTestApp;
  let project: TestProject;
  let db: Database;
  const sk = () => bearer(project.secretKey);
  const published: Array<EventEnvelope<EmailEventTrackedData>> = [];

  beforeAll(async () => {
    // Projects above 5 contacts recompute as a queued job (the tracked-segment test crosses it).
    t = await startEmailApi({ SEGMENT_COMPUTE_INLINE_MAX: '5' });
    await t.app.get(EventBus).subscribe('segments-observer', [EmailEventTracked], async (e) => {
      published.push(e as EventEnvelope<EmailEventTrackedData>);
    });
    ({ project } = await newProject(t, 'Segments'));
    db = t.app.get(Database);
  });
  afterAll(async () => t?.close());

  describe('every operator on a fixed set of contacts', () => {
    let staticId: string;
    const emails: Record<string, string> = {};
    let byId: Map<string, string>;

    beforeAll(async () => {
      const p = await newProject(t, 'Operators');
      project = p.project;
      const now = Date.now();
      const stat = await t.http.post('/segments').set(sk()).send({ name: 'VIPs', type: 'STATIC' }).expect(201);
      staticId = stat.body.id;
      const a = contact('a@x.test', { createdAt: now - 10 * D, data: { plan: 'pro', score: 50, signup: '2024-05-01T10:00:00Z', lastSeen: new Date(now - 2 * D).toISOString() }, events: [{ name: 'purchase', at: now - D }], emails: [{ status: 'SENT', sentAt: now - D, openedAt: now - D, clickedAt: null, bouncedAt: null, complainedAt: null, updatedAt: now - D }] });
      const b = contact('b@y.test', { subscribed: false, createdAt: now - D, data: { plan: 'free', score: 5, tags: 'Alpha beta' }, events: [{ name: 'signup', at: now - 5 * 60_000 }], emails: [{ status: 'FAILED', sentAt: null, openedAt: null, clickedAt: null, bouncedAt: now - H, complainedAt: null, updatedAt: now - H }] });
      const c = contact('c@x.test', { createdAt: now - 100 * D, data: { plan: 'Pro', vip: true, score: 'high', lastSeen: new Date(now - 40 * D).toISOString() }, events: [{ name: 'purchase', at: now - 30 * D }], emails: [{ status: 'SENT', sentAt: now - 20 * D, openedAt: null, clickedAt: now - 20 * D, bouncedAt: null, complainedAt: now - 19 * D, updatedAt: now - 19 * D }] });
      // d's only mail belonged to a cancelled campaign: never sent, no bounce
      const d = contact('d@z.test', { createdAt: now - 2 * H, emails: [{ status: 'CANCELLED', sentAt: null, openedAt: null, clickedAt: null, bouncedAt: null, complainedAt: null, updatedAt: now - H }] });
      await seed(db, project.id, [a, b, c, d], new Map([[staticId, [d.id]]]));
      for (const x of [a, b, c, d]) emails[x.email[0]] = x.id;
      byId = new Map([a, b, c, d].map((x) => [x.id, x.email[0]]));
    });

    const one = (f: Filter): Condition => ({ logic: 'AND', groups: [{ filters: [f] }] });
    const members = async (cond: Condition) => {
      const res = await t.http.post('/segments').set(sk()).send({ name: `s ${Math.random()}`, type: 'DYNAMIC', condition: cond }).expect(201);
      const page = await t.http.get(`/segments/${res.body.id}/contacts?pageSize=100`).set(sk()).expect(200);
      expect(page.body.total).toBe(res.body.memberCount);
      await t.http.delete(`/segments/${res.body.id}`).set(sk()).expect(204);
      return page.body.data.map((x: { id: string }) => byId.get(x.id)).sort().join('');
    };

    it.each([
      ['equals', { field: 'data.plan', operator: 'equals', value: 'pro' }, 'a'],
      ['equals (email, any case)', { field: 'email', operator: 'equals', value: 'B@Y.test' }, 'b'],
      ['equals (a day of a date field)', { field: 'data.signup', operator: 'equals', value: '2024-05-01' }, 'a'],
      ['equals (boolean)', { field: 'data.vip', operator: 'equals', value: true }, 'c'],
      ['equals (subscribed)', { field: 'subscribed', operator: 'equals', value: false }, 'b'],
      ['notEquals', { field: 'data.plan', operator: 'notEquals', value: 'pro' }, 'bc'],
      ['contains', { field: 'email', operator: 'contains', value: '@x.' }, 'ac'],
      ['contains (custom field, any case)', { field: 'data.tags', operator: 'contains', value: 'ALPHA' }, 'b'],
      ['notContains', { field: 'email', operator: 'notContains', value: '@x.' }, 'bd'],
      ['greaterThan', { field: 'data.score', operator: 'greaterThan', value: 10 }, 'a'],
      ['lessThan', { field: 'data.score', operator: 'lessThan', value: 10 }, 'b'],
      ['greaterThanOrEqual', { field: 'data.score', operator: 'greaterThanOrEqual', value: 50 }, 'a'],
      ['lessThanOrEqual', { field: 'data.score', operator: 'lessThanOrEqual', value: 5 }, 'b'],
      ['exists', { field: 'data.vip', operator: 'exists' }, 'c'],
      ['notExists', { field: 'data.plan', operator: 'notExists' }, 'd'],
      ['within', { field: 'createdAt', operator: 'within', value: 3, unit: 'days' }, 'bd'],
      ['within (a date in a custom field)', { field: 'data.lastSeen', operator: 'within', value: 7, unit: 'days' }, 'a'],
      ['olderThan', { field: 'createdAt', operator: 'olderThan', value: 30, unit: 'days' }, 'c'],
      ['triggered', { field: 'event.purchase', operator: 'triggered' }, 'ac'],
      ['triggeredWithin', { field: 'event.purchase', operator: 'triggeredWithin', value: 7, unit: 'days' }, 'a'],
      ['triggeredOlderThan', { field: 'event.purchase', operator: 'triggeredOlderThan', value: 7, unit: 'days' }, 'c'],
      ['notTriggered', { field: 'event.purchase', operator: 'notTriggered' }, 'bd'],
      ['notTriggeredWithin', { field: 'event.purchase', operator: 'notTriggeredWithin', value: 7, unit: 'days' }, 'bcd'],
      ['triggeredWithin (minutes)', { field: 'event.signup', operator: 'triggeredWithin', value: 30, unit: 'minutes' }, 'b'],
      ['email.sent triggered', { field: 'email.sent', operator: 'triggered' }, 'ac'],
      ['email.opened triggered', { field: 'email.opened', operator: 'triggered' }, 'a'],
      ['email.clicked triggeredWithin', { field: 'email.clicked', operator: 'triggeredWithin', value: 7, unit: 'days' }, ''],
      ['email.bounced triggered', { field: 'email.bounced', operator: 'triggered' }, 'b'],
      ['email.complained triggered', { field: 'email.complained', operator: 'triggered' }, 'c'],
      ['email.delivered triggered', { field: 'email.delivered', operator: 'triggered' }, 'ac'],
    ] as Array<[string, Filter, string]>)('%s', async (_name, filter, expected) => {
      expect(await members(one(filter))).toBe(expected);
    });

    it('memberOfSegment and notMemberOfSegment (static and dynamic segments)', async () => {
      expect(await members(one({ field: `segment.${staticId}`, operator: 'memberOfSegment' }))).toBe('d');
      expect(await members(one({ field: 'segment', operator: 'notMemberOfSegment', value: staticId }))).toBe('abc');
      const dyn = await t.http.post('/segments').set(sk()).send({ name: 'Buyers', type: 'DYNAMIC', condition: one({ field: 'event.purchase', operator: 'triggered' }) }).expect(201);
      expect(await members(one({ field: `segment.${dyn.body.id}`, operator: 'memberOfSegment' }))).toBe('ac');
      // a cycle is refused
      const cycle = await t.http.patch(`/segments/${dyn.body.id}`).set(sk()).send({ condition: one({ field: `segment.${dyn.body.id}`, operator: 'memberOfSegment' }) }).expect(400);
      expect(cycle.body.error.code).toBe('INVALID_CONDITION');
      // a segment referenced by another cannot go
      const ref = await t.http.post('/segments').set(sk()).send({ name: 'Ref', type: 'DYNAMIC', condition: one({ field: `segment.${dyn.body.id}`, operator: 'memberOfSegment' }) }).expect(201);
      await t.http.delete(`/segments/${dyn.body.id}`).set(sk()).expect(409);
      await t.http.delete(`/segments/${ref.body.id}`).set(sk()).expect(204);
      await t.http.delete(`/segments/${dyn.body.id}`).set(sk()).expect(204);
    });

    it('OR of groups, and nested conditions', async () => {
      const cond: Condition = {
        logic: 'OR',
        groups: [
          { filters: [{ field: 'data.plan', operator: 'equals', value: 'free' }] },
          { filters: [{ field: 'subscribed', operator: 'equals', value: true }], conditions: { logic: 'AND', groups: [{ filters: [{ field: 'createdAt', operator: 'within', value: 1, unit: 'days' }] }] } },
        ],
      };
      expect(await members(cond)).toBe('bd');
    });

    it('refuses bad conditions with 400 INVALID_CONDITION, never a 500', async () => {
      const bad: unknown[] = [
        { logic: 'XOR', groups: [] },
        { logic: 'AND', groups: [{ filters: [{ field: 'nope', operator: 'equals', value: 1 }] }] },
        { logic: 'AND', groups: [{ filters: [{ field: 'createdAt', operator: 'within', value: 3 }] }] },
        { logic: 'AND', groups: [{ filters: [{ field: 'event.x', operator: 'equals', value: 1 }] }] },
        { logic: 'AND', groups: [{ filters: [{ field: 'createdAt', operator: 'equals', value: 'not a date' }] }] },
        { logic: 'AND', groups: [{ filters: [{ field: 'segment.00000000-0000-0000-0000-000000000000', operator: 'memberOfSegment' }] }] },
        { logic: 'AND', groups: [{ filters: [{ field: "data.x'; drop table", operator: 'exists' }] }] },
      ];
      for (const condition of bad) {
        const res = await t.http.post('/segments').set(sk()).send({ name: 'bad', type: 'DYNAMIC', condition });
        expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_CONDITION']);
      }
    });

    it('STATIC: no condition on create or patch; members by email; tracked DYNAMIC: compute with entry and exit events; refresh counts only', async () => {
      await t.http.post('/segments').set(sk()).send({ name: 'x', type: 'STATIC', condition: one({ field: 'email', operator: 'exists' }) }).expect(400);
      await t.http.post('/segments').set(sk()).send({ name: 'x', type: 'DYNAMIC' }).expect(400);
      const stat = await t.http.post('/segments').set(sk()).send({ name: 'Static list', type: 'STATIC' }).expect(201);
      expect(stat.body).toMatchObject({ type: 'STATIC', condition: null, memberCount: 0 });
      await t.http.patch(`/segments/${stat.body.id}`).set(sk()).send({ condition: one({ field: 'email', operator: 'exists' }) }).expect(400);
      const added = await t.http.post(`/segments/${stat.body.id}/members`).set(sk()).send({ emails: ['a@x.test', 'B@y.test', 'new@w.test'] }).expect(200);
      expect(added.body).toEqual({ added: 2, created: 0, notFound: ['new@w.test'] });
      const created = await t.http.post(`/segments/${stat.body.id}/members`).set(sk()).send({ emails: ['a@x.test', 'new@w.test'], createMissing: true, subscribed: false }).expect(200);
      expect(created.body).toEqual({ added: 1, created: 1, notFound: [] });
      expect((await t.http.get(`/segments/${stat.body.id}`).set(sk()).expect(200)).body.memberCount).toBe(3);
      const removed = await t.http.delete(`/segments/${stat.body.id}/members`).set(sk()).send({ emails: ['a@x.test', 'ghost@w.test'] }).expect(200);
      expect(removed.body).toEqual({ removed: 1, notFound: ['ghost@w.test'] });
      await t.http.post(`/segments/${stat.body.id}/members`).set(sk()).send({ emails: Array.from({ length: 501 }, (_, i) => `u${i}@w.test`) }).expect(422);

      const tracked = await t.http.post('/segments').set(sk()).send({ name: 'Pro Plan!', type: 'DYNAMIC', trackMembership: true, condition: one({ field: 'data.plan', operator: 'equals', value: 'pro' }) }).expect(201);
      expect(tracked.body).toMatchObject({ slug: 'pro-plan', memberCount: 1 });
      const first = await t.http.post(`/segments/${tracked.body.id}/compute`).set(sk()).expect(200);
      expect(first.body).toEqual({ added: 1, removed: 0, total: 1 });
      expect((await t.http.post(`/segments/${tracked.body.id}/compute`).set(sk()).expect(200)).body).toEqual({ added: 0, removed: 0, total: 1 });
      await t.http.patch(`/segments/${tracked.body.id}`).set(sk()).send({ condition: one({ field: 'data.plan', operator: 'equals', value: 'free' }) }).expect(200);
      const eventsBefore = await db.rows(`SELECT name, contact_id, data FROM ${db.table('events')} WHERE project_id = $1 AND name LIKE 'segment.%' ORDER BY name`, [project.id]);
      const second = await t.http.post(`/segments/${tracked.body.id}/compute`).set(sk()).expect(200);
      expect(second.body).toEqual({ added: 1, removed: 1, total: 1 });
      const events = await db.rows<{ name: string; contact_id: string; data: unknown }>(`SELECT name, contact_id, data FROM ${db.table('events')} WHERE project_id = $1 AND name LIKE 'segment.%' ORDER BY created_at, name`, [project.id]);
      expect(eventsBefore).toHaveLength(1);
      expect(events.map((e) => [e.name, byId.get(e.contact_id)])).toEqual([
        ['segment.pro-plan.entry', 'a'],
        ['segment.pro-plan.entry', 'b'],
        ['segment.pro-plan.exit', 'a'],
      ]);
      expect(events[0].data).toEqual({ segmentId: tracked.body.id, segmentName: 'Pro Plan!' });
      // each entry and exit event reached the bus (through the outbox) as email.event_tracked
      const stored = await db.rows<{ id: string; name: string; contact_id: string }>(`SELECT id, name, contact_id FROM ${db.table('events')} WHERE project_id = $1 AND name LIKE 'segment.%'`, [project.id]);
      const onBus = await eventually(async () => {
        const mine = published.filter((e) => e.data.projectId === project.id && e.data.event.startsWith('segment.'));
        return mine.length >= stored.length ? mine : undefined;
      }, 'the segment events on the bus');
      expect(onBus.map((e) => [e.data.eventId, e.data.event, e.data.contactId]).sort()).toEqual(stored.map((e) => [e.id, e.name, e.contact_id]).sort());
      expect(onBus[0].data).toMatchObject({ properties: { segmentId: tracked.body.id, segmentName: 'Pro Plan!' }, contactCreated: false, email: expect.stringMatching(/@/) });
      // refresh: the count only, no events, no membership writes
      const untracked = await t.http.post('/segments').set(sk()).send({ name: 'Untracked', type: 'DYNAMIC', condition: one({ field: 'email', operator: 'exists' }) }).expect(201);
      await t.http.post(`/segments/${untracked.body.id}/compute`).set(sk()).expect(400);
      const countBefore = await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('segment_members')}`);
      const eventCount = await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('events')}`);
      await seed(db, project.id, [contact('e@z.test')], new Map());
      const refreshed = await t.http.post(`/segments/${untracked.body.id}/refresh`).set(sk()).expect(200);
      expect(refreshed.body.memberCount).toBe(untracked.body.memberCount + 1);
      expect(await db.one(`SELECT count(*)::int AS n FROM ${db.table('segment_members')}`)).toEqual(countBefore);
      expect(await db.one(`SELECT count(*)::int AS n FROM ${db.table('events')}`)).toEqual(eventCount);
      // six contacts now (above SEGMENT_COMPUTE_INLINE_MAX): the recompute is a queued job
      await seed(db, project.id, [contact('f@z.test', { data: { plan: 'free' } })], new Map());
      const queued = await t.http.post(`/segments/${tracked.body.id}/compute`).set(sk()).expect(202);
      expect(queued.body).toEqual({ jobId: expect.stringMatching(/^job_/), total: 7, message: expect.any(String) });
      const job = await eventually(async () => {
        const r = await t.http.get(`/segments/${tracked.body.id}/compute/${queued.body.jobId}`).set(sk()).expect(200);
        return r.body.state === 'completed' ? r.body : undefined;
      }, 'the recompute job to complete');
      expect(job).toMatchObject({ type: 'SEGMENT_COMPUTE', progress: 100, result: { added: 1, removed: 0, total: 2 } });
      await t.http.get(`/segments/${untracked.body.id}/compute/${queued.body.jobId}`).set(sk()).expect(404);
      await eventually(async () => published.some((e) => e.data.event === 'segment.pro-plan.entry' && e.data.email === 'f@z.test'), 'the job\'s entry event on the bus');
      // pages
      const page = await t.http.get(`/segments/${untracked.body.id}/contacts?page=2&pageSize=2`).set(sk()).expect(200);
      expect(page.body).toMatchObject({ total: 7, page: 2, pageSize: 2, totalPages: 4 });
      expect(page.body.data).toHaveLength(2);
      await t.http.get(`/segments/${untracked.body.id}/contacts?pageSize=101`).set(sk()).expect(422);
      const list = await t.http.get('/segments').set(sk()).expect(200);
      expect(list.body.length).toBeGreaterThanOrEqual(4);
    });

    it('isolates projects', async () => {
      const other = await newProject(t, 'Other segments');
      const mine = (await t.http.get('/segments').set(sk()).expect(200)).body[0];
      await t.http.get(`/segments/${mine.id}`).set(bearer(other.project.secretKey)).expect(404);
      await t.http.get(`/segments/${mine.id}/contacts`).set(bearer(other.project.secretKey)).expect(404);
      await t.http.delete(`/segments/${mine.id}`).set(bearer(other.project.secretKey)).expect(404);
      expect((await t.http.get('/segments').set(bearer(other.project.secretKey)).expect(200)).body).toEqual([]);
      await t.http.get('/segments').set(bearer(project.publicKey)).expect(401);
      await t.http.get('/segments/not-a-uuid').set(sk()).expect(404);
    });
  });

  it('property: the compiled count equals a brute-force filter over random contacts and random conditions', async () => {
    const p = await newProject(t, 'Random');
    let seedValue = 20261124;
    const rand = () => {
      seedValue = (seedValue * 1103515245 + 12345) % 2 ** 31;
      return seedValue / 2 ** 31;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const now = Date.now();
    // Times sit half a unit away from whole units, so `now` moving between the query and the check never flips a result.
    const at = (maxDays: number) => now - (Math.floor(rand() * maxDays) + 0.5) * D;
    const statId = (await t.http.post('/segments').set(bearer(p.project.secretKey)).send({ name: 'Random static', type: 'STATIC' }).expect(201)).body.id;
    const plans = ['free', 'pro', 'Pro', 'team', 'enterprise'];
    const contacts: OracleContact[] = Array.from({ length: 400 }, (_, i) => {
      const data: Record<string, unknown> = {};
      if (rand() < 0.8) data.plan = pick(plans);
      if (rand() < 0.7) data.score = Math.floor(rand() * 100);
      else if (rand() < 0.3) data.score = pick(['high', 'low', '42']);
      if (rand() < 0.5) data.lastSeen = new Date(at(60)).toISOString();
      else if (rand() < 0.2) data.lastSeen = 'never';
      if (rand() < 0.3) data.vip = rand() < 0.5;
      if (rand() < 0.4) data.signup = `2024-0${1 + Math.floor(rand() * 3)}-1${Math.floor(rand() * 3)}T08:00:00Z`;
      if (rand() < 0.3) data.address = { city: pick(['Paris', 'Oslo', 'Lima']) };
      const events = Array.from({ length: Math.floor(rand() * 4) }, () => ({ name: pick(['purchase', 'login', 'signup']), at: at(90) }));
      const emails = Array.from({ length: Math.floor(rand() * 3) }, () => {
        const status = pick(['SENT', 'SENT', 'FAILED', 'QUEUED']);
        const sentAt = status === 'SENT' ? at(60) : null;
        return { status, sentAt, openedAt: sentAt && rand() < 0.5 ? sentAt : null, clickedAt: sentAt && rand() < 0.3 ? sentAt : null, bouncedAt: null, complainedAt: sentAt && rand() < 0.1 ? sentAt : null, updatedAt: at(60) };
      });
      const c = contact(`user${i}@${pick(['gmail.test', 'acme.test', 'corp.test'])}`, { subscribed: rand() < 0.7, data, createdAt: at(120), updatedAt: at(30), events, emails });
      if (rand() < 0.25) c.staticSegments.push(statId);
      return c;
    });
    await seed(db, p.project.id, contacts, new Map([[statId, contacts.filter((c) => c.staticSegments.length).map((c) => c.id)]]));

    const unit = () => pick(['days', 'hours', 'minutes'] as const);
    const n = (u: string) => (u === 'days' ? 1 + Math.floor(rand() * 60) : u === 'hours' ? 1 + Math.floor(rand() * 400) : 1 + Math.floor(rand() * 5000));
    const randomFilter = (): Filter => {
      const f = anyFilter();
      return f.operator === 'exists' || f.operator === 'notExists' ? { field: f.field, operator: f.operator } : f;
    };
    const anyFilter = (): Filter => {
      const kind = Math.floor(rand() * 12);
      const u = unit();
      switch (kind) {
        case 0:
          return { field: 'email', operator: pick(['equals', 'notEquals', 'contains', 'notContains', 'exists', 'notExists'] as const), value: pick(['gmail', 'user1', 'user3@acme.test', '@corp.']) } as Filter;
        case 1:
          return { field: 'subscribed', operator: pick(['equals', 'notEquals'] as const), value: rand() < 0.5 };
        case 2:
          return { field: pick(['createdAt', 'updatedAt']), operator: pick(['within', 'olderThan'] as const), value: n(u), unit: u };
        case 3:
          return { field: 'data.plan', operator: pick(['equals', 'notEquals', 'contains', 'notContains', 'exists', 'notExists', 'greaterThan', 'lessThanOrEqual'] as const), value: pick(plans) } as Filter;
        case 4:
          return { field: 'data.score', operator: pick(['equals', 'notEquals', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'] as const), value: Math.floor(rand() * 100) };
        case 5:
          return { field: 'data.lastSeen', operator: pick(['within', 'olderThan'] as const), value: n(u), unit: u };
        case 6:
          return { field: 'data.signup', operator: pick(['equals', 'notEquals'] as const), value: `2024-0${1 + Math.floor(rand() * 3)}-1${Math.floor(rand() * 3)}` };
        case 7:
          return { field: pick(['data.vip', 'data.address.city']), operator: pick(['exists', 'notExists'] as const) };
        case 8: {
          const op = pick(['triggered', 'notTriggered', 'triggeredWithin', 'triggeredOlderThan', 'notTriggeredWithin'] as const);
          const f: Filter = { field: `event.${pick(['purchase', 'login', 'signup', 'never'])}`, operator: op };
          return op === 'triggered' || op === 'notTriggered' ? f : { ...f, value: n(u), unit: u };
        }
        case 9: {
          const op = pick(['triggered', 'notTriggered', 'triggeredWithin', 'triggeredOlderThan', 'notTriggeredWithin'] as const);
          const f: Filter = { field: `email.${pick(['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'])}`, operator: op };
          return op === 'triggered' || op === 'notTriggered' ? f : { ...f, value: n(u), unit: u };
        }
        case 10:
          return { field: `segment.${statId}`, operator: pick(['memberOfSegment', 'notMemberOfSegment'] as const) };
        default:
          return { field: 'data.address.city', operator: pick(['equals', 'contains', 'notEquals'] as const), value: pick(['Paris', 'os', 'Lima']) } as Filter;
      }
    };
    const randomCondition = (depth: number): Condition => ({
      logic: rand() < 0.5 ? 'AND' : 'OR',
      groups: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
        filters: Array.from({ length: 1 + Math.floor(rand() * 3) }, randomFilter),
        ...(depth < 2 && rand() < 0.3 ? { conditions: randomCondition(depth + 1) } : {}),
      })),
    });
    const segments = new Map([[statId, { type: 'STATIC', condition: null }]]);
    const repo = t.app.get(AudienceRepository);
    let nonTrivial = 0;
    for (let i = 0; i < 300; i++) {
      const cond = randomCondition(0);
      const compiled = await repo.count(p.project.id, { kind: 'condition', condition: cond, selfId: null });
      const expected = contacts.filter((c) => matches(c, cond, Date.now(), segments)).length;
      if (compiled !== expected) throw new Error(`condition ${JSON.stringify(cond)}: SQL counted ${compiled}, brute force ${expected}`);
      if (expected > 0 && expected < contacts.length) nonTrivial += 1;
    }
    expect(nonTrivial).toBeGreaterThan(100);
  });
});
