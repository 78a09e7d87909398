import type Redis from 'ioredis';
import { closeRedis } from './redis-client';
import { withinMs } from './redis-timeout';
import { assertLimit, assertWindow, decision, RateLimiter, slidingDecision, type RateLimitDecision, type RateLimitRule } from './rate-limiter';
import { alignedWindows, previousWeight } from './sliding-window';

/** When the script counts: every request, only when every key is within its limit, or never (peek). */
type CountMode = 'always' | 'all-within' | 'never';

/**
 * The one script of the adapter, atomic in Redis (so replicas share exact counts).
 * KEYS: the counters. ARGV[1]: window in ms; ARGV[2]: the CountMode; ARGV[3…]: the limit of each key.
 * Returns, per key, {count after this request, ms left in the window, 1 when within the limit}.
 */
const HIT_SCRIPT = `
local window = tonumber(ARGV[1])
local mode = ARGV[2]
local counts, ttls, within = {}, {}, {}
local all = mode ~= 'never'
for i = 1, #KEYS do
  local ttl = redis.call('PTTL', KEYS[i])
  local count = 0
  if ttl == -2 then
    ttl = window
  else
    count = tonumber(redis.call('GET', KEYS[i])) or 0
    if ttl == -1 then redis.call('PEXPIRE', KEYS[i], window); ttl = window end
  end
  counts[i], ttls[i] = count, ttl
  within[i] = count < tonumber(ARGV[2 + i])
  if not within[i] then all = false end
end
local out = {}
for i = 1, #KEYS do
  if mode == 'always' or all then
    counts[i] = redis.call('INCR', KEYS[i])
    if counts[i] == 1 then redis.call('PEXPIRE', KEYS[i], window); ttls[i] = window end
  end
  out[#out + 1] = counts[i]
  out[#out + 1] = ttls[i]
  out[#out + 1] = within[i] and 1 or 0
end
return out
`;

/**
 * The sliding window's script (RateLimiter.hitSliding), atomic like the other.
 * KEYS: the previous and the current aligned window's counters. ARGV[1]: limit; ARGV[2]: the
 * previous window's weight (1 − elapsed / window); ARGV[3]: ms a new counter lives (to the end of
 * the next window). Returns {previous count, current count after this request, 1 when counted}.
 */
const SLIDING_SCRIPT = `
local limit = tonumber(ARGV[1])
local previous = tonumber(redis.call('GET', KEYS[1])) or 0
local current = tonumber(redis.call('GET', KEYS[2])) or 0
local budget = math.max(0, math.floor(limit - previous * tonumber(ARGV[2])))
if current >= budget then return {previous, current, 0} end
current = redis.call('INCR', KEYS[2])
if current == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return {previous, current, 1}
`;

export interface RedisRateLimiterOptions {
  /** Prefix of every counter key, e.g. `auth-api:login:` (one per app and use). */
  keyPrefix?: string;
  /** The limiter opened `redis` itself: {@link RedisRateLimiter.close} quits it. */
  ownsConnection?: boolean;
  /**
   * A hit that Redis has not answered within this many ms fails (default 1000), so a hung or
   * half-open connection hands the request to the fallback instead of holding it: ioredis itself
   * would keep the command queued until the connection is declared lost, or forever.
   */
  timeoutMs?: number;
}

export const DEFAULT_REDIS_TIMEOUT_MS = 1000;

/** Counters in Redis, shared by every replica; one atomic Lua script per request. */
export class RedisRateLimiter extends RateLimiter {
  private readonly keyPrefix: string;

  constructor(
    private readonly redis: Redis,
    private readonly options: RedisRateLimiterOptions = {},
  ) {
    super();
    this.keyPrefix = options.keyPrefix ?? '';
  }

  /** The Redis key of the counter of `key`. */
  redisKey(key: string): string {
    return `${this.keyPrefix}${key}`;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const [d] = await this.run([{ key, limit }], windowMs, 'always');
    return d;
  }

  hitAll(rules: readonly RateLimitRule[], windowMs: number): Promise<RateLimitDecision[]> {
    return this.run(rules, windowMs, 'all-within');
  }

  peekAll(rules: readonly RateLimitRule[], windowMs: number): Promise<RateLimitDecision[]> {
    return this.run(rules, windowMs, 'never');
  }

  async hitSliding(key: string, limit: number, windowMs: number, at = Date.now()): Promise<RateLimitDecision> {
    assertLimit(limit);
    assertWindow(windowMs);
    const { previousKey, currentKey, elapsedMs } = alignedWindows(key, at, windowMs);
    const weight = previousWeight(elapsedMs, windowMs);
    const ttl = 2 * windowMs - elapsedMs;
    const [previous, current, counted] = (await this.withTimeout(
      this.redis.eval(SLIDING_SCRIPT, 2, this.redisKey(previousKey), this.redisKey(currentKey), String(limit), String(weight), String(ttl)),
    )) as number[];
    return slidingDecision(limit, windowMs, elapsedMs, Number(previous), Number(current), counted === 1);
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    if (this.options.ownsConnection) await closeRedis(this.redis);
  }

  private withTimeout<T>(work: Promise<T>): Promise<T> {
    return withinMs(work, this.options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS);
  }

  private async run(rules: readonly RateLimitRule[], windowMs: number, mode: CountMode): Promise<RateLimitDecision[]> {
    rules.forEach((r) => assertLimit(r.limit));
    assertWindow(windowMs);
    if (rules.length === 0) return [];
    const keys = rules.map((r) => this.redisKey(r.key));
    const args = [String(windowMs), mode, ...rules.map((r) => String(r.limit))];
    const out = (await this.withTimeout(this.redis.eval(HIT_SCRIPT, keys.length, ...keys, ...args))) as number[];
    return rules.map((r, i) => {
      const count = Number(out[i * 3]);
      const ttl = Number(out[i * 3 + 1]);
      // counting always: within means "this request's count is within the limit"
      const within = mode === 'always' ? count <= r.limit : out[i * 3 + 2] === 1;
      return decision(r.limit, count, ttl, within);
    });
  }
}
