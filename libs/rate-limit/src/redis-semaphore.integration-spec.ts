import { createTestRedisPrefix, testServices, type TestRedisPrefix } from '@platform/testing';
import Redis from 'ioredis';
import { RedisSemaphore, SemaphoreRefusedError, type RedisSemaphoreOptions, type SemaphorePermit } from './redis-semaphore';

const { redisUrl } = testServices();
/** Redis calls may wait this long: a loaded machine can hold an answer past the default second, and these tests are not about that. */
const timeoutMs = 10_000;

/** Resolves once `check` holds, polling; fails after 5 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

if (redisUrl) describe('RedisSemaphore (real Redis)', () => {
  let t: TestRedisPrefix;
  let a: Redis;
  let b: Redis;
  let n = 0;
  beforeAll(() => {
    t = createTestRedisPrefix();
    a = new Redis(t.url!);
    b = new Redis(t.url!);
  });
  afterAll(async () => {
    await t.cleanup();
    a.disconnect();
    b.disconnect();
  });

  /** Two processes' views of one fresh semaphore, each on its own connection. */
  const pair = (opts: Omit<RedisSemaphoreOptions, 'key'>) => {
    const key = `${t.prefix}sem${++n}:`;
    return [new RedisSemaphore(a, { key, timeoutMs, ...opts }), new RedisSemaphore(b, { key, timeoutMs, ...opts })] as const;
  };

  it('lets `limit` callers in across processes, queues the rest and serves every one', async () => {
    const [one, two] = pair({ limit: 2, queueSize: 10, pollMs: 10 });
    let inside = 0;
    let most = 0;
    const work = async (sem: RedisSemaphore) => {
      const permit = await sem.acquire({ maxWaitMs: 10_000 });
      inside += 1;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 30));
      inside -= 1;
      await permit.release();
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => work(i % 2 ? one : two)));
    expect(most).toBe(2);
    expect(await one.counts()).toEqual({ holders: 0, waiting: 0 });
  });

  it('serves the waiting line in arrival order, whichever process a caller is in', async () => {
    const [one, two] = pair({ limit: 1, queueSize: 5, pollMs: 10 });
    const first = await one.acquire({ maxWaitMs: 0 });
    const order: string[] = [];
    const wait = (sem: RedisSemaphore, name: string) =>
      sem.acquire({ maxWaitMs: 10_000 }).then(async (p) => {
        order.push(name);
        await p.release();
      });
    const waiters: Array<Promise<void>> = [];
    for (const [sem, name] of [[two, 'b1'], [one, 'a1'], [two, 'b2']] as const) {
      waiters.push(wait(sem, name));
      const expected = waiters.length;
      await until(`${name} in line`, async () => (await one.counts()).waiting === expected);
    }
    await first.release();
    await Promise.all(waiters);
    expect(order).toEqual(['b1', 'a1', 'b2']);
  });

  it('refuses at once when the line is full, and after the wait when no slot came, leaving the line as it was', async () => {
    const [one, two] = pair({ limit: 1, queueSize: 1, pollMs: 10 });
    const held = await one.acquire({ maxWaitMs: 0 });
    await expect(two.acquire({ maxWaitMs: 0 })).rejects.toMatchObject({ reason: 'busy', holders: 1, waiting: 0 });
    const waiting = two.acquire({ maxWaitMs: 150 });
    await until('a waiter', async () => (await one.counts()).waiting === 1);
    await expect(one.acquire({ maxWaitMs: 5_000 })).rejects.toMatchObject({ reason: 'busy', holders: 1, waiting: 1 });
    const refused = await waiting.catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(SemaphoreRefusedError);
    expect(refused).toMatchObject({ reason: 'timeout' });
    expect(await one.counts()).toEqual({ holders: 1, waiting: 0 });
    await held.release();
    await held.release(); // a second release does nothing
    expect(await one.counts()).toEqual({ holders: 0, waiting: 0 });
  });

  it('takes a caller whose signal aborts out of the line', async () => {
    const [one, two] = pair({ limit: 1, queueSize: 3, pollMs: 10 });
    const held = await one.acquire({ maxWaitMs: 0 });
    const controller = new AbortController();
    const waiting = two.acquire({ maxWaitMs: 10_000, signal: controller.signal });
    await until('a waiter', async () => (await one.counts()).waiting === 1);
    controller.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    expect(await one.counts()).toEqual({ holders: 1, waiting: 0 });
    await held.release();
  });

  it('frees the slots of a process that died once their lease ends, and keeps a live holder\'s lease renewed', async () => {
    const key = `${t.prefix}sem${++n}:`;
    const opts = { key, limit: 2, queueSize: 2, leaseMs: 2_000, pollMs: 20, timeoutMs };
    const dying = new Redis(t.url!);
    const lost = await new RedisSemaphore(dying, opts).acquire({ maxWaitMs: 0 });
    const live = new RedisSemaphore(a, opts);
    const kept: SemaphorePermit = await live.acquire({ maxWaitMs: 0 });
    dying.disconnect(); // its renewals stop; `lost` is never released
    expect(lost.held).toBe(true); // as far as the dead process knew
    const taken = await new RedisSemaphore(b, opts).acquire({ maxWaitMs: 10_000 });
    // The dead process's slot went; the live holder's, renewed meanwhile and for more than a lease after, stayed.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(kept.held).toBe(true);
    expect(await live.counts()).toEqual({ holders: 2, waiting: 0 });
    await expect(live.acquire({ maxWaitMs: 0 })).rejects.toMatchObject({ reason: 'busy' });
    await Promise.all([kept.release(), taken.release()]);
  });

  it('hands a slot released in the same process to its waiter without waiting for the next poll', async () => {
    const key = `${t.prefix}sem${++n}:`;
    // A poll once a minute: only the release's own wake-up can let the waiter in within the test.
    const sem = new RedisSemaphore(a, { key, limit: 1, queueSize: 1, pollMs: 60_000, timeoutMs });
    const held = await sem.acquire({ maxWaitMs: 0 });
    const waiting = sem.acquire({ maxWaitMs: 120_000 });
    await until('a waiter', async () => (await sem.counts()).waiting === 1);
    await held.release();
    const next = await waiting;
    expect(next.held).toBe(true);
    await next.release();
  });

  it('refuses a limit below 1 and a negative line', () => {
    expect(() => new RedisSemaphore(a, { key: 'x:', limit: 0, queueSize: 0 })).toThrow(/limit/);
    expect(() => new RedisSemaphore(a, { key: 'x:', limit: 1, queueSize: -1 })).toThrow(/queueSize/);
  });
});
