import type { Database } from '@platform/database';
import { AudienceRepository, ConditionCompiler } from './audience.repository';
import { ConditionError, type Condition, type SegmentRef } from './condition';

const tables = { events: 's.events', emails: 's.emails', segmentMembers: 's.segment_members', tryTimestamp: 's.try_timestamptz' };
const STATIC_ID = '11111111-1111-1111-1111-111111111111';
const DYNAMIC_ID = '22222222-2222-2222-2222-222222222222';
const LOOP_A = '33333333-3333-3333-3333-333333333333';
const LOOP_B = '44444444-4444-4444-4444-444444444444';

const one = (field: string, operator: string, value?: unknown, unit?: string): Condition =>
  ({ logic: 'AND', groups: [{ filters: [{ field, operator, ...(value !== undefined ? { value } : {}), ...(unit ? { unit } : {}) }] }] }) as Condition;

const segments = new Map<string, SegmentRef>([
  [STATIC_ID, { id: STATIC_ID, type: 'STATIC', condition: null }],
  [DYNAMIC_ID, { id: DYNAMIC_ID, type: 'DYNAMIC', condition: one('subscribed', 'equals', true) }],
  [LOOP_A, { id: LOOP_A, type: 'DYNAMIC', condition: one(`segment.${LOOP_B}`, 'memberOfSegment') }],
  [LOOP_B, { id: LOOP_B, type: 'DYNAMIC', condition: one(`segment.${LOOP_A}`, 'memberOfSegment') }],
]);

function compile(condition: Condition, stack: string[] = []) {
  const params: unknown[] = [];
  const sql = new ConditionCompiler(tables, segments).compile(condition, params, stack);
  return { sql, params };
}

describe('ConditionCompiler', () => {
  it.each([
    ['email equals (lower-cased)', one('email', 'equals', 'A@X.io'), '((c.email = lower($1)))', ['A@X.io']],
    ['email contains (LIKE characters escaped)', one('email', 'contains', '50%_off'), '((c.email ILIKE $1))', ['%50\\%\\_off%']],
    ['email exists', one('email', 'exists'), "((c.email <> ''))", []],
    ['subscribed notEquals', one('subscribed', 'notEquals', false), '((c.subscribed <> $1::boolean))', [false]],
    ['a day is the whole UTC day', one('createdAt', 'equals', '2026-01-02'), '(((c.created_at >= $1::timestamptz AND c.created_at < ($1::timestamptz + interval \'1 day\'))))', ['2026-01-02T00:00:00Z']],
    ['a timestamp compares exactly', one('updatedAt', 'lessThan', '2026-01-02T03:04:05Z'), '((c.updated_at < $1::timestamptz))', ['2026-01-02T03:04:05.000Z']],
    ['within counts back from now', one('createdAt', 'within', 3, 'days'), '((c.created_at >= now() - make_interval(days => $1::int)))', [3]],
  ])('%s', (_name, condition, sql, params) => {
    expect(compile(condition)).toEqual({ sql, params });
  });

  it('compares a numeric data field as a number, of number values only', () => {
    const { sql, params } = compile(one('data.score', 'greaterThan', 50));
    expect(sql).toBe("((coalesce(jsonb_typeof((c.data #> $1::text[])) = 'number' AND (c.data #>> $1::text[])::numeric > $2::numeric, false)))");
    expect(params).toEqual([['score'], 50]);
  });

  it('joins groups with the logic and nests conditions', () => {
    const condition: Condition = {
      logic: 'OR',
      groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }], conditions: one('email', 'exists') }, { filters: [{ field: 'email', operator: 'notExists' }] }],
    };
    expect(compile(condition).sql).toBe("((c.subscribed = $1::boolean AND ((c.email <> ''))) OR (c.email = ''))");
  });

  it('checks events of the contact by name, with triggeredOlderThan meaning "and not since"', () => {
    const { sql, params } = compile(one('event.signed_up', 'triggeredOlderThan', 2, 'hours'));
    expect(sql).toBe(
      '(((EXISTS (SELECT 1 FROM s.events ev WHERE ev.contact_id = c.id AND ev.name = $1 AND ev.created_at < now() - make_interval(hours => $2::int)) AND NOT EXISTS (SELECT 1 FROM s.events ev WHERE ev.contact_id = c.id AND ev.name = $1 AND ev.created_at >= now() - make_interval(hours => $2::int)))))',
    );
    expect(params).toEqual(['signed_up', 2]);
  });

  it('checks email activity on the emails table', () => {
    expect(compile(one('email.opened', 'triggered')).sql).toBe('((EXISTS (SELECT 1 FROM s.emails em WHERE em.contact_id = c.id AND em.opened_at IS NOT NULL)))');
  });

  it('reads STATIC membership from segment_members and inlines a DYNAMIC segment\'s condition', () => {
    const stat = compile(one(`segment.${STATIC_ID}`, 'memberOfSegment'));
    expect(stat.sql).toBe('((coalesce(EXISTS (SELECT 1 FROM s.segment_members sm WHERE sm.segment_id = $1::uuid AND sm.contact_id = c.id AND sm.exited_at IS NULL), false)))');
    expect(stat.params).toEqual([STATIC_ID]);
    expect(compile(one('segment', 'notMemberOfSegment', DYNAMIC_ID)).sql).toBe('((NOT coalesce(((c.subscribed = $1::boolean)), false)))');
  });

  it('refuses unknown segments and cycles, including a segment referring to itself', () => {
    expect(() => compile(one('segment.55555555-5555-5555-5555-555555555555', 'memberOfSegment'))).toThrow(ConditionError);
    expect(() => compile(one(`segment.${LOOP_A}`, 'memberOfSegment'))).toThrow(/cycle/);
    expect(() => compile(one(`segment.${DYNAMIC_ID}`, 'memberOfSegment'), [DYNAMIC_ID])).toThrow(/cycle/);
  });

  it('answers 400 INVALID_CONDITION', () => {
    try {
      compile(one(`segment.${LOOP_A}`, 'memberOfSegment'));
      throw new Error('compiled a cycle');
    } catch (err) {
      expect(err).toBeInstanceOf(ConditionError);
      expect((err as ConditionError).getStatus()).toBe(400);
      expect((err as ConditionError).code).toBe('INVALID_CONDITION');
    }
  });
});

describe('AudienceRepository', () => {
  function fakeDatabase(segmentRows: SegmentRef[] = []) {
    const statements: Array<{ text: string; params: unknown[] }> = [];
    const db = {
      table: (name: string) => `s.${name}`,
      one: async (text: string, params: unknown[]) => (statements.push({ text, params }), { n: 7 }),
      rows: async (text: string, params: unknown[]) => (statements.push({ text, params }), text.includes('FROM s.segments') ? segmentRows : []),
    };
    return { repo: new AudienceRepository(db as unknown as Database, { enqueued: () => undefined } as never, 'email-api'), statements };
  }

  it('counts a condition with the project as $1 and the condition\'s parameters from $2 on', async () => {
    const { repo, statements } = fakeDatabase();
    expect(await repo.count('p1', { kind: 'condition', condition: one('email', 'equals', 'a@x.io'), selfId: null }, true)).toBe(7);
    expect(statements).toEqual([{ text: 'SELECT count(*)::int AS n FROM s.contacts c WHERE c.project_id = $1 AND ((c.email = lower($2))) AND c.subscribed', params: ['p1', 'a@x.io'] }]);
  });

  it('takes every contact for the audience "all"', async () => {
    const { repo, statements } = fakeDatabase();
    await repo.count('p1', { kind: 'all' });
    expect(statements[0]).toEqual({ text: 'SELECT count(*)::int AS n FROM s.contacts c WHERE c.project_id = $1 AND TRUE', params: ['p1'] });
  });

  it('loads the project\'s segments only when the condition references one', async () => {
    const { repo, statements } = fakeDatabase([{ id: STATIC_ID, type: 'STATIC', condition: null }]);
    await repo.count('p1', { kind: 'segment', segment: { id: DYNAMIC_ID, type: 'DYNAMIC', condition: one('subscribed', 'equals', true) } });
    expect(statements).toHaveLength(1);
    await repo.count('p1', { kind: 'condition', condition: one(`segment.${STATIC_ID}`, 'memberOfSegment'), selfId: null });
    expect(statements[1]).toEqual({ text: 'SELECT id, type, condition FROM s.segments WHERE project_id = $1', params: ['p1'] });
    expect(statements[2].params).toEqual(['p1', STATIC_ID]);
  });

  it('puts the fan-out cursor after the condition\'s parameters', async () => {
    const { repo, statements } = fakeDatabase();
    await repo.recipients('p1', { kind: 'condition', condition: one('email', 'contains', 'x'), selfId: null }, 'cnt_9', 500);
    expect(statements[0].text).toContain('AND ((c.email ILIKE $2)) AND c.subscribed');
    expect(statements[0].text).toContain('AND ($3::text IS NULL OR c.id > $3) ORDER BY c.id LIMIT 500');
    expect(statements[0].params).toEqual(['p1', '%x%', 'cnt_9']);
  });

  it('refuses an unknown segment before running anything', async () => {
    const { repo, statements } = fakeDatabase([]);
    await expect(repo.check('p1', { kind: 'condition', condition: one(`segment.${STATIC_ID}`, 'memberOfSegment'), selfId: null })).rejects.toThrow(ConditionError);
    expect(statements.map((s) => s.text)).toEqual(['SELECT id, type, condition FROM s.segments WHERE project_id = $1']);
  });
});
