// POST /ocean-track over HTTP on a throwaway PostgreSQL database against three fake carriers serving
// DCSA Track & Trace v2.2, one per authentication mode (API key header, bearer, OAuth2 client
// credentials): the right filter per kind of reference, Next-Page paging, the normalized answer, the
// database cache (one carrier call for concurrent identical requests), stale answers and error records
// when a carrier fails, and the refusals.
import { createTestApp, startFakeDcsaTnt, type FakeDcsaTnt, type TestApp, sampleDcsaShipment, SAMPLE_DCSA_TRACKING } from '@platform/testing';
import type { LogisticsHooksConfig } from '../config';
import { ErrorReportsService } from '../error-reports/error-reports.service';
import { logisticsHooksService } from '../service';

const API_KEY = 'test-logistics-key-0123456789';

describe('POST /ocean-track (DCSA Track & Trace)', () => {
  let maersk: FakeDcsaTnt;
  let msc: FakeDcsaTnt;
  let cma: FakeDcsaTnt;
  let t: TestApp<LogisticsHooksConfig>;
  const track = (body: Record<string, unknown>) => t.http.post('/ocean-track').send({ api_key: API_KEY, ...body });

  const carriers = () =>
    JSON.stringify({
      MAERSK: { url: maersk.url, version: '2.2.0', auth: { type: 'header', header: 'Consumer-Key', key: 'maersk-key' } },
      MSC: { url: `${msc.url}/`, auth: { type: 'bearer', token: 'msc-token' } },
      'CMA-CGM': { url: cma.url, auth: { type: 'oauth2', token_url: cma.tokenUrl, client_id: 'cma-client', client_secret: 'cma-secret' } },
    });

  beforeAll(async () => {
    maersk = await startFakeDcsaTnt({ auth: { type: 'header', name: 'Consumer-Key', value: 'maersk-key' }, maxLimit: 3, shipments: [sampleDcsaShipment()] });
    msc = await startFakeDcsaTnt({ auth: { type: 'bearer', token: 'msc-token' }, shipments: [sampleDcsaShipment('MSCU1234566', 'MEDUAB123456', '777000111')] });
    cma = await startFakeDcsaTnt({ auth: { type: 'oauth2', clientId: 'cma-client', clientSecret: 'cma-secret' }, shipments: [sampleDcsaShipment('CMAU1234564', 'CMDUSHA1234567', '555123')] });
    t = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, OCEAN_CARRIERS: carriers(), OCEAN_CACHE_TTL_SECONDS: '600' });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([maersk, msc, cma].map((f) => f?.close()));
  });

  it('requires the API key', async () => {
    const res = await t.http.post('/ocean-track').send({ tracking_number: '240123456', carrier: 'MAERSK' }).expect(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
    await t.http.post('/ocean-track').send({ api_key: 'wrong-key-0123456789', tracking_number: '240123456', carrier: 'MAERSK' }).expect(401);
    expect(maersk.requests).toHaveLength(0);
    const ok = await t.http.post('/ocean-track').set('x-api-key', API_KEY).send({ tracking_number: '240123456', carrier: 'MAERSK' }).expect(200);
    expect(ok.body).toMatchObject({ kind: 'booking', carrier: 'MAERSK' });
  });

  it('a container: equipmentReference, carrier from the prefix, API key header, every page followed', async () => {
    maersk.requests.length = 0;
    const res = await track({ tracking_number: 'MAEU 765432-0', carrier: 'maersk' }).expect(200);
    expect(res.body).toMatchObject({ success: true, tracking_number: 'MAEU7654320', kind: 'container', carrier: 'MAERSK', carrier_name: 'Maersk', ...SAMPLE_DCSA_TRACKING });
    expect(res.body.events).toHaveLength(7);
    expect(res.body.events.map((e: { at: string }) => e.at)).toEqual([...res.body.events.map((e: { at: string }) => e.at)].sort());
    const calls = maersk.requests.filter((r) => r.path === '/v2/events');
    expect(calls.length).toBe(3); // 7 events, 3 per page
    expect(calls[0].query).toMatchObject({ equipmentReference: 'MAEU7654320' });
    expect(calls[1].query.cursor).toBeTruthy();
    expect(calls[0].headers['consumer-key']).toBe('maersk-key');
    expect(calls[0].headers['api-version']).toBe('2');
  });

  it('a bill of lading: transportDocumentReference, bearer token', async () => {
    const res = await track({ tracking_number: 'MEDUAB123456' }).expect(200);
    expect(res.body).toMatchObject({ kind: 'bill_of_lading', carrier: 'MSC', source: 'carrier', ...SAMPLE_DCSA_TRACKING });
    const call = msc.requests.at(-1)!;
    expect(call.query).toMatchObject({ transportDocumentReference: 'MEDUAB123456' });
    expect(call.headers.authorization).toBe('Bearer msc-token');
  });

  it('a booking: carrierBookingReference, OAuth2 client credentials (token reused, fetched again after a 401)', async () => {
    const res = await track({ tracking_number: '555123', carrier: 'CMA CGM' }).expect(200);
    expect(res.body).toMatchObject({ kind: 'booking', carrier: 'CMA', carrier_name: 'CMA CGM', status: 'LOADED' });
    expect(cma.requests.at(-1)!.query).toMatchObject({ carrierBookingReference: '555123' });
    expect(cma.issuedTokens).toHaveLength(1);
    await track({ tracking_number: 'CMAU1234564' }).expect(200);
    expect(cma.issuedTokens).toHaveLength(1);
    cma.expireTokens();
    await track({ tracking_number: 'CMDUSHA1234567', reference_type: 'bill_of_lading' }).expect(200);
    expect(cma.issuedTokens).toHaveLength(2);
  });

  it('answers from the database cache, one carrier call for concurrent identical requests', async () => {
    msc.shipments.push(sampleDcsaShipment('MSCU7777771', 'MEDUCC000001', '900900'));
    msc.delayMs = 150;
    const before = msc.requests.length;
    const answers = await Promise.all(Array.from({ length: 6 }, () => track({ tracking_number: 'MSCU7777771' })));
    msc.delayMs = 0;
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(msc.requests.length - before).toBe(1);
    expect(answers.filter((a) => a.body.source === 'carrier')).toHaveLength(1);
    const again = await track({ tracking_number: 'MSCU7777771' }).expect(200);
    expect(again.body).toMatchObject({ source: 'cache', stale: false, vessel: 'MAERSK ESSEN' });
    expect(msc.requests.length - before).toBe(1);
  });

  it.each([
    ['a wrong check digit names the expected one', { tracking_number: 'MAEU7654321' }, 422, 'INVALID_TRACKING_NUMBER', 'should be 0'],
    ['an unconfigured carrier', { tracking_number: 'ONEU0000007' }, 503, 'CARRIER_NOT_CONFIGURED', 'Ocean Network Express'],
    ['an unknown carrier', { tracking_number: '123456', carrier: 'ACME' }, 400, 'UNKNOWN_CARRIER', 'ACME'],
    ['a booking without carrier', { tracking_number: '123456' }, 422, 'CARRIER_REQUIRED', '123456'],
    ['no tracking number', {}, 422, 'VALIDATION_ERROR', 'tracking_number'],
    ['a bad reference type', { tracking_number: '123456', reference_type: 'pallet' }, 422, 'VALIDATION_ERROR', 'reference_type'],
  ])('refuses %s', async (_name, body, status, code, text) => {
    const res = await track(body).expect(status);
    expect(res.body.error.code).toBe(code);
    expect(JSON.stringify(res.body.error)).toContain(text);
  });

  describe('carrier failures (cache expired at once)', () => {
    let t0: TestApp<LogisticsHooksConfig>;
    beforeAll(async () => {
      t0 = await createTestApp(logisticsHooksService, { LOGISTICS_API_KEY: API_KEY, OCEAN_CARRIERS: carriers(), OCEAN_CACHE_TTL_SECONDS: '0', OCEAN_TIMEOUT_MS: '300' });
    });
    afterAll(async () => {
      maersk.fail = null;
      maersk.delayMs = 0;
      await t0?.close();
    });

    it('answers the last stored result with its age, 502 without one, and records the failure', async () => {
      const fresh = await t0.http.post('/ocean-track').send({ api_key: API_KEY, tracking_number: 'MAEU7654320' }).expect(200);
      expect(fresh.body).toMatchObject({ source: 'carrier', stale: false });
      maersk.fail = 503;
      const stale = await t0.http.post('/ocean-track').send({ api_key: API_KEY, tracking_number: 'MAEU7654320' }).expect(200);
      expect(stale.body).toMatchObject({ source: 'stale_cache', stale: true, fetched_at: fresh.body.fetched_at, ...SAMPLE_DCSA_TRACKING });
      expect(stale.body.age_seconds).toBeGreaterThanOrEqual(0);
      const none = await t0.http.post('/ocean-track').send({ api_key: API_KEY, tracking_number: 'MAEU240123456' }).expect(502);
      expect(none.body.error.code).toBe('CARRIER_UNAVAILABLE');
      maersk.fail = null;
      maersk.delayMs = 1000;
      await t0.http.post('/ocean-track').send({ api_key: API_KEY, tracking_number: '240123456', carrier: 'MAERSK' }).expect(502);

      const { errors } = await t0.app.get(ErrorReportsService).list({ source: 'ocean-track' });
      const byMessage = Object.fromEntries(errors.map((e) => [e.message, e]));
      expect(byMessage['ocean-track: MAERSK answered 503']).toMatchObject({ occurrences: 2, severity: 'warning', status: 'open' });
      expect(byMessage['ocean-track: MAERSK did not answer']).toMatchObject({ occurrences: 1 });
    });
  });
});
