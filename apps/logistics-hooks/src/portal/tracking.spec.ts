import { parseTrackingNumber, summariseTracking, type TaskFact } from './tracking';

describe('parseTrackingNumber', () => {
  it.each([
    ['CSQU3054383', 'container', null],
    ['csqu 305438-3', 'container', null],
    ['MSCU1234566', 'container', 'MSC'],
    ['MEDUAB123456', 'reference', 'MSC'],
    ['987654321', 'reference', null],
  ])('%s is a %s', (input, kind, carrier) => {
    const parsed = parseTrackingNumber(input);
    expect(parsed).toMatchObject({ ok: true, kind });
    if (parsed.ok) expect(parsed.carrier?.code ?? null).toBe(carrier);
  });

  it.each([
    ['MSCU1234567', 'check digit should be 6'],
    ['ABC', 'not a container'],
    ['BOOKING', 'not a container'],
    ['A'.repeat(21) + '1', 'not a container'],
  ])('%s is refused', (input, reason) => {
    const parsed = parseTrackingNumber(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toContain(reason);
  });
});

describe('summariseTracking', () => {
  const fact = (over: Partial<TaskFact>): TaskFact => ({
    status: 'PENDING',
    priority: 'MEDIUM',
    category: 'TRACKING',
    updated_at: '2026-11-23T10:00:00.000Z',
    references: { containers: [], bills_of_lading: [], bookings: [] },
    ...over,
  });

  it.each<[string, TaskFact[], string]>([
    ['no tasks', [], 'NO_RECORDS'],
    ['an open HIGH task', [fact({ priority: 'HIGH' }), fact({ status: 'DONE' })], 'ATTENTION'],
    ['a done HIGH task and an open MEDIUM one', [fact({ priority: 'HIGH', status: 'DONE' }), fact({ status: 'IN_PROGRESS' })], 'FOLLOW_UP'],
    ['only done tasks', [fact({ status: 'DONE' }), fact({ status: 'DONE', priority: 'HIGH' })], 'CLEAR'],
  ])('%s → %s', (_name, tasks, status) => {
    expect(summariseTracking('CSQU3054383', 'container', tasks).status).toBe(status);
  });

  it('tells bills of lading and bookings apart and reports counts', () => {
    const tasks = [
      fact({ references: { containers: [], bills_of_lading: [], bookings: ['987654321'] }, category: 'CUSTOMS', updated_at: '2026-11-24T08:00:00.000Z' }),
      fact({ references: { containers: [], bills_of_lading: [], bookings: ['987654321'] }, status: 'DONE' }),
    ];
    expect(summariseTracking('987654321', 'reference', tasks)).toEqual({
      kind: 'booking',
      status: 'FOLLOW_UP',
      found: true,
      records: 2,
      open_records: 1,
      open_categories: ['CUSTOMS'],
      last_update: '2026-11-24T08:00:00.000Z',
    });
    expect(summariseTracking('MEDUAB123456', 'reference', [fact({ references: { containers: [], bills_of_lading: ['MEDUAB123456'], bookings: [] } })]).kind).toBe('bill_of_lading');
    expect(summariseTracking('X1234567', 'reference', []).kind).toBe('reference');
  });
});
