import { createTestApp, createTestRedisPrefix, type TestApp, type TestRedisPrefix } from '@platform/testing';
import Redis from 'ioredis';
import { freshIp } from '../../test/helpers';
import type { AuthApiConfig } from '../config';
import { authApiService } from '../service';

/** Two auth-api replicas on one Redis enforce one login limit between them. */
describe('login rate limit shared by replicas through Redis (e2e)', () => {
  let redis: TestRedisPrefix;
  let a: TestApp<AuthApiConfig>;
  let b: TestApp<AuthApiConfig>;

  beforeAll(async () => {
    redis = createTestRedisPrefix();
    const env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.prefix, AUTH_LOGIN_LIMIT_PER_ACCOUNT: '3', AUTH_LOGIN_LIMIT_PER_IP: '5' };
    a = await createTestApp(authApiService, env);
    b = await createTestApp(authApiService, { ...env, DATABASE_URL: a.config.DATABASE_URL, DATABASE_SCHEMA: a.config.DATABASE_SCHEMA });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await redis?.cleanup();
  });

  const fiscalLogin = (t: TestApp<AuthApiConfig>, username: string, ip: string) =>
    t.http.post('/api/v1/auth/login').set('X-Forwarded-For', ip).type('form').send({ username, password: 'wrong-password' });
  const logisticsLogin = (t: TestApp<AuthApiConfig>, email: string, ip: string) =>
    t.http.post('/api/v1/logistics/auth/login').set('X-Forwarded-For', ip).send({ email, password: 'wrong-password' });

  it('counts attempts on either replica against one per-account limit', async () => {
    if (!redis.url) {
      // No Redis reachable (fallbacks allowed): each replica counts in memory, nothing is shared.
      expect(a.config.REDIS_URL).toBeUndefined();
      return;
    }
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fiscalLogin(i % 2 ? b : a, 'victim@example.com', ip)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    const refused = await fiscalLogin(a, 'victim@example.com', ip).expect(429);
    expect(refused.body).toEqual({ detail: expect.stringMatching(/Too many login attempts/) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // another client IP has its own counters
    await fiscalLogin(b, 'victim@example.com', freshIp()).expect(401);
  });

  it('counts the per-IP limit across replicas and realms, under the configured key prefix', async () => {
    if (!redis.url) {
      expect(b.config.REDIS_URL).toBeUndefined();
      return;
    }
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await (i % 2 ? logisticsLogin(b, `u${i}@example.com`, ip) : fiscalLogin(a, `u${i}@example.com`, ip))).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    await logisticsLogin(a, 'fresh@example.com', ip).expect(429);
    await fiscalLogin(b, 'fresh@example.com', ip).expect(429);
    const client = new Redis(redis.url);
    try {
      expect(await client.get(`${redis.prefix}login:ip:${ip}`)).toBe('5');
    } finally {
      client.disconnect();
    }
  });
});
