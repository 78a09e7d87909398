import { ENCRYPTED_PREFIX, TokenCipher, parseTokenKey } from './token-cipher';

describe('TokenCipher (tokens at rest)', () => {
  const hex = 'ab'.repeat(32);
  const cipher = new TokenCipher(parseTokenKey(hex));

  it('encrypts with AES-256-GCM and a fresh IV per value, and decrypts', () => {
    const a = cipher.encrypt('IGAA-token');
    const b = cipher.encrypt('IGAA-token');
    expect(a.startsWith(ENCRYPTED_PREFIX)).toBe(true);
    expect(a).not.toBe(b);
    expect(a).not.toContain('IGAA');
    expect(cipher.decrypt(a)).toBe('IGAA-token');
  });

  it('reads plaintext (rows stored before a key was set) as it is', () => {
    expect(cipher.decrypt('plain-token')).toBe('plain-token');
    expect(new TokenCipher(null).encrypt('plain-token')).toBe('plain-token');
  });

  it('refuses a tampered value, another key and a missing key', () => {
    const stored = cipher.encrypt('IGAA-token');
    const raw = Buffer.from(stored.slice(ENCRYPTED_PREFIX.length), 'base64url');
    raw[raw.length - 1] ^= 1;
    expect(() => cipher.decrypt(ENCRYPTED_PREFIX + raw.toString('base64url'))).toThrow(/cannot be decrypted/);
    expect(() => new TokenCipher(parseTokenKey('cd'.repeat(32))).decrypt(stored)).toThrow(/another key/);
    expect(() => new TokenCipher(null).decrypt(stored)).toThrow(/AUTOMATION_TOKEN_KEY is not set/);
  });

  it('takes the key as 64 hex characters or base64 of 32 bytes', () => {
    const b64 = Buffer.from(hex, 'hex').toString('base64');
    expect(parseTokenKey(b64).equals(Buffer.from(hex, 'hex'))).toBe(true);
    expect(parseTokenKey(Buffer.from(hex, 'hex').toString('base64url')).equals(Buffer.from(hex, 'hex'))).toBe(true);
    expect(() => parseTokenKey('c2hvcnQ=')).toThrow(/32 bytes/);
  });
});
