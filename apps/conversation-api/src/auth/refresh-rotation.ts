import { generateApiKey, hashApiKey } from '@platform/auth';

export interface RefreshTokenState {
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

export type RefreshVerdict = { kind: 'rotate' } | { kind: 'reuse' } | { kind: 'refuse'; reason: 'unknown' | 'revoked' | 'expired' };

/**
 * What a refresh does with a presented token: unknown, revoked (logout, detected reuse) or expired
 * → refuse; already used (rotated) → reuse, and the caller revokes the whole family, since either the
 * client or a thief holds a stolen copy; otherwise rotate.
 */
export function assessRefreshToken(token: RefreshTokenState | null, now: Date): RefreshVerdict {
  if (!token) return { kind: 'refuse', reason: 'unknown' };
  if (token.revokedAt) return { kind: 'refuse', reason: 'revoked' };
  if (token.usedAt) return { kind: 'reuse' };
  if (token.expiresAt.getTime() <= now.getTime()) return { kind: 'refuse', reason: 'expired' };
  return { kind: 'rotate' };
}

/** An opaque token (`crt_` + 256 random bits) and its SHA-256, which is what is stored. */
export function newOpaqueToken(prefix: string): { token: string; hash: string } {
  const token = generateApiKey(prefix);
  return { token, hash: hashApiKey(token) };
}

export const tokenHash = (token: string): string => hashApiKey(token);
