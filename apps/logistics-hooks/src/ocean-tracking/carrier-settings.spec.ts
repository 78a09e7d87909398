import { parseCarrierSettings } from './carrier-settings';

describe('OCEAN_CARRIERS', () => {
  it('reads each auth mode', () => {
    const { endpoints, errors } = parseCarrierSettings(
      JSON.stringify({
        maersk: { url: 'https://api.maersk.example/tnt/', auth: { type: 'header', header: 'Consumer-Key', key: 'k1' } },
        MSC: { url: 'https://msc.example', version: '2.2', auth: { type: 'bearer', token: 't1' } },
        'CMA-CGM': { url: 'https://cma.example', auth: { type: 'oauth2', token_url: 'https://cma.example/token', client_id: 'id', client_secret: 's', scope: 'tnt' } },
      }),
    );
    expect(errors).toEqual([]);
    expect(Object.fromEntries(endpoints)).toEqual({
      MAERSK: { url: 'https://api.maersk.example/tnt', version: '2.2.0', auth: { type: 'header', header: 'Consumer-Key', key: 'k1' } },
      MSC: { url: 'https://msc.example', version: '2.2', auth: { type: 'bearer', token: 't1' } },
      CMA: { url: 'https://cma.example', version: '2.2.0', auth: { type: 'oauth2', tokenUrl: 'https://cma.example/token', clientId: 'id', clientSecret: 's', scope: 'tnt' } },
    });
  });

  it.each([
    ['not JSON', '{', 'must be a JSON object'],
    ['an array', '[]', 'must be a JSON object'],
    ['an unknown carrier', JSON.stringify({ ACME: {} }), 'OCEAN_CARRIERS.ACME: unknown carrier'],
    ['a bad URL', JSON.stringify({ ONE: { url: 'ftp://x', auth: { type: 'bearer', token: 't' } } }), 'OCEAN_CARRIERS.ONE.url'],
    ['version 3', JSON.stringify({ ONE: { url: 'https://x', version: '3.0.0', auth: { type: 'bearer', token: 't' } } }), 'OCEAN_CARRIERS.ONE.version'],
    ['a header without key', JSON.stringify({ ONE: { url: 'https://x', auth: { type: 'header', header: 'X-Key' } } }), 'OCEAN_CARRIERS.ONE.auth.key'],
    ['a bad header name', JSON.stringify({ ONE: { url: 'https://x', auth: { type: 'header', header: 'X Key', key: 'k' } } }), 'OCEAN_CARRIERS.ONE.auth.header'],
    ['oauth2 without secret', JSON.stringify({ ONE: { url: 'https://x', auth: { type: 'oauth2', token_url: 'https://x/t', client_id: 'a' } } }), 'client_secret are required'],
    ['no auth', JSON.stringify({ ONE: { url: 'https://x' } }), 'OCEAN_CARRIERS.ONE.auth.type'],
  ])('refuses %s', (_name, json, message) => {
    const { endpoints, errors } = parseCarrierSettings(json);
    expect(errors.join('; ')).toContain(message);
    expect(endpoints.size).toBe(0);
  });

  it('is empty when unset', () => {
    expect(parseCarrierSettings(undefined)).toEqual({ endpoints: new Map(), errors: [] });
  });
});
