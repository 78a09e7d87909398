import { generateApiKey, hashApiKey, safeEqual, verifyApiKey } from './api-key';

describe('API keys', () => {
  it('generates prefixed 256-bit keys that differ each time', () => {
    const a = generateApiKey('lgk');
    const b = generateApiKey('lgk');
    expect(a).toMatch(/^lgk_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
  });

  it('refuses a prefix that would make keys ambiguous', () => {
    expect(() => generateApiKey('a_b')).toThrow(/alphanumeric/);
  });

  it('hashes with sha256 hex', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('compares in constant time, including strings of different lengths', () => {
    expect(safeEqual('same', 'same')).toBe(true);
    expect(safeEqual('same', 'Same')).toBe(false);
    expect(safeEqual('short', 'much longer')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });

  it('verifies a key against its stored hash', () => {
    const key = generateApiKey('k');
    expect(verifyApiKey(key, hashApiKey(key))).toBe(true);
    expect(verifyApiKey(`${key}x`, hashApiKey(key))).toBe(false);
  });
});
