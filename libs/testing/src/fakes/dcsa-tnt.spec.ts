import { startFakeDcsaTnt, type FakeDcsaTnt } from './dcsa-tnt';

const event = (n: number, container = 'MAEU7654320') => ({ eventID: `e${n}`, eventType: 'EQUIPMENT' as const, eventClassifierCode: 'ACT' as const, equipmentEventTypeCode: 'GTIN', equipmentReference: container, eventDateTime: `2026-11-0${n}T00:00:00Z` });

describe('fake DCSA Track & Trace server', () => {
  let fake: FakeDcsaTnt;
  afterEach(async () => fake?.close());

  it('filters by reference and pages with Next-Page cursors (header key auth)', async () => {
    fake = await startFakeDcsaTnt({
      auth: { type: 'header', name: 'Consumer-Key', value: 'k' },
      maxLimit: 2,
      shipments: [{ equipmentReferences: ['MAEU7654320'], carrierBookingReference: 'B1', events: [1, 2, 3].map((n) => event(n)) }, { equipmentReferences: ['MSCU0000001'], events: [event(4, 'MSCU0000001')] }],
    });
    expect((await fetch(`${fake.url}/v2/events?equipmentReference=MAEU7654320`)).status).toBe(401);
    const first = await fetch(`${fake.url}/v2/events?equipmentReference=MAEU7654320&limit=100`, { headers: { 'Consumer-Key': 'k' } });
    expect(first.headers.get('api-version')).toBe('2.2.0');
    expect(((await first.json()) as { eventID: string }[]).map((e) => e.eventID)).toEqual(['e1', 'e2']);
    const next = first.headers.get('next-page')!;
    const second = await fetch(`${fake.url}/v2/events?cursor=${next}`, { headers: { 'Consumer-Key': 'k' } });
    expect(((await second.json()) as { eventID: string }[]).map((e) => e.eventID)).toEqual(['e3']);
    expect(second.headers.get('next-page')).toBeNull();
    const booking = await fetch(`${fake.url}/v2/events?carrierBookingReference=B1`, { headers: { 'Consumer-Key': 'k' } });
    expect(await booking.json()).toHaveLength(2);
    const none = await fetch(`${fake.url}/v2/events?transportDocumentReference=X`, { headers: { 'Consumer-Key': 'k' } });
    expect(await none.json()).toEqual([]);
  });

  it('issues OAuth2 client-credentials tokens and accepts only them', async () => {
    fake = await startFakeDcsaTnt({ auth: { type: 'oauth2', clientId: 'id', clientSecret: 'secret' }, shipments: [] });
    const bad = await fetch(fake.tokenUrl, { method: 'POST', body: 'grant_type=client_credentials&client_id=id&client_secret=nope', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(bad.status).toBe(401);
    const good = await fetch(fake.tokenUrl, { method: 'POST', body: 'grant_type=client_credentials&client_id=id&client_secret=secret', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const { access_token } = (await good.json()) as { access_token: string };
    expect((await fetch(`${fake.url}/v2/events`, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(200);
    fake.expireTokens();
    expect((await fetch(`${fake.url}/v2/events`, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(401);
  });

  it('answers outages with the configured status', async () => {
    fake = await startFakeDcsaTnt({ auth: { type: 'bearer', token: 't' } });
    fake.fail = 503;
    const res = await fetch(`${fake.url}/v2/events`, { headers: { authorization: 'Bearer t' } });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { statusCode: number }).statusCode).toBe(503);
  });
});
