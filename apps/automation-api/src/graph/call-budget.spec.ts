import { AccountLimiter, SlidingWindowBudget, parseUsageHeaders } from './call-budget';

describe('SlidingWindowBudget', () => {
  it('queues acquisitions beyond the limit and serves them in order once slots return', async () => {
    const budget = new SlidingWindowBudget(2, 3_600_000);
    const r1 = await budget.acquire();
    await budget.acquire();
    const order: number[] = [];
    const third = budget.acquire().then(() => order.push(3));
    const fourth = budget.acquire().then(() => order.push(4));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(budget.used()).toBe(2);
    r1();
    await third;
    expect(order).toEqual([3]);
    expect(budget.tryAcquire()).toBeNull();
    budget.dispose();
    void fourth;
  });

  it('frees slots when the window passes (injected clock)', () => {
    let now = 1_000;
    const budget = new SlidingWindowBudget(1, 100, () => now);
    expect(budget.tryAcquire()).not.toBeNull();
    expect(budget.tryAcquire()).toBeNull();
    expect(budget.waitMs()).toBe(100);
    now += 100;
    expect(budget.waitMs()).toBe(0);
    expect(budget.tryAcquire()).not.toBeNull();
  });
});

describe('AccountLimiter', () => {
  it('never runs more than `concurrency` calls at once and runs every queued call', async () => {
    const limiter = new AccountLimiter({ concurrency: 2, callsPerHour: 100 });
    let active = 0;
    let max = 0;
    const gates: Array<() => void> = [];
    const task = (i: number) =>
      limiter.run(async () => {
        active += 1;
        max = Math.max(max, active);
        await new Promise<void>((r) => gates.push(r));
        active -= 1;
        return i;
      });
    let done = 0;
    const all = Promise.all([0, 1, 2, 3, 4].map((i) => task(i).finally(() => (done += 1))));
    while (done < 5) {
      await new Promise((r) => setImmediate(r));
      gates.splice(0).forEach((g) => g());
    }
    await expect(all).resolves.toEqual([0, 1, 2, 3, 4]);
    expect(max).toBe(2);
    limiter.dispose();
  });

  it('holds calls while paused (expected wait reported)', () => {
    let now = 0;
    const limiter = new AccountLimiter({ concurrency: 1, callsPerHour: 10, now: () => now });
    limiter.pause(5_000);
    expect(limiter.expectedWaitMs()).toBe(5_000);
    now = 5_000;
    expect(limiter.expectedWaitMs()).toBe(0);
    limiter.dispose();
  });
});

describe('parseUsageHeaders', () => {
  it('reads the business use case header', () => {
    const usage = parseUsageHeaders({
      'x-business-use-case-usage': JSON.stringify({ '1784': [{ type: 'instagram', call_count: 40, total_cputime: 96, total_time: 10, estimated_time_to_regain_access: 3 }] }),
    });
    expect(usage).toMatchObject({ percent: 96, regainMinutes: 3 });
  });
  it('reads the app usage header and ignores garbage', () => {
    expect(parseUsageHeaders({ 'x-app-usage': '{"call_count":12,"total_time":3,"total_cputime":1}' })).toMatchObject({ percent: 12, regainMinutes: 0 });
    expect(parseUsageHeaders({ 'x-app-usage': 'not json' })).toBeUndefined();
    expect(parseUsageHeaders({})).toBeUndefined();
  });
});
