import { SemaphoreRefusedError, type RedisSemaphore, type SemaphorePermit } from '@platform/rate-limit';
import { ConcurrencyGate, GateClosedError } from './concurrency-gate';
import { SharedConcurrencyGate } from './shared-gate';

/** A semaphore whose acquire() does what the test says. */
function semaphore(acquire: () => Promise<SemaphorePermit>): RedisSemaphore {
  return { acquire } as unknown as RedisSemaphore;
}

const own = () => new ConcurrencyGate({ limit: 1, queueSize: 0, maxWaitMs: 0, defaultCallSeconds: 10 });

describe('SharedConcurrencyGate', () => {
  it('runs the call in the shared slot and releases it', async () => {
    const release = jest.fn(async () => undefined);
    const gate = new SharedConcurrencyGate(semaphore(async () => ({ release, held: true })), own(), { limit: 2, maxWaitMs: 1000, defaultCallSeconds: 10 });
    await expect(gate.run(async () => 'text')).resolves.toBe('text');
    expect(release).toHaveBeenCalledTimes(1);
    await expect(gate.run(async () => Promise.reject(new Error('engine down')))).rejects.toThrow('engine down');
    expect(release).toHaveBeenCalledTimes(2);
    expect([gate.active, gate.waiting]).toEqual([0, 0]);
  });

  it('answers a refusal of the shared line with the counts of every replica and a Retry-After from them', async () => {
    const gate = new SharedConcurrencyGate(semaphore(async () => Promise.reject(new SemaphoreRefusedError('busy', 2, 3))), own(), { limit: 2, maxWaitMs: 1000, defaultCallSeconds: 10 });
    const refused = await gate.run(async () => 'never').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(GateClosedError);
    // 2 running + 3 waiting on 2 slots: the newcomer is 4th in line → 2 × 10 s
    expect(refused).toMatchObject({ reason: 'busy', active: 2, waiting: 3, retryAfterSeconds: 20 });
  });

  it('falls back to the process\'s own bound while Redis fails, and says so', async () => {
    const told: unknown[] = [];
    const fallback = own();
    const gate = new SharedConcurrencyGate(semaphore(async () => Promise.reject(new Error('Redis did not answer within 300 ms'))), fallback, {
      limit: 1,
      maxWaitMs: 0,
      defaultCallSeconds: 10,
      onRedisError: (err) => told.push(err),
    });
    let finish!: () => void;
    const running = gate.run(() => new Promise<string>((resolve) => (finish = () => resolve('text'))));
    await new Promise((r) => setImmediate(r));
    expect(fallback.active).toBe(1);
    // The own bound holds: a second call is refused, not sent.
    await expect(gate.run(async () => 'never')).rejects.toBeInstanceOf(GateClosedError);
    finish();
    await expect(running).resolves.toBe('text');
    expect(told).toHaveLength(2);
  });

  it('passes a caller leaving the line on as it is', async () => {
    const controller = new AbortController();
    controller.abort(new Error('client left'));
    const gate = new SharedConcurrencyGate(semaphore(async () => Promise.reject(controller.signal.reason)), own(), { limit: 1, maxWaitMs: 1000, defaultCallSeconds: 10 });
    await expect(gate.run(async () => 'never', controller.signal)).rejects.toThrow('client left');
  });
});
