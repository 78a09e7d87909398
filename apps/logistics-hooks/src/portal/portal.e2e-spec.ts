// The public portal over HTTP: dashboard counts, track-public (CORS open there, preflight included, and
// nowhere else), and the public chat (rules and a fake model) limited to 10 requests per minute per IP
// with the counters in Redis.
import { createTestApp, createTestRedisPrefix, type TestApp, type TestRedisPrefix } from '@platform/testing';
import { startFakeLlm, type FakeLlm } from '../../test/fake-llm';
import type { LogisticsHooksConfig } from '../config';
import { logisticsHooksService } from '../service';

const API_KEY = 'test-logistics-key-0123456789';

describe('public portal', () => {
  let t: TestApp<LogisticsHooksConfig>;
  let redis: TestRedisPrefix;
  const chat = (message: string, ip: string) => t.http.post('/api/chat/public').set('x-forwarded-for', ip).send({ message });

  beforeAll(async () => {
    redis = createTestRedisPrefix();
    t = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.prefix });
    const task = (subject: string, body: string) => t.http.post('/ops-tasks').send({ api_key: API_KEY, from: 'c@x.example', subject, body }).expect(201);
    await task('URGENT customs hold', 'Container CSQU3054383 is held by customs, booking 987654321.');
    await task('ETA', 'Tracking of MAEU7654320 and B/L MEDUAB123456 please.');
    const done = await task('Docs', 'Packing list missing for MAEU7654320.');
    await t.http.post('/ops-tasks').send({ api_key: API_KEY, action: 'update', task_id: done.body.task.id, status: 'DONE' }).expect(200);
    await t.http.post('/api/errors/report').send({ api_key: API_KEY, message: 'carrier API down' }).expect(201);
    await t.http.post('/api/errors/report').send({ api_key: API_KEY, message: 'carrier API down' }).expect(200);
  });

  afterAll(async () => {
    await t?.close();
    await redis?.cleanup();
  });

  it('GET /api/dashboard/stats counts shipments, tasks and incidents without auth', async () => {
    const res = await t.http.get('/api/dashboard/stats').expect(200);
    expect(res.body).toEqual({
      success: true,
      shipments: { total: 4, containers: 2, bills_of_lading: 1, bookings: 1 },
      tasks: {
        total: 3,
        open: 2,
        by_status: { PENDING: 2, IN_PROGRESS: 0, DONE: 1 },
        by_priority: { HIGH: 1, MEDIUM: 2, LOW: 0 },
      },
      incidents: { total: 1, open: 1, by_status: { open: 1, 'fix proposed': 0, resolved: 0 }, occurrences: 2 },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  describe('POST /api/track-public', () => {
    it('answers from the records, with carrier and status', async () => {
      const held = await t.http.post('/api/track-public').send({ tracking_number: 'csqu 305438 3' }).expect(200);
      expect(held.body).toMatchObject({ success: true, tracking_number: 'CSQU3054383', kind: 'container', check_digit_valid: true, carrier: null, status: 'ATTENTION', found: true, records: 1, open_records: 1, open_categories: ['CUSTOMS'] });
      const maersk = await t.http.post('/api/track-public').send({ tracking_number: 'MAEU7654320' }).expect(200);
      expect(maersk.body).toMatchObject({ carrier: { code: 'MAERSK', name: 'Maersk' }, status: 'FOLLOW_UP', records: 2, open_records: 1 });
      const bl = await t.http.post('/api/track-public').send({ tracking_number: 'MEDUAB123456' }).expect(200);
      expect(bl.body).toMatchObject({ kind: 'bill_of_lading', carrier: { code: 'MSC' } });
      const booking = await t.http.post('/api/track-public').send({ tracking_number: '987654321' }).expect(200);
      expect(booking.body).toMatchObject({ kind: 'booking', status: 'ATTENTION' });
      const unknown = await t.http.post('/api/track-public').send({ tracking_number: 'MSCU1234566' }).expect(200);
      expect(unknown.body).toMatchObject({ kind: 'container', status: 'NO_RECORDS', found: false, records: 0, last_update: null });
      expect(JSON.stringify(held.body)).not.toContain('held by customs');
    });

    it('refuses a wrong check digit and junk with 422', async () => {
      const res = await t.http.post('/api/track-public').send({ tracking_number: 'CSQU3054384' }).expect(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_TRACKING_NUMBER' });
      expect(res.body.error.message).toContain('should be 3');
      await t.http.post('/api/track-public').send({ tracking_number: '!!' }).expect(422);
      await t.http.post('/api/track-public').send({}).expect(422);
    });

    it('is open to every origin, preflight included', async () => {
      const preflight = await t.http
        .options('/api/track-public')
        .set('origin', 'https://portal.example')
        .set('access-control-request-method', 'POST')
        .set('access-control-request-headers', 'content-type, x-requested-with')
        .expect(204);
      expect(preflight.headers).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': 'content-type, x-requested-with',
      });
      const post = await t.http.post('/api/track-public').set('origin', 'https://portal.example').send({ tracking_number: 'CSQU3054383' }).expect(200);
      expect(post.headers['access-control-allow-origin']).toBe('*');
      const refused = await t.http.post('/api/track-public').set('origin', 'https://portal.example').send({ tracking_number: 'x' }).expect(422);
      expect(refused.headers['access-control-allow-origin']).toBe('*');
    });

    it('CORS nowhere else', async () => {
      for (const path of ['/api/chat/public', '/api/errors/report', '/ops-tasks', '/api/dashboard/stats']) {
        const preflight = await t.http.options(path).set('origin', 'https://portal.example').set('access-control-request-method', 'POST');
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      }
      const res = await t.http.post('/api/errors/report').set('origin', 'https://portal.example').send({ api_key: API_KEY, message: 'm' });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('POST /api/chat/public', () => {
    it('answers tracking questions from the records and FAQ questions from the FAQ', async () => {
      const tracking = await chat('Where is my container CSQU3054383?', '203.0.113.1').expect(200);
      expect(tracking.body).toMatchObject({ success: true, topic: 'tracking', answered_by: 'rules', references: ['CSQU3054383'] });
      expect(tracking.body.reply).toContain('CSQU3054383: it has an urgent open matter');
      const faq = await chat('How long does customs clearance take?', '203.0.113.1').expect(200);
      expect(faq.body).toMatchObject({ topic: 'customs', answered_by: 'rules' });
      expect(faq.body.reply).toContain('1 to 3 business days');
      const other = await chat('Tell me a joke', '203.0.113.1').expect(200);
      expect(other.body.topic).toBe('other');
      await chat('', '203.0.113.1').expect(422);
    });

    it('answers 10 requests per minute per IP (malformed ones count), the 11th gets 429', async () => {
      const ip = '198.51.100.7';
      for (let i = 1; i <= 9; i++) {
        const res = await chat('What are your office hours?', ip).expect(200);
        expect(res.headers['ratelimit-remaining']).toBe(String(10 - i));
      }
      // a malformed request counts as well
      const malformed = await chat('', ip).expect(422);
      expect(malformed.headers['ratelimit-remaining']).toBe('0');
      const refused = await chat('What are your office hours?', ip).expect(429);
      expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // another client is not affected
      await chat('What are your office hours?', '198.51.100.8').expect(200);
    });
  });
});

describe('public chat through the model (LLM_URL)', () => {
  let t: TestApp<LogisticsHooksConfig>;
  let llm: FakeLlm;

  beforeAll(async () => {
    llm = await startFakeLlm(() => 'Your container is being handled by our customs team.');
    t = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, LLM_URL: llm.url, LLM_TIMEOUT_MS: '1000' });
    await t.http.post('/ops-tasks').send({ api_key: API_KEY, from: 'c@x.example', subject: 'customs hold', body: 'Container CSQU3054383 is held by customs.' }).expect(201);
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('gives the model the FAQ and the looked-up facts, and answers with its reply', async () => {
    const res = await t.http.post('/api/chat/public').send({ message: 'Where is CSQU3054383?', session_id: 's-1' }).expect(200);
    expect(res.body).toMatchObject({ reply: 'Your container is being handled by our customs team.', answered_by: 'model', topic: 'tracking', session_id: 's-1' });
    const sent = JSON.parse(llm.requests.at(-1)!.messages[1].content) as { question: string; faq: unknown[]; tracking_facts: { reference: string; status: string }[] };
    expect(sent.question).toBe('Where is CSQU3054383?');
    expect(sent.faq.length).toBeGreaterThan(0);
    expect(sent.tracking_facts[0]).toMatchObject({ reference: 'CSQU3054383', status: 'ATTENTION' });
  });

  it('answers by the rules when the model fails', async () => {
    llm.answer = () => ({ status: 500 });
    const res = await t.http.post('/api/chat/public').send({ message: 'What is demurrage?' }).expect(200);
    expect(res.body).toMatchObject({ answered_by: 'rules', topic: 'demurrage' });
  });
});
