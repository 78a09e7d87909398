import { categorise, parseFeed, totals, type FeedOutcome } from './truck-status';

const NOW = new Date('2026-11-28T12:00:00Z');
const pos = (over: Record<string, unknown> = {}): FeedOutcome => parseFeed({ lat: 19.4, lon: -99.1, speed: 60, recorded_at: '2026-11-28T11:55:00Z', driver: 'Ana', ...over });

describe('truck categories', () => {
  it.each<[string, FeedOutcome, string | null, string]>([
    ['the feed failed → not_found', { kind: 'failed', reason: 'timeout' }, '2026-11-28T18:00:00Z', 'not_found'],
    ['410 Gone → expired', { kind: 'gone' }, '2026-11-28T18:00:00Z', 'expired'],
    ['a position 121 minutes old → expired', pos({ recorded_at: '2026-11-28T09:59:00Z' }), '2026-11-28T18:00:00Z', 'expired'],
    ['a position 120 minutes old is still live', pos({ recorded_at: '2026-11-28T10:00:00Z' }), '2026-11-28T18:00:00Z', 'on_time'],
    ['feed ETA 31 minutes after the plan → delayed', pos({ eta: '2026-11-28T18:31:00Z' }), '2026-11-28T18:00:00Z', 'delayed'],
    ['feed ETA 30 minutes after the plan → on time', pos({ eta: '2026-11-28T18:30:00Z' }), '2026-11-28T18:00:00Z', 'on_time'],
    ['feed ETA before the plan → on time', pos({ eta: '2026-11-28T17:00:00Z' }), '2026-11-28T18:00:00Z', 'on_time'],
    ['planned ETA passed 31 minutes ago, no feed ETA → delayed', pos(), '2026-11-28T11:29:00Z', 'delayed'],
    ['planned ETA passed 20 minutes ago, no feed ETA → on time (tolerance)', pos(), '2026-11-28T11:40:00Z', 'on_time'],
    ['speed 4.9 km/h → stopped', pos({ speed: 4.9 }), '2026-11-28T18:00:00Z', 'stopped'],
    ['speed 5 km/h → on time', pos({ speed: 5 }), '2026-11-28T18:00:00Z', 'on_time'],
    ['stopped and late → delayed wins', pos({ speed: 0, eta: '2026-11-28T20:00:00Z' }), '2026-11-28T18:00:00Z', 'delayed'],
    ['expired and late → expired wins', pos({ recorded_at: '2026-11-28T06:00:00Z', eta: '2026-11-28T20:00:00Z' }), '2026-11-28T18:00:00Z', 'expired'],
    ['no planned ETA: moving → on time', pos(), null, 'on_time'],
    ['no planned ETA: standing → stopped', pos({ speed: 0 }), null, 'stopped'],
  ])('%s', (_name, outcome, eta, expected) => {
    expect(categorise(outcome, eta, NOW).status).toBe(expected);
  });

  it('reports the delay and the age', () => {
    expect(categorise(pos({ eta: '2026-11-28T19:00:00Z' }), '2026-11-28T18:00:00Z', NOW)).toMatchObject({ status: 'delayed', delay_minutes: 60, age_minutes: 5, eta: '2026-11-28T19:00:00.000Z' });
  });

  it.each([
    ['not an object', [1, 2], 'JSON object'],
    ['no lat', { lon: 1, recorded_at: '2026-11-28T11:00:00Z' }, 'lat/lon'],
    ['lat out of range', { lat: 91, lon: 1, recorded_at: '2026-11-28T11:00:00Z' }, 'lat/lon'],
    ['no time', { lat: 1, lon: 1 }, 'recorded_at'],
    ['a bad time', { lat: 1, lon: 1, recorded_at: 'yesterday' }, 'recorded_at'],
  ])('a feed with %s is not a position', (_name, body, reason) => {
    const r = parseFeed(body);
    expect(r.kind).toBe('failed');
    if (r.kind === 'failed') expect(r.reason).toContain(reason);
  });

  it('reads numbers given as text, lng for lon, and a negative speed as 0', () => {
    expect(parseFeed({ lat: '19.5', lng: '-99.2', speed: -3, recorded_at: '2026-11-28T11:00:00Z', driver: ' Luis ', location: 'Km 45 México-Querétaro' })).toEqual({
      kind: 'position',
      position: { lat: 19.5, lon: -99.2, speed: 0, recorded_at: '2026-11-28T11:00:00.000Z', driver: 'Luis', eta: null, location: 'Km 45 México-Querétaro' },
    });
  });

  it('totals: attention is every category but on_time', () => {
    expect(totals(['on_time', 'stopped', 'delayed', 'on_time', 'not_found', 'expired'])).toEqual({
      trucks: 6, on_time: 2, attention: 4, by_status: { on_time: 2, stopped: 1, delayed: 1, expired: 1, not_found: 1 },
    });
    expect(totals([])).toEqual({ trucks: 0, on_time: 0, attention: 0, by_status: { on_time: 0, stopped: 0, delayed: 0, expired: 0, not_found: 0 } });
  });
});
