// Login, refresh rotation with reuse detection, logout, password reset by mail, the first administrator.
import { startFakeSmtpSink, type FakeSmtpSink } from '@platform/testing';
import { ADMIN_EMAIL, ADMIN_PASSWORD, login, startApp, userWithRole, type ConversationTestApp } from '../../test/helpers';

describe('conversation-api auth', () => {
  let t: ConversationTestApp;
  let smtp: FakeSmtpSink;

  beforeAll(async () => {
    smtp = await startFakeSmtpSink();
    t = await startApp({ SMTP_URL: smtp.url, CONVERSATION_RESET_URL: 'https://app.example.com/reset' });
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('logs the first administrator in with a 15-minute JWT and a 7-day refresh token', async () => {
    const res = await t.http.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200);
    expect(res.body).toEqual({
      success: true,
      data: { access_token: expect.stringMatching(/^eyJ/), token_type: 'Bearer', expires_in: 900, refresh_token: expect.stringMatching(/^crt_/), refresh_expires_in: 604800 },
    });
    const claims = JSON.parse(Buffer.from(res.body.data.access_token.split('.')[1], 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(900);
    const me = await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${res.body.data.access_token}`).expect(200);
    expect(me.body.data).toMatchObject({ email: ADMIN_EMAIL, role: { name: 'administrator' }, permissions: ['admin'], active: true });
  });

  it('refuses wrong credentials in the error envelope', async () => {
    const res = await t.http.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL, password: 'wrong-password' }).expect(401);
    expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_CREDENTIALS', message: 'Incorrect email or password', statusCode: 401 } });
    const invalid = await t.http.post('/api/v1/auth/login').send({ email: 'not-an-email' }).expect(422);
    expect(invalid.body.error.code).toBe('VALIDATION_ERROR');
    expect([...new Set(invalid.body.error.errors.map((e: { field: string }) => e.field))].sort()).toEqual(['email', 'password']);
  });

  it('needs a token on every other route; unknown routes answer in the envelope', async () => {
    const res = await t.http.get('/api/v1/conversations').expect(401);
    expect(res.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    await t.http.get('/api/v1/conversations').set('Authorization', 'Bearer nonsense').expect(401);
    const unknown = await t.http.get('/api/v1/nothing-here').expect(404);
    expect(unknown.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND', statusCode: 404 } });
  });

  it('rotates refresh tokens; reusing a rotated one revokes the whole session', async () => {
    const first = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    const second = (await t.http.post('/api/v1/auth/refresh').send({ refresh_token: first.refresh }).expect(200)).body.data;
    expect(second.refresh_token).not.toBe(first.refresh);
    const third = (await t.http.post('/api/v1/auth/refresh').send({ refresh_token: second.refresh_token }).expect(200)).body.data;

    // The first token again: reuse → the family (second and third included) is revoked.
    const reuse = await t.http.post('/api/v1/auth/refresh').send({ refresh_token: first.refresh }).expect(401);
    expect(reuse.body.error.code).toBe('REFRESH_TOKEN_REUSED');
    const after = await t.http.post('/api/v1/auth/refresh').send({ refresh_token: third.refresh_token }).expect(401);
    expect(after.body.error.code).toBe('INVALID_REFRESH_TOKEN');
    // Access tokens of the revoked session stop working at once.
    await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${third.access_token}`).expect(401);
    await t.http.post('/api/v1/auth/refresh').send({ refresh_token: 'crt_unknown' }).expect(401);
  });

  it('lets only one of two concurrent refreshes with the same token win', async () => {
    const s = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    const results = await Promise.all([1, 2].map(() => t.http.post('/api/v1/auth/refresh').send({ refresh_token: s.refresh })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('logs out: the session’s access and refresh tokens stop working', async () => {
    const s = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    const other = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    await t.http.post('/api/v1/auth/logout').expect(401);
    const res = await t.http.post('/api/v1/auth/logout').set(s.auth).expect(200);
    expect(res.body).toEqual({ success: true, data: { revoked: true } });
    await t.http.get('/api/v1/auth/me').set(s.auth).expect(401);
    await t.http.post('/api/v1/auth/refresh').send({ refresh_token: s.refresh }).expect(401);
    // Another session of the same user is untouched.
    await t.http.get('/api/v1/auth/me').set(other.auth).expect(200);
  });

  it('resets a password by mail with a single-use token that ends every session', async () => {
    const admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    const agent = await userWithRole(t, admin, 'agent', 'reset-me@conversation.test');
    smtp.reset();
    const res = await t.http.post('/api/v1/auth/password-reset').send({ email: 'reset-me@conversation.test' }).expect(202);
    expect(res.body).toEqual({ success: true, data: { requested: true, mail: 'queued' } });
    const [mail] = await smtp.waitForMessages(1);
    expect(mail.to).toEqual(['reset-me@conversation.test']);
    const body = mail.body.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const token = /token=(crp_[A-Za-z0-9_-]{43})/.exec(body)![1];
    expect(body).toContain(`https://app.example.com/reset?token=${token}`);

    // Unknown emails get the same answer and no mail.
    await t.http.post('/api/v1/auth/password-reset').send({ email: 'nobody@conversation.test' }).expect(202, { success: true, data: { requested: true, mail: 'queued' } });

    await t.http.post('/api/v1/auth/password-reset/confirm').send({ token, password: 'short' }).expect(422);
    await t.http.post('/api/v1/auth/password-reset/confirm').send({ token, password: 'brand-new-password' }).expect(200, { success: true, data: { reset: true } });
    const again = await t.http.post('/api/v1/auth/password-reset/confirm').send({ token, password: 'another-password' }).expect(400);
    expect(again.body.error.code).toBe('INVALID_RESET_TOKEN');
    expect(smtp.messages).toHaveLength(1);

    await t.http.get('/api/v1/auth/me').set(agent.auth).expect(401);
    await t.http.post('/api/v1/auth/login').send({ email: 'reset-me@conversation.test', password: 'user-password-1' }).expect(401);
    await login(t, 'reset-me@conversation.test', 'brand-new-password');
  });

  it('refuses an expired reset token, and an older one once a newer was issued', async () => {
    smtp.reset();
    const tokenOf = async () => {
      const before = smtp.messages.length;
      await t.http.post('/api/v1/auth/password-reset').send({ email: ADMIN_EMAIL }).expect(202);
      const [mail] = (await smtp.waitForMessages(before + 1)).slice(-1);
      return /token=(crp_[A-Za-z0-9_-]{43})/.exec(mail.body.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![1];
    };
    const older = await tokenOf();
    const newer = await tokenOf();
    expect((await t.http.post('/api/v1/auth/password-reset/confirm').send({ token: older, password: 'whatever-password' }).expect(400)).body.error.code).toBe('INVALID_RESET_TOKEN');
    // Expired: its expiry moved into the past in the database.
    const { DataSource } = await import('typeorm');
    await t.app.get(DataSource).query(`UPDATE ${t.config.DATABASE_SCHEMA}.password_resets SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
    expect((await t.http.post('/api/v1/auth/password-reset/confirm').send({ token: newer, password: 'whatever-password' }).expect(400)).body.error.code).toBe('INVALID_RESET_TOKEN');
    await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
  });
});

describe('conversation-api without SMTP_URL', () => {
  let t: ConversationTestApp;

  beforeAll(async () => {
    t = await startApp();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('stores reset mails and reports them unsent', async () => {
    const res = await t.http.post('/api/v1/auth/password-reset').send({ email: ADMIN_EMAIL }).expect(202);
    expect(res.body.data).toEqual({ requested: true, mail: 'unsent' });
  });

  it('creates the first administrator once, idempotently', async () => {
    const admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    const users = await t.http.get('/api/v1/users').set(admin.auth).expect(200);
    expect(users.body).toMatchObject({ success: true, meta: { total: 1, page: 1, limit: 25 } });
    expect(users.body.data[0]).toMatchObject({ email: ADMIN_EMAIL, role: { name: 'administrator' } });
  });
});
