import { MemoryRateLimiter } from '@platform/rate-limit';
import { LoginRateLimiter } from './login-rate-limiter';

describe('LoginRateLimiter', () => {
  let t = 0;
  const limiter = () => new LoginRateLimiter(new MemoryRateLimiter({ now: () => t }), { perAccount: 3, perIp: 5, windowMs: 60_000 });
  beforeEach(() => {
    t = 1_000_000;
  });

  it('allows up to the per-account limit per IP, then refuses with the seconds left', async () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) expect((await l.attempt('1.1.1.1', 'a@x.io')).allowed).toBe(true);
    t += 15_000;
    expect(await l.attempt('1.1.1.1', 'A@X.io ')).toEqual({ allowed: false, retryAfterSeconds: 45 });
    // another account from the same IP, and the same account from another IP, are still allowed
    expect((await l.attempt('1.1.1.1', 'b@x.io')).allowed).toBe(true);
    expect((await l.attempt('2.2.2.2', 'a@x.io')).allowed).toBe(true);
  });

  it('limits an IP across accounts', async () => {
    const l = limiter();
    for (let i = 0; i < 5; i++) expect((await l.attempt('1.1.1.1', `u${i}@x.io`)).allowed).toBe(true);
    expect((await l.attempt('1.1.1.1', 'fresh@x.io')).allowed).toBe(false);
    expect((await l.attempt('9.9.9.9', 'fresh@x.io')).allowed).toBe(true);
  });

  it('opens again when the window has passed', async () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) await l.attempt('1.1.1.1', 'a@x.io');
    expect((await l.attempt('1.1.1.1', 'a@x.io')).allowed).toBe(false);
    t += 60_000;
    expect((await l.attempt('1.1.1.1', 'a@x.io')).allowed).toBe(true);
  });

  it('does not count refused attempts against other keys', async () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) await l.attempt('1.1.1.1', 'a@x.io');
    for (let i = 0; i < 10; i++) await l.attempt('1.1.1.1', 'a@x.io'); // refused, not counted on the IP
    expect((await l.attempt('1.1.1.1', 'b@x.io')).allowed).toBe(true);
    expect((await l.attempt('1.1.1.1', 'c@x.io')).allowed).toBe(true);
  });
});
