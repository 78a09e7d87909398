import { generateApiKey, hashApiKey } from '@platform/auth';

// The rotation rules (reuse of a rotated token revokes the family) are @platform/auth's, shared with conversation-api.
export { assessRefreshToken, type RefreshTokenState, type RefreshVerdict } from '@platform/auth';

/** A new opaque refresh token (`lrt_` + 256 random bits) and the SHA-256 that is stored instead of it. */
export function newRefreshToken(): { token: string; hash: string } {
  const token = generateApiKey('lrt');
  return { token, hash: hashApiKey(token) };
}

export function refreshTokenHash(token: string): string {
  return hashApiKey(token);
}
