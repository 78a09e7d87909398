// POST /{prefix}-batch-track and /{prefix}-email-report over HTTP: truck position feeds served by a
// fake tracking-feed server on loopback (reached with OUTBOUND_ALLOW_PRIVATE; refused without it),
// each category, the per-call cap, and the HTML report returned or sent through a fake SMTP server.
import { createTestApp, startFakeSmtpSink, startFakeTrackingFeed, type FakeSmtpSink, type FakeTrackingFeed, type TestApp } from '@platform/testing';
import type { LogisticsHooksConfig } from '../config';
import { logisticsHooksService } from '../service';

const API_KEY = 'test-logistics-key-0123456789';
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

describe('batch truck tracking and the email report', () => {
  let feed: FakeTrackingFeed;
  let smtp: FakeSmtpSink;
  let t: TestApp<LogisticsHooksConfig>;
  const post = (path: string, body: Record<string, unknown>) => t.http.post(path).send({ api_key: API_KEY, ...body });

  beforeAll(async () => {
    feed = await startFakeTrackingFeed({
      moving: { lat: 19.4326, lon: -99.1332, speed: 72, recorded_at: minutesAgo(3), driver: 'Ana López', location: 'Km 45 México-Querétaro' },
      parked: { lat: 20.58, lon: -100.39, speed: 0, recorded_at: minutesAgo(10), driver: 'Luis' },
      late: { lat: 21.1, lon: -101.6, speed: 80, recorded_at: minutesAgo(2), driver: 'Eva', eta: inMinutes(240) },
      old: { lat: 22, lon: -102, speed: 60, recorded_at: minutesAgo(300), driver: 'Old' },
      gone: 410,
      broken: 500,
      junk: 'junk',
      slow: 'hang',
    });
    smtp = await startFakeSmtpSink();
    t = await createTestApp(logisticsHooksService, {
      LOGISTICS_API_KEY: API_KEY,
      LOGISTICS_PREFIX: 'fleet',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      BATCH_TRACK_TIMEOUT_MS: '400',
      BATCH_TRACK_MAX_SHIPMENTS: '10',
      SMTP_URL: smtp.url,
      REPORT_FROM_ALLOWED: 'reports@logistics.example,@ops.example',
      REPORT_FROM_DEFAULT: 'reports@logistics.example',
    });
  });
  afterAll(async () => {
    await t?.close();
    await feed?.close();
    await smtp?.close();
  });

  it('requires the API key on both routes', async () => {
    await t.http.post('/fleet-batch-track').send({ shipments: [{ tracking_url: feed.link('moving') }] }).expect(401);
    await t.http.post('/fleet-email-report').send({ to: 'a@b.example', data: {} }).expect(401);
    expect(feed.requests.get('moving')).toBeUndefined();
    expect(smtp.messages).toHaveLength(0);
  });

  let result: Record<string, unknown>;

  it('categorises every shipment from its feed', async () => {
    const eta = inMinutes(120);
    const res = await post('/fleet-batch-track', {
      shipments: [
        { unit: 'TRK-1', containers: ['MSCU1234566'], tracking_url: feed.link('moving'), eta },
        { unit: 'TRK-1b', containers: ['MSCU7777771'], tracking_url: feed.link('moving'), eta },
        { unit: 'TRK-2', tracking_url: feed.link('parked'), eta },
        { unit: 'TRK-3', tracking_url: feed.link('late'), eta },
        { unit: 'TRK-4', tracking_url: feed.link('old'), eta },
        { unit: 'TRK-5', tracking_url: feed.link('gone'), eta },
        { unit: 'TRK-6', tracking_url: feed.link('broken') },
        { unit: 'TRK-7', tracking_url: feed.link('junk') },
        { unit: 'TRK-8', tracking_url: feed.link('slow') },
        { unit: 'TRK-9' },
      ],
    }).expect(200);
    result = res.body;
    expect(res.body.totals).toEqual({ trucks: 10, on_time: 2, attention: 8, by_status: { on_time: 2, stopped: 1, delayed: 1, expired: 2, not_found: 4 } });
    const byUnit = Object.fromEntries((res.body.shipments as { unit: string }[]).map((s) => [s.unit, s]));
    expect(byUnit['TRK-1']).toMatchObject({ status: 'on_time', speed: 72, driver: 'Ana López', containers: ['MSCU1234566'], location: { lat: 19.4326, lon: -99.1332, name: 'Km 45 México-Querétaro' } });
    expect(byUnit['TRK-2']).toMatchObject({ status: 'stopped', speed: 0, driver: 'Luis' });
    expect(byUnit['TRK-3']).toMatchObject({ status: 'delayed', delay_minutes: 120 });
    expect(byUnit['TRK-4']).toMatchObject({ status: 'expired', age_minutes: 300 });
    expect(byUnit['TRK-5']).toMatchObject({ status: 'expired', reason: expect.stringContaining('410') });
    expect(byUnit['TRK-6']).toMatchObject({ status: 'not_found', reason: 'the feed answered 500', location: null });
    expect(byUnit['TRK-7']).toMatchObject({ status: 'not_found', reason: 'the feed did not answer JSON' });
    expect(byUnit['TRK-8']).toMatchObject({ status: 'not_found', reason: expect.stringContaining('did not answer') });
    expect(byUnit['TRK-9']).toMatchObject({ status: 'not_found', reason: 'no tracking_url' });
    // one fetch per distinct link
    expect(feed.requests.get('moving')).toBe(1);
  });

  it('refuses more shipments than BATCH_TRACK_MAX_SHIPMENTS and malformed bodies', async () => {
    const many = Array.from({ length: 11 }, () => ({ tracking_url: feed.link('moving') }));
    const res = await post('/fleet-batch-track', { shipments: many }).expect(422);
    expect(res.body.error.code).toBe('TOO_MANY_SHIPMENTS');
    await post('/fleet-batch-track', { shipments: [] }).expect(422);
    await post('/fleet-batch-track', { shipments: [{ eta: 'tomorrow' }] }).expect(422);
    await post('/fleet-batch-track', {}).expect(422);
  });

  it('email report: returns the HTML when to is empty, nothing sent', async () => {
    const res = await post('/fleet-email-report', { to: '', data: result }).expect(200);
    expect(res.body).toMatchObject({ success: true, sent: false, subject: 'Fleet status: 10 trucks, 8 need attention' });
    expect(res.body.html).toContain('Ana López');
    expect(res.body.html).toContain('>Delayed<');
    expect(smtp.messages).toHaveLength(0);
  });

  it('email report: sends through SMTP_URL to to and cc, from an allowed sender, every value escaped', async () => {
    const data = { ...result, shipments: [...(result.shipments as object[]), { unit: '<script>x</script>', status: 'on_time' }] };
    const res = await post('/fleet-email-report', { to: 'ops@client.example, boss@client.example', cc: 'cc@client.example', from: 'night@ops.example', subject: 'Morning fleet report', data }).expect(200);
    expect(res.body).toMatchObject({ sent: true, from: 'night@ops.example', subject: 'Morning fleet report' });
    expect(res.body.accepted.sort()).toEqual(['boss@client.example', 'cc@client.example', 'ops@client.example']);
    const [mail] = await smtp.waitForMessages(1);
    expect(mail.from).toBe('night@ops.example');
    expect(mail.to.sort()).toEqual(['boss@client.example', 'cc@client.example', 'ops@client.example']);
    expect(mail.subject).toBe('Morning fleet report');
    expect(mail.headers['content-type']).toContain('text/html');
    const html = mail.body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(html).not.toContain('<script>');
  });

  it.each([
    ['a sender outside the allow-list', { to: 'ops@client.example', from: 'ceo@evil.example' }, 403, 'SENDER_NOT_ALLOWED'],
    ['a look-alike domain', { to: 'ops@client.example', from: 'x@notops.example' }, 403, 'SENDER_NOT_ALLOWED'],
    ['a bad recipient', { to: 'ops@client.example, not-an-address' }, 422, 'VALIDATION_ERROR'],
    ['a header injection in to', { to: 'ops@client.example\r\nBcc: x@y.example' }, 422, 'VALIDATION_ERROR'],
    ['no data', { to: '' , data: undefined }, 422, 'VALIDATION_ERROR'],
  ])('email report refuses %s', async (_name, body, status, code) => {
    const before = smtp.messages.length;
    const res = await post('/fleet-email-report', { data: result, ...body }).expect(status);
    expect(res.body.error.code).toBe(code);
    expect(smtp.messages.length).toBe(before);
  });

  describe('without OUTBOUND_ALLOW_PRIVATE', () => {
    let strict: TestApp<LogisticsHooksConfig>;
    beforeAll(async () => {
      strict = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY });
    });
    afterAll(async () => strict?.close());

    it('never fetches a loopback or private link: not_found', async () => {
      const before = feed.requests.get('parked') ?? 0;
      const res = await strict.http.post('/ops-batch-track').send({ api_key: API_KEY, shipments: [{ tracking_url: feed.link('parked') }, { tracking_url: 'http://10.0.0.7/t/x' }, { tracking_url: 'file:///etc/passwd' }] }).expect(200);
      expect(res.body.totals).toMatchObject({ trucks: 3, on_time: 0, attention: 3, by_status: { not_found: 3 } });
      expect(res.body.shipments.map((s: { status: string }) => s.status)).toEqual(['not_found', 'not_found', 'not_found']);
      expect(res.body.shipments[0].reason).toBe('the link is not a public http(s) address');
      expect(feed.requests.get('parked') ?? 0).toBe(before);
      await strict.http.post('/ops-email-report').send({ api_key: API_KEY, to: 'a@b.example', data: {} }).expect(403);
    });
  });
});
