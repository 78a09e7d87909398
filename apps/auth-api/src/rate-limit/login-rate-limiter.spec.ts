import { ApiError } from '@platform/errors';
import { MemoryRateLimiter } from '@platform/rate-limit';
import { LoginRateLimiter } from './login-rate-limiter';

describe('LoginRateLimiter', () => {
  let t = 0;
  const limiter = () => new LoginRateLimiter(new MemoryRateLimiter({ now: () => t }), { perAccount: 3, perIp: 5, windowMs: 60_000 });
  const wrong = async (): Promise<null> => null;
  const right = async (): Promise<string> => 'user';
  beforeEach(() => {
    t = 1_000_000;
  });

  /** The status a guarded login would answer: 200 (right), 401 (wrong) or 429. */
  async function status(l: LoginRateLimiter, ip: string, account: string, verify: () => Promise<string | null>): Promise<number> {
    try {
      return (await l.guard(ip, account, verify)) === null ? 401 : 200;
    } catch (err) {
      if (err instanceof ApiError) return err.getStatus();
      throw err;
    }
  }

  it('counts failures per IP and account, then refuses every attempt (a right one too) with the seconds left', async () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) expect(await status(l, '1.1.1.1', 'a@x.io', wrong)).toBe(401);
    t += 15_000;
    await expect(l.check('1.1.1.1', 'A@X.io ')).resolves.toEqual({ allowed: false, retryAfterSeconds: 45 });
    expect(await status(l, '1.1.1.1', 'a@x.io', right)).toBe(429);
    const refused = await l.guard('1.1.1.1', 'a@x.io', right).catch((err: ApiError) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).headers).toEqual({ 'Retry-After': '45' });
    // another account from the same IP, and the same account from another IP, are still allowed
    expect(await status(l, '1.1.1.1', 'b@x.io', right)).toBe(200);
    expect(await status(l, '2.2.2.2', 'a@x.io', right)).toBe(200);
  });

  it('does not count successful logins', async () => {
    const l = limiter();
    for (let i = 0; i < 20; i++) expect(await status(l, '1.1.1.1', 'a@x.io', right)).toBe(200);
    expect(await status(l, '1.1.1.1', 'a@x.io', wrong)).toBe(401);
  });

  it('limits the failures of an IP across accounts', async () => {
    const l = limiter();
    for (let i = 0; i < 5; i++) expect(await status(l, '1.1.1.1', `u${i}@x.io`, wrong)).toBe(401);
    expect(await status(l, '1.1.1.1', 'fresh@x.io', right)).toBe(429);
    expect(await status(l, '9.9.9.9', 'fresh@x.io', right)).toBe(200);
  });

  it('opens again when the window has passed', async () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) await status(l, '1.1.1.1', 'a@x.io', wrong);
    expect(await status(l, '1.1.1.1', 'a@x.io', right)).toBe(429);
    t += 60_000;
    expect(await status(l, '1.1.1.1', 'a@x.io', right)).toBe(200);
  });

  it('does not count refused attempts', async () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) await status(l, '1.1.1.1', 'a@x.io', wrong);
    for (let i = 0; i < 10; i++) expect(await status(l, '1.1.1.1', 'a@x.io', wrong)).toBe(429); // refused before the check, not counted on the IP
    expect(await status(l, '1.1.1.1', 'b@x.io', wrong)).toBe(401);
    expect(await status(l, '1.1.1.1', 'c@x.io', right)).toBe(200);
  });

  it('gives a burst of parallel guesses no more answers than the limit', async () => {
    const l = limiter();
    // Every guess passes the first check before any failure is counted; the password checks then
    // finish one after the other, the right one last.
    let release: () => void = () => undefined;
    const allStarted = new Promise<void>((r) => (release = r));
    let started = 0;
    const guesses = Array.from({ length: 8 }, (_, i) =>
      status(l, '1.1.1.1', 'a@x.io', async () => {
        if (++started === 8) release();
        await allStarted;
        await new Promise((r) => setImmediate(r));
        for (let k = 0; k < i; k++) await new Promise((r) => setImmediate(r));
        return i === 7 ? 'user' : null;
      }),
    );
    const statuses = await Promise.all(guesses);
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    // the right password came after the limit was reached: refused, so it cannot be told from a wrong one
    expect(statuses[7]).toBe(429);
  });
});
