export { RateLimiter, type RateLimitDecision, type RateLimitRule } from './rate-limiter';
export { MemoryRateLimiter, type MemoryRateLimiterOptions } from './memory-rate-limiter';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './redis-rate-limiter';
export { FallbackRateLimiter } from './fallback-rate-limiter';
export { createRateLimiter, type CreateRateLimiterOptions } from './create-rate-limiter';
export { rateLimitHeaders, resetSeconds } from './headers';
export { redisOptions, createRedisClient, closeRedis, type RedisClientOptions } from './redis-client';
export { RedisModule, REDIS_CLIENT } from './redis.module';
export { RateLimitModule, type RateLimitModuleOptions, type RateLimitModuleAsyncOptions } from './rate-limit.module';
