/** The state of a stored refresh token that decides what a refresh does with it. */
export interface RefreshTokenState {
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

export type RefreshVerdict = { kind: 'rotate' } | { kind: 'reuse' } | { kind: 'refuse'; reason: 'unknown' | 'revoked' | 'expired' };

/**
 * Rotation rules of refresh tokens kept in families (one family per login session):
 * - unknown token → refuse;
 * - token of a revoked family (logout or detected reuse) → refuse;
 * - token already used (rotated) → reuse: the caller revokes the whole family, since either the
 *   legitimate client or an attacker holds a stolen copy and there is no telling which;
 * - expired (expiry exclusive) → refuse;
 * - otherwise → rotate (use it up, issue the next one in the same family).
 */
export function assessRefreshToken(token: RefreshTokenState | null, now: Date): RefreshVerdict {
  if (!token) return { kind: 'refuse', reason: 'unknown' };
  if (token.revokedAt) return { kind: 'refuse', reason: 'revoked' };
  if (token.usedAt) return { kind: 'reuse' };
  if (token.expiresAt.getTime() <= now.getTime()) return { kind: 'refuse', reason: 'expired' };
  return { kind: 'rotate' };
}
