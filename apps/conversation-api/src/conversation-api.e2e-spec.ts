// conversation-api booted on throwaway databases: health, docs (and their absence in production), the
// 100-requests-per-minute limit shared by replicas through Redis (and the deprecated
// CONVERSATION_REDIS_KEY_PREFIX), deprecation headers.
import { Logger } from '@nestjs/common';
import { ConfigValidationError } from '@platform/platform';
import { createTestApp, createTestRedisPrefix, type TestApp, type TestRedisPrefix } from '@platform/testing';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { ADMIN_EMAIL, ADMIN_PASSWORD, deliver, login, startApp, textDelivery, userWithRole, whatsappChannel, type ConversationTestApp } from '../test/helpers';
import { RedisKeyPrefix } from './common/redis-key-prefix';
import type { ConversationApiConfig } from './config';
import { conversationApiService } from './service';

describe('conversation-api', () => {
  let t: TestApp<ConversationApiConfig>;

  beforeAll(async () => {
    t = await startApp();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers /healthz', async () => {
    await t.http.get('/healthz').expect(200, { status: 'ok' });
  });

  it('answers /readyz with its database and broker up', async () => {
    const res = await t.http.get('/readyz').expect(200);
    expect(res.body).toMatchObject({ status: 'ok', checks: { database: { status: 'up' }, broker: { status: 'up' } } });
  });

  it('serves its Swagger UI and OpenAPI document outside production', async () => {
    await t.http.get('/api/docs').expect(200).expect('content-type', /html/);
    const doc = await t.http.get('/api/docs-json').expect(200);
    expect(doc.body.info.title).toBe('conversation-api');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/v1/auth/login', '/api/v1/conversations/{id}/whisper', '/api/v1/webhooks/whatsapp/{channelId}']));
    expect(doc.body.paths['/api/v1/contacts/search'].get.deprecated).toBe(true);
  });

  it('marks deprecated routes with Deprecation, Sunset and Link headers; others carry none', async () => {
    const admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await t.http.get('/api/v1/contacts/search').query({ q: 'x' }).set(admin.auth).expect(200);
    expect(res.headers.deprecation).toBe(`@${Date.parse('2026-11-01T00:00:00Z') / 1000}`);
    expect(res.headers.sunset).toBe('Tue, 01 Jun 2027 00:00:00 GMT');
    expect(res.headers.link).toBe('</api/v1/contacts>; rel="successor-version"');
    expect(res.body).toEqual({ success: true, data: [], meta: { total: 0, page: 1, limit: 25 } });
    const current = await t.http.get('/api/v1/contacts').set(admin.auth).expect(200);
    expect(current.headers.deprecation).toBeUndefined();
  });
});

describe('conversation-api in production', () => {
  const secrets = { CONVERSATION_JWT_SECRET: randomBytes(32).toString('hex'), CONVERSATION_ENCRYPTION_KEY: randomBytes(32).toString('hex') };

  it('requires exactly its two secrets', async () => {
    const err = await createTestApp(conversationApiService, { NODE_ENV: 'production' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigValidationError);
    expect((err as Error).message).toMatch(/CONVERSATION_JWT_SECRET/);
    expect((err as Error).message).toMatch(/CONVERSATION_ENCRYPTION_KEY/);
    const weak = await createTestApp(conversationApiService, { NODE_ENV: 'production', CONVERSATION_JWT_SECRET: 'short', CONVERSATION_ENCRYPTION_KEY: 'zz' }).catch((e: unknown) => e);
    expect((weak as Error).message).toMatch(/at least 32 characters/);
    expect((weak as Error).message).toMatch(/64 hexadecimal characters/);
  });

  it('turns /api/docs and /api/docs-json off (404 in the envelope) while the API keeps answering', async () => {
    const t = await startApp({ NODE_ENV: 'production', ...secrets });
    try {
      for (const path of ['/api/docs', '/api/docs-json', '/api/docs/']) {
        const res = await t.http.get(path).expect(404);
        expect(res.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
      }
      const admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
      await t.http.get('/api/v1/conversations').set(admin.auth).expect(200);
    } finally {
      await t.close();
    }
  });
});

describe('conversation-api throttling', () => {
  let redis: TestRedisPrefix;
  let a: ConversationTestApp;
  let b: ConversationTestApp;

  beforeAll(async () => {
    redis = await createTestRedisPrefix();
    const env = { CONVERSATION_RATE_LIMIT_PER_MINUTE: '100', REDIS_KEY_PREFIX: redis.prefix, REDIS_URL: redis.url };
    a = await startApp(env);
    b = await startApp(env);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.cleanup();
  });

  it('answers the 101st request of a client within a minute with 429 THROTTLER_LIMIT_EXCEEDED', async () => {
    const admin = await login(a, ADMIN_EMAIL, ADMIN_PASSWORD);
    const agent = await userWithRole(a, admin, 'agent', 'busy-agent@conversation.test');
    // login and user creation above were counted for the address, not for the agent's token.
    for (let i = 1; i <= 100; i++) {
      const res = await a.http.get('/api/v1/auth/me').set(agent.auth);
      expect(res.status).toBe(200);
      if (i === 1) expect(res.headers['x-ratelimit-limit']).toBe('100');
    }
    const res = await a.http.get('/api/v1/auth/me').set(agent.auth).expect(429);
    expect(res.body).toMatchObject({ success: false, error: { code: 'THROTTLER_LIMIT_EXCEEDED', statusCode: 429 } });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(res.body.error).toMatchObject({
      message: 'Too many requests: the limit is 100 per minute',
      suggestion: `Wait ${res.headers['retry-after']} seconds (Retry-After) before sending more requests.`,
    });
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    // Every route counts against the same client budget.
    await a.http.get('/api/v1/conversations').set(agent.auth).expect(429);
    // Another client is not affected.
    await a.http.get('/api/v1/auth/me').set(admin.auth).expect(200);
  });

  it('shares the counters between replicas through Redis', async () => {
    if (!redis.url) throw new Error('Redis is required for this test (TEST_REDIS_URL)');
    // Unauthenticated calls count per address (127.0.0.1 here), on both replicas.
    const bogus = { refresh_token: 'crt_unknown' };
    let limited = -1;
    for (let i = 0; i < 110 && limited < 0; i++) {
      const app = i % 2 === 0 ? b : a;
      const res = await app.http.post('/api/v1/auth/refresh').send(bogus);
      if (res.status === 429) limited = i;
      else expect(res.status).toBe(401);
    }
    // The address had spent some of its 100 on replica a's logins above; either way the budget is
    // one across both replicas: well under 2 × 100.
    expect(limited).toBeGreaterThan(0);
    expect(limited).toBeLessThanOrEqual(100);
    const res = await b.http.post('/api/v1/auth/refresh').send(bogus).expect(429);
    expect(res.body.error.code).toBe('THROTTLER_LIMIT_EXCEEDED');
    // One counter per address, under REDIS_KEY_PREFIX.
    const client = new Redis(redis.url);
    try {
      expect(await client.keys(`${redis.prefix}rl:api:ip:*`)).toHaveLength(1);
    } finally {
      client.disconnect();
    }
  });

  it('reads the deprecated CONVERSATION_REDIS_KEY_PREFIX while REDIS_KEY_PREFIX is unset, with one warning at start naming REDIS_KEY_PREFIX', async () => {
    if (!redis.url) throw new Error('Redis is required for this test (TEST_REDIS_URL)');
    const legacy = `${redis.prefix}legacy:`;
    const warn = jest.spyOn(Logger.prototype, 'warn');
    let old: ConversationTestApp | undefined;
    try {
      old = await startApp({ REDIS_KEY_PREFIX: undefined, CONVERSATION_REDIS_KEY_PREFIX: legacy, REDIS_URL: redis.url });
      const warnings = warn.mock.calls.map(([message]) => String(message)).filter((m) => m.includes('CONVERSATION_REDIS_KEY_PREFIX'));
      expect(warnings).toEqual([`CONVERSATION_REDIS_KEY_PREFIX is deprecated: set REDIS_KEY_PREFIX=${legacy} instead (the prefix of every Redis key of this service; ${legacy} is used until then)`]);
      expect(old.app.get(RedisKeyPrefix).value).toBe(legacy);
      await old.http.post('/api/v1/auth/refresh').send({ refresh_token: 'crt_unknown' }).expect(401);
      const client = new Redis(redis.url);
      try {
        expect(await client.keys(`${legacy}rl:api:ip:*`)).toHaveLength(1);
      } finally {
        client.disconnect();
      }
    } finally {
      warn.mockRestore();
      await old?.close();
    }
  });
});

describe('conversation-api webhook throttling', () => {
  let t: ConversationTestApp;

  beforeAll(async () => {
    t = await startApp({ CONVERSATION_RATE_LIMIT_PER_MINUTE: '100', CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE: '3' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('counts webhook deliveries per tenant, over all its channels, and not against the per-client limit', async () => {
    const admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    const [one, two] = [await whatsappChannel(t, admin), await whatsappChannel(t, admin)];
    const first = await deliver(t, one.id, textDelivery({ id: 'wamid.T1', from: '15550003001', text: '1' })).expect(200);
    expect(first.headers).toMatchObject({ 'x-ratelimit-limit-webhook': '3', 'x-ratelimit-remaining-webhook': '2' });
    expect(first.headers['x-ratelimit-limit']).toBeUndefined();
    await deliver(t, two.id, textDelivery({ id: 'wamid.T2', from: '15550003002', text: '2' })).expect(200);
    await deliver(t, one.id, textDelivery({ id: 'wamid.T3', from: '15550003003', text: '3' })).expect(200);
    const limited = await deliver(t, two.id, textDelivery({ id: 'wamid.T4', from: '15550003004', text: '4' })).expect(429);
    expect(limited.body.error.code).toBe('THROTTLER_LIMIT_EXCEEDED');
    expect(limited.headers['retry-after-webhook']).toBe(limited.headers['retry-after']);
    // The same address still has its own API budget.
    await t.http.get('/api/v1/conversations').set(admin.auth).expect(200);
    // Another tenant's channel is counted apart.
    const { OpenAccount } = await import('./accounts/open-account');
    await t.app.get(OpenAccount).execute('Second', { email: 'second@conversation.test', name: 'Second', password: 'second-password-1' });
    const other = await login(t, 'second@conversation.test', 'second-password-1');
    const third = await whatsappChannel(t, other);
    await deliver(t, third.id, textDelivery({ id: 'wamid.T5', from: '15550003005', text: '5' })).expect(200);
  });
});
