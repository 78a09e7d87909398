import { configuredTokenDecision, type StoredToken } from './configured-token';

describe('configuredTokenDecision', () => {
  const conf = { token: 'token-a', sha256: 'sha-a' };
  const other = { token: 'token-b', sha256: 'sha-b' };
  const refreshedAt = new Date('2026-01-01T00:00:00Z');
  const stored = (s: Partial<StoredToken>): StoredToken => ({ access_token: 'x', configured_token_sha256: null, token_refreshed_at: null, ...s });
  const cases: Array<[string, StoredToken | null, typeof conf | null, 'keep' | 'replace']> = [
    ['new account: take the configured token', null, conf, 'replace'],
    ['stored account without a token: take it', stored({ access_token: null, configured_token_sha256: 'sha-a' }), conf, 'replace'],
    ['same configuration, token refreshed since: keep the refreshed one', stored({ access_token: 'refreshed-1', configured_token_sha256: 'sha-a', token_refreshed_at: refreshedAt }), conf, 'keep'],
    ['same configuration, never refreshed: keep (it is the same token)', stored({ access_token: 'token-a', configured_token_sha256: 'sha-a' }), conf, 'keep'],
    ['configuration changed: the operator set a new token', stored({ access_token: 'refreshed-1', configured_token_sha256: 'sha-a', token_refreshed_at: refreshedAt }), other, 'replace'],
    ['no token configured: keep a token connected through the login flow', stored({ access_token: 'oauth-1' }), null, 'keep'],
    ['older row, same token: keep', stored({ access_token: 'token-a' }), conf, 'keep'],
    ['older row, refreshed by the service: keep the refreshed one', stored({ access_token: 'refreshed-9', token_refreshed_at: refreshedAt }), conf, 'keep'],
    ['older row, different never-refreshed token: take the configured one', stored({ access_token: 'token-old' }), conf, 'replace'],
  ];
  it.each(cases)('%s', (_name, s, c, expected) => {
    expect(configuredTokenDecision(s, c)).toBe(expected);
  });
});
