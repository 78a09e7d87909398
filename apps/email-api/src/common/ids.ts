import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** A prefixed random id such as `cnt_k3j9…` (20 base-36 characters, about 103 bits). */
export function newId(prefix: 'cnt' | 'evt' | 'eml' | 'job'): string {
  const bytes = randomBytes(20);
  let out = `${prefix}_`;
  for (const b of bytes) out += ALPHABET[b % 36];
  return out;
}
