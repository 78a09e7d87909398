import { slidingWindow } from './sliding-window';

describe('slidingWindow', () => {
  it.each([
    // previous, current, elapsed of 60 s, limit → budget, retry
    ['fresh window', 0, 0, 0, 10, 10, 1],
    ['previous window full, at its end', 10, 0, 0, 10, 0, 6_000],
    ['previous full, half way: half of it still weighs', 10, 0, 30_000, 10, 5, 1],
    ['previous 4, 45 s in', 4, 0, 45_000, 10, 9, 1],
    ['current full: retry in the next window, once the current one decays', 0, 10, 30_000, 10, 10, 30_000 + 6_000],
  ])('%s', (_name, previous, current, elapsedMs, limit, budget, retryMs) => {
    const w = slidingWindow({ previous, current, elapsedMs, windowMs: 60_000, limit });
    expect(w.budget).toBe(budget);
    expect(w.retryMs).toBe(retryMs);
    expect(w.resetMs).toBe(60_000 - elapsedMs || 60_000);
  });
});
