import type { ConditionConfig } from '../step-config';
import { evaluateCondition, fieldValue, mailStepsOf, type ConditionFacts } from './condition';

const STEP = '3f2a9c1b-0000-4000-8000-000000000001';

const facts = (over: Partial<ConditionFacts> = {}): ConditionFacts => ({
  contact: { email: 'ada@example.com', subscribed: true, data: { plan: 'pro', seats: 12, score: '7.5', tags: ['vip', 'Beta'], trialEnds: '2026-03-01', nested: { level: { deep: 'x' } }, empty: null } },
  event: { amount: 40, currency: 'EUR', items: ['book'], at: '2026-01-15T10:00:00Z' },
  mail: new Map([[STEP, { opened: true, clicked: false }]]),
  ...over,
});

const when = (field: string, operator: ConditionConfig['operator'], value?: unknown) => evaluateCondition({ field, operator, value }, facts());

describe('evaluateCondition', () => {
  it.each<[string, ConditionConfig['operator'], unknown, boolean]>([
    // contact fields
    ['contact.email', 'equals', 'ada@example.com', true],
    ['contact.email', 'equals', 'ADA@example.com', false],
    ['contact.email', 'contains', 'EXAMPLE', true],
    ['contact.email', 'not_contains', 'example', false],
    ['contact.subscribed', 'equals', true, true],
    ['contact.subscribed', 'not_equals', true, false],
    // custom fields: strings, numbers, numeric strings, arrays, nesting
    ['contact.data.plan', 'equals', 'pro', true],
    ['contact.data.plan', 'not_equals', 'free', true],
    ['contact.data.plan', 'in', ['free', 'pro'], true],
    ['contact.data.plan', 'in', ['free'], false],
    ['contact.data.seats', 'gt', 10, true],
    ['contact.data.seats', 'gte', 12, true],
    ['contact.data.seats', 'lt', 12, false],
    ['contact.data.seats', 'lte', '12', true],
    ['contact.data.seats', 'equals', '12', true],
    ['contact.data.score', 'gt', 7, true],
    ['contact.data.tags', 'contains', 'vip', true],
    ['contact.data.tags', 'contains', 'beta', true],
    ['contact.data.tags', 'not_contains', 'gold', true],
    ['contact.data.trialEnds', 'lt', '2026-03-02', true],
    ['contact.data.trialEnds', 'gt', '2026-03-02T00:00:00Z', false],
    ['contact.data.nested.level.deep', 'equals', 'x', true],
    ['contact.data.plan', 'exists', undefined, true],
    ['contact.data.plan', 'not_exists', undefined, false],
    // a missing field (absent or null) matches only not_exists
    ['contact.data.missing', 'not_exists', undefined, true],
    ['contact.data.empty', 'not_exists', undefined, true],
    ['contact.data.empty', 'exists', undefined, false],
    ['contact.data.missing', 'not_equals', 'x', false],
    ['contact.data.missing', 'not_contains', 'x', false],
    ['contact.data.missing', 'lt', 5, false],
    ['contact.data.missing', 'in', ['x'], false],
    ['contact.data.plan.below', 'exists', undefined, false],
    // values that cannot be ordered never match a comparison
    ['contact.data.plan', 'gt', 5, false],
    ['contact.data.tags', 'lt', 'z', false],
    // the triggering event's data
    ['event.amount', 'gte', 40, true],
    ['event.currency', 'in', ['USD', 'EUR'], true],
    ['event.items', 'contains', 'book', true],
    ['event.at', 'gt', '2026-01-01', true],
    ['event.nothing', 'exists', undefined, false],
    // mail facts of this execution
    [`email.${STEP}.opened`, 'equals', true, true],
    [`email.${STEP}.clicked`, 'equals', false, true],
    [`email.${STEP}.clicked`, 'not_equals', true, true],
    ['email.3f2a9c1b-0000-4000-8000-000000000002.opened', 'equals', false, true],
    // an unknown field is missing
    ['nonsense', 'exists', undefined, false],
  ])('%s %s %j → %s', (field, operator, value, expected) => {
    expect(when(field, operator, value)).toBe(expected);
  });

  it('reads mail facts only for mail fields', () => {
    expect(mailStepsOf({ field: `email.${STEP}.opened`, operator: 'equals', value: true })).toEqual([STEP]);
    expect(mailStepsOf({ field: 'contact.email', operator: 'exists' })).toEqual([]);
  });

  it('a manual start reads its context as the event', () => {
    expect(fieldValue({ field: 'event.source', operator: 'exists' }, facts({ event: { source: 'import' } }))).toBe('import');
  });
});
