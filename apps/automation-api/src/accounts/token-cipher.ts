import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ValueTransformer } from 'typeorm';

/** Prefix of a stored value encrypted by TokenCipher (format version 1). */
export const ENCRYPTED_PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The 32-byte key of `AUTOMATION_TOKEN_KEY`: 64 hex characters or base64 / base64url of 32 bytes. */
export function parseTokenKey(raw: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32) throw new Error('AUTOMATION_TOKEN_KEY must be 32 bytes: 64 hex characters or base64 of 32 bytes');
  return key;
}

/**
 * Platform tokens at rest: AES-256-GCM with a random 96-bit IV per value, stored as
 * `enc:v1:<base64url(iv | tag | ciphertext)>`. Values without the prefix are plaintext (rows written
 * before a key was configured) and are read as they are; the accounts feature re-encrypts them at start.
 */
export class TokenCipher {
  constructor(private readonly key: Buffer | null) {}

  get enabled(): boolean {
    return this.key !== null;
  }

  encrypt(plain: string): string {
    if (!this.key) return plain;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ENCRYPTED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The plaintext; throws when the value was encrypted and no key (or another key) is configured. */
  decrypt(stored: string): string {
    if (!stored.startsWith(ENCRYPTED_PREFIX)) return stored;
    if (!this.key) throw new Error('a stored token is encrypted but AUTOMATION_TOKEN_KEY is not set');
    const raw = Buffer.from(stored.slice(ENCRYPTED_PREFIX.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('a stored token is not a valid encrypted value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('a stored token cannot be decrypted with AUTOMATION_TOKEN_KEY (another key encrypted it)');
    }
  }

  static isEncrypted(stored: string | null): boolean {
    return stored !== null && stored.startsWith(ENCRYPTED_PREFIX);
  }
}

/**
 * The cipher the entity columns use, set by the accounts feature from the configuration at start
 * (`useTokenCipher`). A value that cannot be decrypted reads as null (the account then shows as not
 * connected, and `lastDecryptError` says why) rather than failing every read of the account.
 */
let active = new TokenCipher(null);
export let lastDecryptError: string | null = null;

export function useTokenCipher(cipher: TokenCipher): void {
  active = cipher;
  lastDecryptError = null;
}

export function activeTokenCipher(): TokenCipher {
  return active;
}

/** TypeORM transformer of the token columns: encrypted on write, decrypted on read (plaintext read as is). */
export const encryptedColumn: ValueTransformer = {
  to: (value: string | null | undefined) => (typeof value === 'string' && !TokenCipher.isEncrypted(value) ? active.encrypt(value) : value),
  from: (value: string | null) => {
    if (value === null || value === undefined) return value;
    try {
      return active.decrypt(value);
    } catch (err) {
      lastDecryptError = (err as Error).message;
      return null;
    }
  },
};
