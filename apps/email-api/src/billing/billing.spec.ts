import { BillingLimitReachedError, consumptionOf, effectiveLimit, monthOf, planAllowance, resetsAt } from './billing';

describe('billing rules', () => {
  it.each([
    ['2026-11-28T10:00:00.000Z', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-31T23:59:59.999Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2027-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'],
    ['2028-02-29T12:00:00.000Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
  ])('months are UTC calendar months: %s is in the month from %s, resetting at %s', (at, start, reset) => {
    expect(monthOf(new Date(at)).toISOString()).toBe(start);
    expect(resetsAt(new Date(at)).toISOString()).toBe(reset);
  });

  it.each([
    [null, null, null],
    [500, null, 500],
    [null, 1000, 1000],
    [500, 1000, 500],
    [5000, 1000, 1000],
  ])('the cap that applies to own %p and plan allowance %p is %p', (own, allowance, expected) => {
    expect(effectiveLimit(own, allowance)).toBe(expected);
  });

  it('applies the plan allowance only with Stripe configured and no active plan', () => {
    expect(planAllowance(false, 'free', 1000)).toBeNull();
    expect(planAllowance(true, 'free', 1000)).toBe(1000);
    expect(planAllowance(true, 'past_due', 1000)).toBe(1000);
    expect(planAllowance(true, 'canceled', 1000)).toBe(1000);
    expect(planAllowance(true, 'active', 1000)).toBeNull();
  });

  it.each([
    [0, 10, { remaining: 10, share: 0, warning: false, reached: false }],
    [7, 10, { remaining: 3, share: 0.7, warning: false, reached: false }],
    [8, 10, { remaining: 2, share: 0.8, warning: true, reached: false }],
    [799, 1000, { remaining: 201, share: 0.799, warning: false, reached: false }],
    [800, 1000, { remaining: 200, share: 0.8, warning: true, reached: false }],
    [10, 10, { remaining: 0, share: 1, warning: true, reached: true }],
    [12, 10, { remaining: 0, share: 1, warning: true, reached: true }],
    [1, 3, { remaining: 2, share: 0.3333, warning: false, reached: false }],
  ])('%i used of %i: %o', (used, limit, expected) => {
    expect(consumptionOf(used, limit)).toEqual({ used, limit, ...expected });
  });

  it('has no share, warning or end when unlimited', () => {
    expect(consumptionOf(123456, null)).toEqual({ used: 123456, limit: null, remaining: null, share: null, warning: false, reached: false });
  });

  it('refuses with 429 BILLING_LIMIT_REACHED naming the category and the reset, Retry-After until then', () => {
    const err = new BillingLimitReachedError('transactional', 100, 99, 2, new Date('2026-12-01T00:00:00Z'), new Date('2026-11-30T23:00:00Z'));
    expect(err.getStatus()).toBe(429);
    expect(err.code).toBe('BILLING_LIMIT_REACHED');
    expect(err.message).toContain('transactional limit of 100');
    expect(err.message).toContain('2026-12-01T00:00:00.000Z');
    expect(err.errors).toEqual([{ field: 'transactional', code: 'limit_reached', message: expect.stringContaining('resets at 2026-12-01T00:00:00.000Z') }]);
    expect(err.headers).toEqual({ 'Retry-After': '3600' });
    expect(err).toMatchObject({ category: 'transactional', limit: 100, used: 99, requested: 2 });
  });
});
