import type Redis from 'ioredis';
import { FallbackRateLimiter } from './fallback-rate-limiter';
import { MemoryRateLimiter } from './memory-rate-limiter';
import type { RateLimiter } from './rate-limiter';
import { createRedisClient } from './redis-client';
import { RedisRateLimiter } from './redis-rate-limiter';

export interface CreateRateLimiterOptions {
  /** REDIS_URL: set → counters in Redis (shared by replicas); unset → in this process. */
  redisUrl?: string;
  /** An existing connection to use instead of opening one from `redisUrl` (not closed by the limiter). */
  redis?: Redis | null;
  /** Prefix of every counter key (Redis only), e.g. `auth-api:login:`. */
  keyPrefix?: string;
  /** Called with Redis connection errors (ioredis retries by itself); default: ignored. */
  onRedisError?: (err: Error) => void;
  /** Called when a request was counted in memory because Redis failed; default: ignored. */
  onFallback?: (err: Error) => void;
  /** A hit Redis has not answered within this many ms is counted in memory instead (default 1000). */
  redisTimeoutMs?: number;
}

/**
 * With a connection or REDIS_URL: counters in Redis, and in this process's memory while Redis fails
 * (FallbackRateLimiter: a limit is loosened to per-replica counts during an outage, never lifted).
 * Without: in memory.
 */
export function createRateLimiter(options: CreateRateLimiterOptions = {}): RateLimiter {
  let redisLimiter: RedisRateLimiter | undefined;
  if (options.redis) {
    redisLimiter = new RedisRateLimiter(options.redis, { keyPrefix: options.keyPrefix, timeoutMs: options.redisTimeoutMs });
  } else if (options.redisUrl) {
    const redis = createRedisClient(options.redisUrl, { onError: options.onRedisError });
    redisLimiter = new RedisRateLimiter(redis, { keyPrefix: options.keyPrefix, ownsConnection: true, timeoutMs: options.redisTimeoutMs });
  }
  return redisLimiter ? new FallbackRateLimiter(redisLimiter, new MemoryRateLimiter(), options.onFallback) : new MemoryRateLimiter();
}
