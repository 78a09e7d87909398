// The public portal over HTTP: dashboard counts, track-public (carrier facts from a fake DCSA Track &
// Trace server and never the internal tasks; CORS open there, preflight included, and nowhere else;
// rate-limited per IP), and the public chat (rules and a fake model) limited to 10 requests per minute
// per IP with the counters in Redis.
import { createTestApp, createTestRedisPrefix, startFakeDcsaTnt, type FakeDcsaTnt, type TestApp, type TestRedisPrefix, sampleDcsaShipment, SAMPLE_DCSA_TRACKING } from '@platform/testing';
import { startFakeLlm, type FakeLlm } from '../../test/fake-llm';
import type { LogisticsHooksConfig } from '../config';
import { logisticsHooksService } from '../service';

const API_KEY = 'test-logistics-key-0123456789';

describe('public portal', () => {
  let t: TestApp<LogisticsHooksConfig>;
  let redis: TestRedisPrefix;
  let maersk: FakeDcsaTnt;
  const chat = (message: string, ip: string) => t.http.post('/api/chat/public').set('x-forwarded-for', ip).send({ message });
  const track = (tracking_number: unknown, ip = '192.0.2.10') => t.http.post('/api/track-public').set('x-forwarded-for', ip).send({ tracking_number });

  beforeAll(async () => {
    redis = createTestRedisPrefix();
    maersk = await startFakeDcsaTnt({ auth: { type: 'header', name: 'Consumer-Key', value: 'maersk-key' }, shipments: [sampleDcsaShipment()] });
    t = await createTestApp(logisticsHooksService, {
      LOGISTICS_API_KEY: API_KEY,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.prefix,
      OCEAN_CARRIERS: JSON.stringify({ MAERSK: { url: maersk.url, auth: { type: 'header', header: 'Consumer-Key', key: 'maersk-key' } } }),
      PORTAL_TRACK_LIMIT_PER_MINUTE: '5',
      PORTAL_CLEARANCE_TIME: '2 to 4 business days',
    });
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
    await maersk?.close();
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
    it('answers the carrier\'s facts and nothing of the internal tasks', async () => {
      const { vessel_imo: _imo, ...publicFacts } = SAMPLE_DCSA_TRACKING;
      const maeu = await track('MAEU7654320').expect(200);
      expect(maeu.body).toMatchObject({
        success: true,
        tracking_number: 'MAEU7654320',
        kind: 'container',
        check_digit_valid: true,
        carrier: { code: 'MAERSK', name: 'Maersk' },
        available: true,
        stale: false,
        ...publicFacts,
      });
      expect(maeu.body).not.toHaveProperty('vessel_imo');
      expect(maeu.body.events[0]).toEqual({ description: 'Booking confirmed', code: 'CONF', classifier: 'ACT', at: '2026-10-20T09:00:00.000Z', location: null });
      // tasks name CSQU3054383 (customs hold, HIGH) and MAEU7654320: nothing of them is answered
      const held = await track('csqu 305438 3').expect(200);
      expect(held.body).toMatchObject({ tracking_number: 'CSQU3054383', kind: 'container', carrier: null, available: false, status: null, events: [] });
      const bl = await track('MEDUAB123456').expect(200);
      expect(bl.body).toMatchObject({ kind: 'bill_of_lading', carrier: { code: 'MSC' }, available: false });
      const booking = await track('987654321').expect(200);
      expect(booking.body).toMatchObject({ kind: 'booking', carrier: null, available: false });
      for (const body of [maeu.body, held.body, bl.body, booking.body]) {
        const text = JSON.stringify(body);
        for (const leak of ['records', 'open_categories', 'CUSTOMS', 'PAYMENT', 'ATTENTION', 'FOLLOW_UP', 'held by customs', 'found']) expect(text).not.toContain(leak);
      }
    });

    it('refuses a wrong check digit and junk with 422', async () => {
      const res = await track('CSQU3054384', '192.0.2.20').expect(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_TRACKING_NUMBER' });
      expect(res.body.error.message).toContain('should be 3');
      await track('!!', '192.0.2.20').expect(422);
      await t.http.post('/api/track-public').set('x-forwarded-for', '192.0.2.20').send({}).expect(422);
    });

    it('is rate-limited per IP (PORTAL_TRACK_LIMIT_PER_MINUTE)', async () => {
      const ip = '192.0.2.99';
      for (let i = 1; i <= 5; i++) expect((await track('CSQU3054383', ip).expect(200)).headers['ratelimit-remaining']).toBe(String(5 - i));
      const refused = await track('CSQU3054383', ip).expect(429);
      expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(refused.headers['access-control-allow-origin']).toBe('*');
      await track('CSQU3054383', '192.0.2.98').expect(200);
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
      const post = await t.http.post('/api/track-public').set('x-forwarded-for', '192.0.2.11').set('origin', 'https://portal.example').send({ tracking_number: 'CSQU3054383' }).expect(200);
      expect(post.headers['access-control-allow-origin']).toBe('*');
      const refused = await t.http.post('/api/track-public').set('x-forwarded-for', '192.0.2.11').set('origin', 'https://portal.example').send({ tracking_number: 'x' }).expect(422);
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
    it('answers tracking questions with the carrier\'s facts and FAQ questions from the configured FAQ', async () => {
      const tracking = await chat('Where is my container MAEU7654320?', '203.0.113.1').expect(200);
      expect(tracking.body).toMatchObject({ success: true, topic: 'tracking', answered_by: 'rules', references: ['MAEU7654320'] });
      expect(tracking.body.reply).toBe('MAEU7654320 (Maersk): last reported loaded at CNSHA, vessel MAERSK ESSEN, ETA 2026-11-29 at MXZLO.');
      const internal = await chat('Where is my container CSQU3054383?', '203.0.113.1').expect(200);
      expect(internal.body.reply).toContain('not available');
      expect(internal.body.reply).not.toMatch(/customs|urgent|open/i);
      const guessed = await chat('anything on XK12345678?', '203.0.113.1').expect(200);
      expect(guessed.body.references).toEqual([]);
      const faq = await chat('How long does customs clearance take?', '203.0.113.1').expect(200);
      expect(faq.body).toMatchObject({ topic: 'customs', answered_by: 'rules' });
      expect(faq.body.reply).toContain('2 to 4 business days');
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
    t = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, LLM_URL: llm.url });
    await t.http.post('/ops-tasks').send({ api_key: API_KEY, from: 'c@x.example', subject: 'customs hold', body: 'Container CSQU3054383 is held by customs.' }).expect(201);
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('gives the model the FAQ and the looked-up facts, and answers with its reply', async () => {
    const res = await t.http.post('/api/chat/public').send({ message: 'Where is CSQU3054383?', session_id: 's-1' }).expect(200);
    expect(res.body).toMatchObject({ reply: 'Your container is being handled by our customs team.', answered_by: 'model', topic: 'tracking', session_id: 's-1' });
    // The task created above is also refined by the model in the background: pick the chat's request.
    type ChatPrompt = { question: string; faq: unknown[]; tracking_facts: { reference: string; status: string }[] };
    const prompts = llm.requests.map((r) => parseJson(r.messages[1]?.content)).filter((p): p is ChatPrompt => typeof (p as ChatPrompt | null)?.question === 'string');
    expect(prompts).toHaveLength(1);
    const [sent] = prompts;
    expect(sent.question).toBe('Where is CSQU3054383?');
    expect(sent.faq.length).toBeGreaterThan(0);
    expect(sent.tracking_facts[0]).toEqual({ reference: 'CSQU3054383', carrier: null, available: false, status: null, vessel: null, eta: null, port: null, port_of_discharge: null });
  });

  it('answers by the rules when the model fails', async () => {
    llm.answer = () => ({ status: 500 });
    const res = await t.http.post('/api/chat/public').send({ message: 'What is demurrage?' }).expect(200);
    expect(res.body).toMatchObject({ answered_by: 'rules', topic: 'demurrage' });
  });
});

function parseJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return null;
  }
}
