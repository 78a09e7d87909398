import { assessRefreshToken, newRefreshToken, refreshTokenHash } from './refresh-rotation';

const now = new Date('2026-11-22T12:00:00Z');
const later = new Date('2026-11-29T12:00:00Z');

describe('refresh-token rotation rules', () => {
  it('rotates a fresh, unused, unrevoked token', () => {
    expect(assessRefreshToken({ expiresAt: later, usedAt: null, revokedAt: null }, now)).toEqual({ kind: 'rotate' });
  });

  it('refuses an unknown token', () => {
    expect(assessRefreshToken(null, now)).toEqual({ kind: 'refuse', reason: 'unknown' });
  });

  it('detects reuse of a token that was already rotated', () => {
    expect(assessRefreshToken({ expiresAt: later, usedAt: now, revokedAt: null }, now)).toEqual({ kind: 'reuse' });
  });

  it('refuses tokens of a revoked family, used or not', () => {
    expect(assessRefreshToken({ expiresAt: later, usedAt: null, revokedAt: now }, now)).toEqual({ kind: 'refuse', reason: 'revoked' });
    expect(assessRefreshToken({ expiresAt: later, usedAt: now, revokedAt: now }, now)).toEqual({ kind: 'refuse', reason: 'revoked' });
  });

  it('refuses an expired token (expiry is exclusive)', () => {
    expect(assessRefreshToken({ expiresAt: now, usedAt: null, revokedAt: null }, now)).toEqual({ kind: 'refuse', reason: 'expired' });
  });

  it('creates opaque random tokens stored as their SHA-256', () => {
    const a = newRefreshToken();
    const b = newRefreshToken();
    expect(a.token).toMatch(/^lrt_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(refreshTokenHash(a.token)).toBe(a.hash);
    expect(a.hash).not.toContain(a.token);
  });
});
