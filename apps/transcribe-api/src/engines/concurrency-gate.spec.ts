import { ConcurrencyGate, GateClosedError } from './concurrency-gate';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ConcurrencyGate', () => {
  let clock = 0;
  const gate = (over: Partial<ConstructorParameters<typeof ConcurrencyGate>[0]> = {}) =>
    new ConcurrencyGate({ limit: 1, queueSize: 1, maxWaitMs: 60_000, defaultCallSeconds: 10, now: () => clock, ...over });

  beforeEach(() => {
    clock = 0;
  });

  it('runs up to the limit, queues up to the line size in order, and refuses the rest with a Retry-After estimate', async () => {
    const g = gate({ limit: 2, queueSize: 1 });
    const calls = [deferred(), deferred(), deferred()];
    const order: number[] = [];
    const runs = calls.map((d, i) => g.run(async () => { order.push(i); await d.promise; }));
    await Promise.resolve();
    expect([g.active, g.waiting]).toEqual([2, 1]);
    const refused = await g.run(async () => undefined).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GateClosedError);
    // 2 running + 1 waiting on 2 slots: the newcomer is 2nd in line for a slot → 1 × 10 s
    expect(refused).toMatchObject({ reason: 'busy', retryAfterSeconds: 10 });
    calls[0].resolve();
    await runs[0];
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([0, 1, 2]);
    expect([g.active, g.waiting]).toEqual([2, 0]);
    calls[1].resolve();
    calls[2].resolve();
    await Promise.all(runs);
    expect([g.active, g.waiting]).toEqual([0, 0]);
  });

  it('learns the mean call time for its estimate', async () => {
    const g = gate({ queueSize: 0 });
    await g.run(async () => {
      clock += 4000;
    });
    const d = deferred();
    const running = g.run(() => d.promise);
    await expect(g.run(async () => undefined)).rejects.toMatchObject({ retryAfterSeconds: 4 });
    d.resolve();
    await running;
  });

  it('gives up a wait after maxWaitMs, and when the caller leaves', async () => {
    const g = gate({ maxWaitMs: 5, queueSize: 5 });
    const d = deferred();
    const running = g.run(() => d.promise);
    await expect(g.run(async () => undefined)).rejects.toMatchObject({ reason: 'timeout' });
    const controller = new AbortController();
    const waiting = g.run(async () => 'never', controller.signal);
    expect(g.waiting).toBe(1);
    controller.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    expect(g.waiting).toBe(0);
    d.resolve();
    await running;
    expect(g.active).toBe(0);
  });

  it('frees the slot when the call throws', async () => {
    const g = gate();
    await expect(g.run(async () => { throw new Error('engine down'); })).rejects.toThrow('engine down');
    expect(g.active).toBe(0);
    await expect(g.run(async () => 'ok')).resolves.toBe('ok');
  });
});
