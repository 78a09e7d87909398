import { startFakeSmtpSink, type FakeSmtpSink } from '@platform/testing';
import { Database } from '@platform/database';
import { decodeQuotedPrintable, sessionCookie, startEmailApi, type EmailTestApp } from '../../test/helpers';

describe('accounts: signup, login, verification, password reset (e2e)', () => {
  let t: EmailTestApp;
  let smtp: FakeSmtpSink;

  beforeAll(async () => {
    smtp = await startFakeSmtpSink();
    t = await startEmailApi({ SMTP_URL: smtp.url, AUTH_LIMIT_PER_IP: '10', AUTH_LIMIT_PER_ACCOUNT: '5' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  async function tokenMailedTo(email: string, purpose: 'verify_email' | 'reset_password', nth = 1): Promise<string> {
    const all = async () => smtp.messages.filter((m) => m.to[0] === email && m.headers['x-email-purpose'] === purpose);
    for (let i = 0; i < 400 && (await all()).length < nth; i++) await new Promise((r) => setTimeout(r, 25));
    const message = (await all())[nth - 1];
    if (!message) throw new Error(`no ${purpose} mail #${nth} for ${email}`);
    return /id="token">([A-Za-z0-9_-]{43})</.exec(decodeQuotedPrintable(message.raw))![1];
  }

  it('signs up (logged in at once), verifies the email with a single-use token', async () => {
    const signup = await t.http.post('/auth/signup').send({ email: 'New.User@Example.com', password: 'long enough pw', name: 'New' }).expect(201);
    expect(signup.body).toMatchObject({ email: 'new.user@example.com', name: 'New', emailVerified: false });
    expect(String(signup.headers['set-cookie'])).toMatch(/email_session=.*HttpOnly.*SameSite=Lax/i);
    const cookie = sessionCookie(signup.headers);
    expect((await t.http.get('/users/@me').set('Cookie', cookie).expect(200)).body.emailVerified).toBe(false);
    const token = await tokenMailedTo('new.user@example.com', 'verify_email');
    await t.http.post('/auth/verify-email').send({ token }).expect(200);
    expect((await t.http.post('/auth/verify-email').send({ token }).expect(400)).body.error.code).toBe('INVALID_TOKEN');
    expect((await t.http.get('/users/@me').set('Cookie', cookie).expect(200)).body.emailVerified).toBe(true);
    expect((await t.http.post('/auth/signup').send({ email: 'new.user@example.com', password: 'another pw!' }).expect(409)).body.error.code).toBe('EMAIL_TAKEN');
  });

  it('a new verification request replaces the old token; expired tokens are refused', async () => {
    await t.http.post('/auth/signup').send({ email: 'resend@example.com', password: 'long enough pw' }).expect(201);
    const first = await tokenMailedTo('resend@example.com', 'verify_email');
    await t.http.post('/auth/request-verification').send({ email: 'resend@example.com' }).expect(202);
    await t.http.post('/auth/request-verification').send({ email: 'nobody@example.com' }).expect(202);
    const second = await tokenMailedTo('resend@example.com', 'verify_email', 2);
    expect(second).not.toBe(first);
    await t.http.post('/auth/verify-email').send({ token: first }).expect(400);
    await t.app.get(Database).affected(`UPDATE ${t.config.DATABASE_SCHEMA}.user_tokens SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
    await t.http.post('/auth/verify-email').send({ token: second }).expect(400);
  });

  it('logs in and out; wrong credentials give 401 INVALID_CREDENTIALS', async () => {
    await t.http.post('/auth/signup').send({ email: 'login@example.com', password: 'long enough pw' }).expect(201);
    expect((await t.http.post('/auth/login').send({ email: 'login@example.com', password: 'wrong password' }).expect(401)).body.error.code).toBe('INVALID_CREDENTIALS');
    expect((await t.http.post('/auth/login').send({ email: 'ghost@example.com', password: 'whatever pw' }).expect(401)).body.error.code).toBe('INVALID_CREDENTIALS');
    const login = await t.http.post('/auth/login').send({ email: 'LOGIN@example.com', password: 'long enough pw' }).expect(200);
    const cookie = sessionCookie(login.headers);
    await t.http.get('/users/@me').set('Cookie', cookie).expect(200);
    const logout = await t.http.get('/auth/logout').set('Cookie', cookie).expect(200);
    expect(String(logout.headers['set-cookie'])).toMatch(/email_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await t.http.get('/users/@me').expect(401)).body.error.code).toBe('UNAUTHORIZED');
  });

  it('resets the password with a mailed single-use token and ends existing sessions', async () => {
    const signup = await t.http.post('/auth/signup').send({ email: 'reset@example.com', password: 'old password' }).expect(201);
    const oldCookie = sessionCookie(signup.headers);
    await t.http.post('/auth/request-password-reset').send({ email: 'reset@example.com' }).expect(202);
    const token = await tokenMailedTo('reset@example.com', 'reset_password');
    await t.http.post('/auth/reset-password').send({ token, password: 'short' }).expect(422);
    await t.http.post('/auth/reset-password').send({ token, password: 'new password' }).expect(200);
    expect((await t.http.post('/auth/reset-password').send({ token, password: 'third password' }).expect(400)).body.error.code).toBe('INVALID_TOKEN');
    await t.http.get('/users/@me').set('Cookie', oldCookie).expect(401);
    await t.http.post('/auth/login').send({ email: 'reset@example.com', password: 'old password' }).expect(401);
    await t.http.post('/auth/login').send({ email: 'reset@example.com', password: 'new password' }).expect(200);
  });

  it('limits failed logins, signups and reset requests per IP and per account: 429 with Retry-After', async () => {
    // loopback is a trusted proxy: X-Forwarded-For names the client
    const from = (ip: string) => ({ 'X-Forwarded-For': ip });
    const limited = (res: { status: number; body: { error?: { code: string } }; headers: Record<string, string> }) => {
      expect([res.status, res.body.error?.code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(900);
    };
    await t.http.post('/auth/signup').set(from('10.1.0.1')).send({ email: 'limited@example.com', password: 'long enough pw' }).expect(201);
    // five failures of one IP on one account, then even the right password is refused from there
    for (let i = 0; i < 5; i++) await t.http.post('/auth/login').set(from('10.1.0.2')).send({ email: 'limited@example.com', password: 'wrong password' }).expect(401);
    limited(await t.http.post('/auth/login').set(from('10.1.0.2')).send({ email: 'limited@example.com', password: 'long enough pw' }));
    // another IP logs in, as often as it likes: successes count nowhere
    for (let i = 0; i < 6; i++) await t.http.post('/auth/login').set(from('10.1.0.3')).send({ email: 'limited@example.com', password: 'long enough pw' }).expect(200);
    // per IP: ten failures on ten accounts, the eleventh attempt is refused
    for (let i = 0; i < 10; i++) await t.http.post('/auth/login').set(from('10.1.0.4')).send({ email: `ghost${i}@example.com`, password: 'whatever pw' }).expect(401);
    limited(await t.http.post('/auth/login').set(from('10.1.0.4')).send({ email: 'ghost10@example.com', password: 'whatever pw' }));
    // reset requests: five per account whichever IP asks (an inbox cannot be flooded), same answer for unknown accounts
    for (let i = 0; i < 5; i++) await t.http.post('/auth/request-password-reset').set(from(`10.2.0.${i}`)).send({ email: 'nobody@example.com' }).expect(202);
    limited(await t.http.post('/auth/request-password-reset').set(from('10.2.0.9')).send({ email: 'nobody@example.com' }));
    // signups: per email (the first signup counted once), then per IP
    for (let i = 0; i < 4; i++) await t.http.post('/auth/signup').set(from(`10.3.0.${i}`)).send({ email: 'limited@example.com', password: 'long enough pw' }).expect(409);
    limited(await t.http.post('/auth/signup').set(from('10.3.0.9')).send({ email: 'limited@example.com', password: 'long enough pw' }));
  });

  it('lists login methods', async () => {
    expect((await t.http.get('/auth/oauth-config').expect(200)).body).toEqual({ password: true, signupsEnabled: true, providers: [] });
  });

  it('validates bodies with field errors', async () => {
    const res = await t.http.post('/auth/signup').send({ email: 'nope', password: 'x', extra: 1 }).expect(422);
    expect(res.body.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'extra', 'password']);
  });
});

describe('DISABLE_SIGNUPS (e2e)', () => {
  let t: EmailTestApp;
  beforeAll(async () => {
    t = await startEmailApi({ DISABLE_SIGNUPS: 'true' });
  });
  afterAll(() => t?.close());

  it('refuses signups and says so in /config and /auth/oauth-config', async () => {
    expect((await t.http.post('/auth/signup').send({ email: 'a@example.com', password: 'long enough pw' }).expect(403)).body.error.code).toBe('SIGNUPS_DISABLED');
    expect((await t.http.get('/config').expect(200)).body.signups).toBe(false);
    expect((await t.http.get('/auth/oauth-config').expect(200)).body.signupsEnabled).toBe(false);
  });
});
