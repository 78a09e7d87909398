import type { IncomingMessage } from 'node:http';
import { parseCatalog } from '../catalog/catalog';
import { healthUrlOf, retryAfterSeconds, startingBody, wantsPage } from './answers';

const service = parseCatalog(`services:
  - { name: tika, hosts: [tika.example.com], mode: async, upstream: 'http://tika:9998', provider: docker, target: tika, healthCheck: /tika }`).byName.get('tika')!;

const req = (headers: Record<string, string>, encrypted = false) => ({ headers, socket: { encrypted } }) as unknown as IncomingMessage;

describe('answers to requests for a service that is not ready', () => {
  it('Retry-After: what is left of the estimate, at least 1 s', () => {
    const since = new Date(1_000_000);
    expect(retryAfterSeconds(service, since, 1_000_000)).toBe(20);
    expect(retryAfterSeconds(service, since, 1_000_000 + 7_500)).toBe(13);
    expect(retryAfterSeconds(service, since, 1_000_000 + 60_000)).toBe(1);
  });

  it("the 202 body has the spec's fields", () => {
    expect(startingBody(service, 20, 'https://tika.example.com/health/tika.example.com')).toEqual({
      status: 'starting',
      message: expect.stringContaining('tika is starting'),
      service: 'tika',
      estimatedTime: 20,
      retryAfter: 20,
      healthCheckUrl: 'https://tika.example.com/health/tika.example.com',
    });
  });

  it('healthCheckUrl follows the address the client used (forwarded host and proto first)', () => {
    expect(healthUrlOf(req({ host: 'proxy:3007' }), 'tika.example.com')).toBe('http://proxy:3007/health/tika.example.com');
    expect(healthUrlOf(req({ host: 'proxy:3007', 'x-forwarded-host': 'tika.example.com', 'x-forwarded-proto': 'https, http' }), 'tika.example.com')).toBe(
      'https://tika.example.com/health/tika.example.com',
    );
  });

  it('browsers get the page, clients asking for JSON get 202', () => {
    expect(wantsPage(req({}))).toBe(true);
    expect(wantsPage(req({ accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }))).toBe(true);
    expect(wantsPage(req({ accept: '*/*' }))).toBe(true);
    expect(wantsPage(req({ accept: 'application/json' }))).toBe(false);
    expect(wantsPage(req({ accept: 'application/json, text/plain, */*' }))).toBe(false);
  });
});
