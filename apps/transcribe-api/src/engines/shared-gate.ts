import { SemaphoreRefusedError, type RedisSemaphore } from '@platform/rate-limit';
import { GateClosedError, RecentCalls, retryAfterSeconds, type ConcurrencyGate, type SyncGate } from './concurrency-gate';

export interface SharedConcurrencyGateOptions {
  /** slots of the engine across every API process (the semaphore's limit) */
  limit: number;
  maxWaitMs: number;
  defaultCallSeconds: number;
  /** told when Redis failed and a call went through the process's own gate instead */
  onRedisError?: (err: unknown) => void;
}

/**
 * The engine's bound shared by every API process on one Redis (a RedisSemaphore: slots leased,
 * one waiting line in arrival order), so that N replicas still send the engine at most `limit`
 * synchronous calls. While Redis fails, calls go through `fallback`, this process's own gate of
 * the same limit: the bound is then per process, as without Redis, and never gone.
 */
export class SharedConcurrencyGate implements SyncGate {
  private running = 0;
  private queued = 0;
  private readonly recent: RecentCalls;

  constructor(
    private readonly semaphore: RedisSemaphore,
    private readonly fallback: ConcurrencyGate,
    private readonly opts: SharedConcurrencyGateOptions,
  ) {
    this.recent = new RecentCalls(opts.defaultCallSeconds);
  }

  get active(): number {
    return this.running + this.fallback.active;
  }

  get waiting(): number {
    return this.queued + this.fallback.waiting;
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let permit;
    this.queued += 1;
    try {
      permit = await this.semaphore.acquire({ maxWaitMs: this.opts.maxWaitMs, signal });
    } catch (err) {
      if (err instanceof SemaphoreRefusedError) {
        throw new GateClosedError(err.reason, retryAfterSeconds(err.holders, err.waiting, this.opts.limit, this.recent.average), err.holders, err.waiting);
      }
      if (signal?.aborted) throw err;
      this.opts.onRedisError?.(err);
      return this.fallback.run(fn, signal);
    } finally {
      this.queued -= 1;
    }
    this.running += 1;
    const started = performance.now();
    try {
      return await fn();
    } finally {
      this.running -= 1;
      this.recent.note((performance.now() - started) / 1000);
      // Not waited for: the answer does not depend on it. A release Redis does not take ends with
      // the lease (30 s), which is all the harm: nothing to tell.
      void permit.release().catch(() => undefined);
    }
  }
}
