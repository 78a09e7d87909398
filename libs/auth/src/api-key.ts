import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A new random API key: `<prefix>_<43 base64url characters>` (256 bits). Show it once to its
 * owner and store only {@link hashApiKey} of it.
 */
export function generateApiKey(prefix: string): string {
  if (!/^[A-Za-z0-9]+$/.test(prefix)) throw new Error('API key prefix must be alphanumeric');
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** SHA-256 hex digest of a key: keys are high-entropy, so a fast hash is the right tool. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings of any length (both are hashed to a fixed size first). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

/** True when `key` hashes to `storedHash`, compared in constant time. */
export function verifyApiKey(key: string, storedHash: string): boolean {
  return safeEqual(hashApiKey(key), storedHash);
}
