import { newOpaqueToken, tokenHash } from './refresh-rotation';

describe('opaque tokens', () => {
  it('are random, prefixed and stored by hash', () => {
    const { token, hash } = newOpaqueToken('crt');
    expect(token).toMatch(/^crt_[A-Za-z0-9_-]{43}$/);
    expect(newOpaqueToken('crt').token).not.toBe(token);
    expect(tokenHash(token)).toBe(hash);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
