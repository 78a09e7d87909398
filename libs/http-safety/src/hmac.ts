import { createHmac, timingSafeEqual } from 'node:crypto';

const PREFIX = 'sha256=';

/** `sha256=<hex HMAC-SHA256 of body>`: the value of a webhook signature header (X-Service-Signature). */
export function hmacSignature(body: string | Buffer | Uint8Array, secret: string | Buffer): string {
  return PREFIX + createHmac('sha256', secret).update(body).digest('hex');
}

/** Constant-time check of a `sha256=<hex>` signature; false for a missing or malformed header. */
export function verifyHmacSignature(
  body: string | Buffer | Uint8Array,
  secret: string | Buffer,
  signature: string | null | undefined,
): boolean {
  if (typeof signature !== 'string' || !signature.startsWith(PREFIX)) return false;
  const hex = signature.slice(PREFIX.length);
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}
