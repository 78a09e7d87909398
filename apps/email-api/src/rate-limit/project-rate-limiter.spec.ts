import { MemoryRateLimiter } from '@platform/rate-limit';
import { ProjectRateLimiter, slidingWindow } from './project-rate-limiter';

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

describe('ProjectRateLimiter (sliding window over the shared limiter)', () => {
  const at = (ms: number) => {
    const clock = { t: ms };
    const memory = new MemoryRateLimiter({ now: () => clock.t });
    return { clock, limiter: new ProjectRateLimiter(memory, 10, 60_000, () => clock.t) };
  };
  const burst = async (l: ProjectRateLimiter, n: number) => {
    let allowed = 0;
    for (let i = 0; i < n; i++) if ((await l.hit('p')).allowed) allowed += 1;
    return allowed;
  };

  it('lets at most the limit through around a window boundary (a fixed window let twice as many)', async () => {
    const { clock, limiter } = at(60_000 * 1000 + 59_000);
    expect(await burst(limiter, 15)).toBe(10);
    clock.t += 2_000; // 1 s into the next aligned window: the previous one still weighs 59/60
    expect(await burst(limiter, 15)).toBe(0);
    clock.t += 30_000; // half way: half of the previous window has slid out
    expect(await burst(limiter, 15)).toBe(5);
  });

  it('counts no refused request, answers remaining and a retry time that lets the next request in', async () => {
    const { clock, limiter } = at(60_000 * 2000);
    const first = await limiter.hit('p');
    expect(first).toMatchObject({ allowed: true, limit: 10, remaining: 9 });
    await burst(limiter, 9);
    const refused = await limiter.hit('p');
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    clock.t += refused.resetMs - 1;
    expect((await limiter.hit('p')).allowed).toBe(false);
    clock.t += 1;
    expect((await limiter.hit('p')).allowed).toBe(true);
  });

  it('keeps projects apart', async () => {
    const { limiter } = at(60_000 * 3000);
    expect(await burst(limiter, 12)).toBe(10);
    expect((await limiter.hit('other')).allowed).toBe(true);
  });
});
