import { hashPassword, verifyPassword } from './password';

describe('password hashing', () => {
  it('hashes with argon2id and a random salt', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(a).not.toBe(b);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse');
    await expect(verifyPassword(stored, 'correct horse')).resolves.toBe(true);
    await expect(verifyPassword(stored, 'correct horsE')).resolves.toBe(false);
  });

  it('returns false (after hashing a dummy) for a missing or garbage hash', async () => {
    await expect(verifyPassword(undefined, 'x')).resolves.toBe(false);
    await expect(verifyPassword(null, 'x')).resolves.toBe(false);
    await expect(verifyPassword('not-a-hash', 'x')).resolves.toBe(false);
    await expect(verifyPassword('$argon2id$broken', 'x')).resolves.toBe(false);
  });
});
