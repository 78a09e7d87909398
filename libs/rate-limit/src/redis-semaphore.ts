import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { DEFAULT_REDIS_TIMEOUT_MS } from './redis-rate-limiter';
import { withinMs } from './redis-timeout';

/**
 * One step of a caller on the semaphore, atomic in Redis, on Redis's clock (replicas' clocks never
 * meet). KEYS: holders (zset: token → lease deadline), waiters (zset: token → ticket), alive (zset:
 * token → the deadline of a waiter's next poll), the ticket counter. ARGV: token, limit, size of the
 * waiting line, lease ms, ms a waiter stays without polling, `join` or `poll`, ms the keys outlive
 * their last use. Expired leases and waiters that stopped polling are dropped first; the first
 * (limit − holders) waiters by ticket may take a slot. Returns {state, holders, waiting} with state
 * 1 granted, 0 refused (the line is full), 2 waiting, 3 no longer in the line (a `poll` that came
 * after its waiter was dropped).
 */
const STEP_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local holders, waiters, alive, seq = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local token, limit, size = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local lease, aliveMs, mode, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7])
redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', alive, '-inf', now)
for _, w in ipairs(gone) do redis.call('ZREM', waiters, w) end
if #gone > 0 then redis.call('ZREMRANGEBYSCORE', alive, '-inf', now) end
local held = redis.call('ZCARD', holders)
local queued = redis.call('ZCARD', waiters)
local rank = redis.call('ZRANK', waiters, token)
local state
if not rank then
  if mode == 'poll' then return {3, held, queued} end
  if queued == 0 and held < limit then
    state = 1
  elseif queued >= size then
    return {0, held, queued}
  else
    redis.call('ZADD', waiters, redis.call('INCR', seq), token)
    rank = queued
    queued = queued + 1
  end
end
if state ~= 1 and rank < limit - held then
  redis.call('ZREM', waiters, token)
  redis.call('ZREM', alive, token)
  queued = queued - 1
  state = 1
end
if state == 1 then
  redis.call('ZADD', holders, now + lease, token)
  held = held + 1
else
  redis.call('ZADD', alive, now + aliveMs, token)
  state = 2
end
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ttl) end
return {state, held, queued}
`;

/** Extends a held lease. KEYS: holders; ARGV: token, lease ms, key ms. Returns 1, or 0 when the lease was lost. */
const RENEW_SCRIPT = `
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local t = redis.call('TIME')
redis.call('ZADD', KEYS[1], tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

export interface RedisSemaphoreOptions {
  /** Prefix of the semaphore's keys, e.g. `transcribe-api:sync:whisper:` (one per guarded resource). */
  key: string;
  /** Callers holding a slot at once, across every process on this Redis. */
  limit: number;
  /** Callers waiting at most, across every process; beyond them acquire() is refused at once. */
  queueSize: number;
  /** A slot's lease, renewed every third of it while held (default 30 s): a process that dies frees its slots within it. */
  leaseMs?: number;
  /** How often a waiter asks again (default 100 ms); a waiter silent for ten times as long loses its place. */
  pollMs?: number;
  /** A call that Redis has not answered within this many ms fails (default 1000). */
  timeoutMs?: number;
}

/** acquire() refused: the waiting line was full (`busy`) or no slot came within the wait (`timeout`); the counts as Redis last gave them. */
export class SemaphoreRefusedError extends Error {
  constructor(
    readonly reason: 'busy' | 'timeout',
    readonly holders: number,
    readonly waiting: number,
  ) {
    super(reason === 'busy' ? 'every slot is taken and the waiting line is full' : 'no slot became free in time');
    this.name = 'SemaphoreRefusedError';
  }
}

/** A held slot. release() frees it (once; later calls do nothing). */
export interface SemaphorePermit {
  release(): Promise<void>;
  /** false once a renewal found the lease gone (Redis lost it, or this process stalled longer than the lease). */
  readonly held: boolean;
}

/**
 * A counting semaphore shared by every process on one Redis: at most `limit` holders at once, a
 * waiting line of at most `queueSize` served in arrival order (tickets), slots leased and renewed
 * while held so that a crashed process frees its slots. Waiters poll (`pollMs`), and a release in
 * the same process wakes its waiters at once. Redis errors are thrown as they are: the caller
 * decides how to degrade.
 */
export class RedisSemaphore {
  private readonly keys: [string, string, string, string];
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly redis: Redis,
    private readonly opts: RedisSemaphoreOptions,
  ) {
    if (!Number.isInteger(opts.limit) || opts.limit < 1) throw new Error(`semaphore limit must be a positive integer, got ${opts.limit}`);
    if (!Number.isInteger(opts.queueSize) || opts.queueSize < 0) throw new Error(`semaphore queueSize must be an integer ≥ 0, got ${opts.queueSize}`);
    this.keys = [`${opts.key}holders`, `${opts.key}waiters`, `${opts.key}alive`, `${opts.key}seq`];
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.pollMs = opts.pollMs ?? 100;
  }

  /** How long a waiter keeps its place without asking again. */
  private get aliveMs(): number {
    return this.pollMs * 10 + (this.opts.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS);
  }

  /** How long the keys outlive their last use. */
  private get keyTtlMs(): number {
    return 2 * Math.max(this.leaseMs, this.aliveMs);
  }

  /**
   * A slot, now or after waiting in line at most `maxWaitMs` (0: no waiting); SemaphoreRefusedError
   * when the line is full or the wait ends; `signal` takes the caller out of the line.
   */
  async acquire(opts: { maxWaitMs: number; signal?: AbortSignal }): Promise<SemaphorePermit> {
    opts.signal?.throwIfAborted();
    const token = randomUUID();
    const size = opts.maxWaitMs > 0 ? this.opts.queueSize : 0;
    const deadline = Date.now() + Math.max(0, opts.maxWaitMs);
    let [state, holders, waiting] = await this.step(token, 'join', size);
    if (state === 0) throw new SemaphoreRefusedError('busy', holders, waiting);
    try {
      while (state !== 1) {
        const left = deadline - Date.now();
        if (left <= 0) throw new SemaphoreRefusedError('timeout', holders, waiting);
        await this.pause(Math.min(this.pollMs, left), opts.signal);
        opts.signal?.throwIfAborted();
        // Dropped from the line (this process stalled past `aliveMs`): back in at its end.
        [state, holders, waiting] = await this.step(token, 'poll', size);
        if (state === 3) [state, holders, waiting] = await this.step(token, 'join', size);
        if (state === 0) throw new SemaphoreRefusedError('busy', holders, waiting);
      }
    } catch (err) {
      await this.remove(token).catch(() => undefined);
      throw err;
    }
    return this.permit(token);
  }

  /** Holders and waiters now (expired ones still counted until the next step drops them). */
  async counts(): Promise<{ holders: number; waiting: number }> {
    const [holders, waiting] = await this.withTimeout(Promise.all([this.redis.zcard(this.keys[0]), this.redis.zcard(this.keys[1])]));
    return { holders, waiting };
  }

  private async step(token: string, mode: 'join' | 'poll', size: number): Promise<[number, number, number]> {
    const out = (await this.withTimeout(
      this.redis.eval(STEP_SCRIPT, 4, ...this.keys, token, String(this.opts.limit), String(size), String(this.leaseMs), String(this.aliveMs), mode, String(this.keyTtlMs)),
    )) as number[];
    return [Number(out[0]), Number(out[1]), Number(out[2])];
  }

  private async remove(token: string): Promise<void> {
    await this.withTimeout(this.redis.multi().zrem(this.keys[0], token).zrem(this.keys[1], token).zrem(this.keys[2], token).exec());
  }

  private permit(token: string): SemaphorePermit {
    let held = true;
    let released = false;
    const renewal = setInterval(() => {
      this.withTimeout(this.redis.eval(RENEW_SCRIPT, 1, this.keys[0], token, String(this.leaseMs), String(this.keyTtlMs))).then(
        (ok) => {
          if (Number(ok) !== 1) held = false;
        },
        () => undefined, // the next renewal tries again; the lease covers two missed ones
      );
    }, Math.max(1, Math.floor(this.leaseMs / 3)));
    renewal.unref();
    return {
      get held() {
        return held && !released;
      },
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renewal);
        try {
          await this.remove(token);
        } finally {
          for (const wake of [...this.wakers]) wake();
        }
      },
    };
  }

  /** `ms`, or less when a slot of this process is released or `signal` aborts. */
  private pause(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private withTimeout<T>(work: Promise<T>): Promise<T> {
    return withinMs(work, this.opts.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS);
  }
}
