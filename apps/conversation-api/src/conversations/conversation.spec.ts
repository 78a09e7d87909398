import { isTransientDeliveryError, retryDelayMs, statusAfterIncoming } from './conversation';

describe('statusAfterIncoming', () => {
  it.each([
    ['resolved', 'open'],
    ['snoozed', 'open'],
    ['open', 'open'],
    ['pending', 'pending'],
  ] as const)('%s → %s', (from, to) => {
    expect(statusAfterIncoming(from)).toBe(to);
  });
});

describe('isTransientDeliveryError', () => {
  it.each([
    [undefined, true, true, 'no answer (unreachable, timeout)'],
    [500, true, true, 'provider failure'],
    [503, true, true, 'provider unavailable'],
    [429, true, true, 'throttled'],
    [408, true, true, 'request timeout'],
    [400, true, false, 'message refused (e.g. outside the 24-hour window)'],
    [401, true, false, 'bad token'],
    [404, true, false, 'unknown number id'],
    [undefined, false, false, 'never reached the provider (no channel, no address)'],
  ] as Array<[number | undefined, boolean, boolean, string]>)('%s (reached: %s) → %s: %s', (status, reached, transient) => {
    expect(isTransientDeliveryError(status, reached)).toBe(transient);
  });
});

describe('retryDelayMs', () => {
  it.each([
    [1, 5000, 5000],
    [2, 5000, 10_000],
    [3, 5000, 20_000],
    [20, 5000, 3_600_000],
    [0, 100, 100],
  ])('after attempt %i with base %i waits %i ms', (attempt, base, delay) => {
    expect(retryDelayMs(attempt, base)).toBe(delay);
  });
});
