import { MemoryRateLimiter } from './memory-rate-limiter';

describe('MemoryRateLimiter', () => {
  let now = 1_000_000;
  const limiter = () => new MemoryRateLimiter({ now: () => now });
  beforeEach(() => {
    now = 1_000_000;
  });

  describe('hit', () => {
    it('allows the limit per window, counts refused requests too, and tells the time left', async () => {
      const l = limiter();
      expect(await l.hit('p', 3, 60_000)).toEqual({ allowed: true, limit: 3, remaining: 2, resetMs: 60_000 });
      await l.hit('p', 3, 60_000);
      expect(await l.hit('p', 3, 60_000)).toMatchObject({ allowed: true, remaining: 0 });
      now += 15_500;
      expect(await l.hit('p', 3, 60_000)).toEqual({ allowed: false, limit: 3, remaining: 0, resetMs: 44_500 });
      expect((await l.hit('other', 3, 60_000)).allowed).toBe(true);
    });

    it('starts a new window when the old one has ended', async () => {
      const l = limiter();
      for (let i = 0; i < 4; i++) await l.hit('p', 3, 60_000);
      now += 60_000;
      expect(await l.hit('p', 3, 60_000)).toMatchObject({ allowed: true, remaining: 2, resetMs: 60_000 });
    });

    it('rejects a bad window or limit', async () => {
      await expect(limiter().hit('p', 3, 0)).rejects.toThrow(RangeError);
      await expect(limiter().hit('p', -1, 1000)).rejects.toThrow(/limit/);
    });
  });

  describe('hitAll', () => {
    const rules = (ip: string, account: string) => [
      { key: `ip:${ip}`, limit: 5 },
      { key: `acct:${ip}:${account}`, limit: 3 },
    ];

    it('counts on every key while all are within their limits, and nowhere once one is over', async () => {
      const l = limiter();
      for (let i = 0; i < 3; i++) expect((await l.hitAll(rules('1.1.1.1', 'a'), 60_000)).every((d) => d.allowed)).toBe(true);
      now += 15_000;
      const [ip, acct] = await l.hitAll(rules('1.1.1.1', 'a'), 60_000);
      expect(ip).toEqual({ allowed: true, limit: 5, remaining: 2, resetMs: 45_000 });
      expect(acct).toEqual({ allowed: false, limit: 3, remaining: 0, resetMs: 45_000 });
      // the refused attempts were not counted on the IP: two more accounts still pass
      for (let i = 0; i < 5; i++) await l.hitAll(rules('1.1.1.1', 'a'), 60_000);
      expect((await l.hitAll(rules('1.1.1.1', 'b'), 60_000)).every((d) => d.allowed)).toBe(true);
      expect((await l.hitAll(rules('1.1.1.1', 'c'), 60_000)).every((d) => d.allowed)).toBe(true);
      expect((await l.hitAll(rules('1.1.1.1', 'd'), 60_000))[0]).toMatchObject({ allowed: false, remaining: 0 });
    });
  });

  describe('peekAll', () => {
    it('tells what hitAll would decide without counting anything', async () => {
      const l = limiter();
      expect(await l.peekAll([{ key: 'p', limit: 2 }], 60_000)).toEqual([{ allowed: true, limit: 2, remaining: 2, resetMs: 60_000 }]);
      await l.hitAll([{ key: 'p', limit: 2 }], 60_000);
      await l.hitAll([{ key: 'p', limit: 2 }], 60_000);
      const peeked = await l.peekAll([{ key: 'p', limit: 2 }, { key: 'q', limit: 2 }], 60_000);
      expect(peeked.map((d) => [d.allowed, d.remaining])).toEqual([[false, 0], [true, 2]]);
      expect(l.size).toBe(1);
      expect((await l.hitAll([{ key: 'q', limit: 2 }], 60_000))[0].remaining).toBe(1);
    });
  });

  describe('hitSliding (a sliding window over two aligned ones)', () => {
    const at = (ms: number) => {
      const clock = { t: ms };
      const l = new MemoryRateLimiter({ now: () => clock.t });
      return { clock, hit: (key = 'p') => l.hitSliding(key, 10, 60_000, clock.t) };
    };
    const burst = async (hit: () => Promise<{ allowed: boolean }>, n: number) => {
      let allowed = 0;
      for (let i = 0; i < n; i++) if ((await hit()).allowed) allowed += 1;
      return allowed;
    };

    it('lets at most the limit through around a window boundary (a fixed window let twice as many)', async () => {
      const { clock, hit } = at(60_000 * 1000 + 59_000);
      expect(await burst(hit, 15)).toBe(10);
      clock.t += 2_000; // 1 s into the next aligned window: the previous one still weighs 59/60
      expect(await burst(hit, 15)).toBe(0);
      clock.t += 30_000; // half way: half of the previous window has slid out
      expect(await burst(hit, 15)).toBe(5);
    });

    it('counts no refused request, answers remaining and a retry time that lets the next request in', async () => {
      const { clock, hit } = at(60_000 * 2000);
      expect(await hit()).toMatchObject({ allowed: true, limit: 10, remaining: 9, resetMs: 60_000 });
      await burst(hit, 9);
      const refused = await hit();
      expect(refused).toMatchObject({ allowed: false, remaining: 0 });
      clock.t += refused.resetMs - 1;
      expect((await hit()).allowed).toBe(false);
      clock.t += 1;
      expect((await hit()).allowed).toBe(true);
    });

    it('keeps keys apart', async () => {
      const { hit } = at(60_000 * 3000);
      expect(await burst(hit, 12)).toBe(10);
      expect((await hit('other')).allowed).toBe(true);
    });
  });

  it('prunes expired windows, so memory is bounded by the recent keys', async () => {
    const l = new MemoryRateLimiter({ now: () => now, sweepEveryMs: 1000 });
    for (let i = 0; i < 100; i++) await l.hit(`k${i}`, 10, 1000);
    expect(l.size).toBe(100);
    now += 1000;
    await l.hit('fresh', 10, 1000);
    expect(l.size).toBe(1);
  });
});
