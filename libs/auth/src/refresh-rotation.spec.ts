import { assessRefreshToken } from './refresh-rotation';

const now = new Date('2026-01-01T00:00:00Z');
const later = new Date('2026-01-08T00:00:00Z');

describe('assessRefreshToken', () => {
  it.each([
    ['unknown', null, { kind: 'refuse', reason: 'unknown' }],
    ['fresh', { expiresAt: later, usedAt: null, revokedAt: null }, { kind: 'rotate' }],
    ['used', { expiresAt: later, usedAt: now, revokedAt: null }, { kind: 'reuse' }],
    ['revoked and used', { expiresAt: later, usedAt: now, revokedAt: now }, { kind: 'refuse', reason: 'revoked' }],
    ['revoked', { expiresAt: later, usedAt: null, revokedAt: now }, { kind: 'refuse', reason: 'revoked' }],
    ['expired (exclusive)', { expiresAt: now, usedAt: null, revokedAt: null }, { kind: 'refuse', reason: 'expired' }],
  ] as const)('%s', (_name, token, verdict) => {
    expect(assessRefreshToken(token as never, now)).toEqual(verdict);
  });
});
