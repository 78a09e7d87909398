import { createTestApp } from '@platform/testing';
import { bearer, newProject, startEmailApi, type EmailTestApp } from '../../test/helpers';
import { emailApiService } from '../service';
import { ProjectRateLimiter as RateLimiter } from './project-rate-limiter';

describe('rate limit: requests per minute per project (e2e)', () => {
  describe('with a limit of 5 (EMAIL_RATE_LIMIT_PER_MINUTE)', () => {
    let t: EmailTestApp;
    beforeAll(async () => {
      t = await startEmailApi({ EMAIL_RATE_LIMIT_PER_MINUTE: '5' });
    });
    afterAll(() => t?.close());

    it('counts every project request (both keys), answers 429 with Retry-After past the limit, and leaves other projects alone', async () => {
      const { project } = await newProject(t);
      const other = await newProject(t);
      const remaining: string[] = [];
      for (let i = 0; i < 5; i++) {
        const key = i % 2 ? project.publicKey : project.secretKey;
        const res = await t.http.post('/v1/track').set(bearer(key)).send({ email: `r${i}@example.com`, event: 'hit' }).expect(200);
        expect(res.headers['ratelimit-limit']).toBe('5');
        expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
        remaining.push(res.headers['ratelimit-remaining']);
      }
      expect(remaining).toEqual(['4', '3', '2', '1', '0']);
      const refused = await t.http.get('/contacts').set(bearer(project.secretKey)).expect(429);
      expect(refused.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', statusCode: 429 });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // sliding window: the next request fits once the full minute has slid by a fifth of the next one (limit 5)
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(72);
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      // refused requests record nothing
      await t.http.post('/v1/track').set(bearer(project.publicKey)).send({ email: 'late@example.com', event: 'hit' }).expect(429);
      await t.http.get('/contacts').set(bearer(other.project.secretKey)).expect(200);
    });

    it('shares the counters between replicas through Redis', async () => {
      if (!t.redis.url) {
        // Without Redis there is one process only; the in-memory limiter is covered above.
        expect(t.config.REDIS_URL).toBeUndefined();
        return;
      }
      const replica = await createTestApp(emailApiService, {
        DATABASE_URL: t.config.DATABASE_URL,
        DATABASE_SCHEMA: t.config.DATABASE_SCHEMA,
        REDIS_URL: t.redis.url,
        REDIS_KEY_PREFIX: t.redis.prefix,
        EMAIL_RATE_LIMIT_PER_MINUTE: '5',
        JWT_SECRET: t.config.JWT_SECRET,
        INBOUND_SMTP_PORT: '0',
        INBOUND_SMTP_HOST: '127.0.0.1',
      });
      try {
        const { project } = await newProject(t);
        const apps = [t.http, replica.http];
        const statuses: number[] = [];
        for (let i = 0; i < 8; i++) statuses.push((await apps[i % 2].get('/contacts').set(bearer(project.secretKey))).status);
        expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      } finally {
        await replica.close();
      }
    });
  });

  describe('by default', () => {
    let t: EmailTestApp;
    beforeAll(async () => {
      t = await startEmailApi();
    });
    afterAll(() => t?.close());

    it('allows 1000 requests per minute per project', async () => {
      expect(t.config.EMAIL_RATE_LIMIT_PER_MINUTE).toBe(1000);
      // The sliding window weighs the previous aligned minute: a run that crossed a minute boundary would
      // see most of its own requests decayed. Start in a fresh minute when less than 15 s of this one are left.
      const leftMs = 60_000 - (Date.now() % 60_000);
      if (leftMs < 15_000) await new Promise((r) => setTimeout(r, leftMs + 50));
      const { project } = await newProject(t);
      const first = await t.http.get('/contacts').set(bearer(project.secretKey)).expect(200);
      expect(first.headers['ratelimit-limit']).toBe('1000');
      expect(first.headers['ratelimit-remaining']).toBe('999');
      // The next 998 requests are counted directly on the limiter the guard uses (same store, same key).
      const limiter = t.app.get(RateLimiter);
      for (let i = 0; i < 998; i++) await limiter.hit(project.id);
      const last = await t.http.get('/contacts').set(bearer(project.secretKey)).expect(200);
      expect(last.headers['ratelimit-remaining']).toBe('0');
      const refused = await t.http.get('/contacts').set(bearer(project.secretKey)).expect(429);
      expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    });
  });
});
