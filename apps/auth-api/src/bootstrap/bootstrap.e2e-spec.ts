import { createTestApp, type TestApp } from '@platform/testing';
import { DataSource } from 'typeorm';
import { freshIp } from '../../test/helpers';
import type { AuthApiConfig } from '../config';
import { authApiService } from '../service';
import { FirstUsersService } from './first-users.service';

const ENV = {
  AUTH_ADMIN_EMAIL: 'first@example.com',
  AUTH_ADMIN_PASSWORD: 'first-password',
  LOGISTICS_ADMIN_EMAIL: 'first-ops@example.com',
  LOGISTICS_ADMIN_PASSWORD: 'first-ops-password',
};

describe('first users and the create-user command (e2e)', () => {
  let t: TestApp<AuthApiConfig>;
  let write: jest.SpyInstance;

  beforeAll(async () => {
    t = await createTestApp(authApiService, ENV);
    write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterAll(async () => {
    write?.mockRestore();
    await t?.close();
  });

  const count = async (table: string, email: string) =>
    Number(
      (await t.app.get(DataSource).query(`SELECT count(*)::int AS n FROM ${t.config.DATABASE_SCHEMA}.${table} WHERE email = $1`, [email]))[0].n,
    );
  const run = (args: string[]) => authApiService.commands!['create-user'].run(t.app, args, t.config);

  it('created both first users at start, who can log in', async () => {
    await t.http
      .post('/api/v1/auth/login')
      .set('X-Forwarded-For', freshIp())
      .type('form')
      .send({ username: ENV.AUTH_ADMIN_EMAIL, password: ENV.AUTH_ADMIN_PASSWORD })
      .expect(200);
    const res = await t.http
      .post('/api/v1/logistics/auth/login')
      .set('X-Forwarded-For', freshIp())
      .send({ email: ENV.LOGISTICS_ADMIN_EMAIL, password: ENV.LOGISTICS_ADMIN_PASSWORD })
      .expect(200);
    const me = await t.http.get('/api/v1/logistics/auth/me').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
    expect(me.body.role).toBe('admin');
  });

  it('is idempotent, also when replicas run it at once', async () => {
    const first = t.app.get(FirstUsersService);
    await Promise.all([first.ensure(), first.ensure(), first.ensure()]);
    expect(await count('users', ENV.AUTH_ADMIN_EMAIL)).toBe(1);
    expect(await count('logistics_users', ENV.LOGISTICS_ADMIN_EMAIL)).toBe(1);
  });

  it('leaves an existing user alone when the app starts again on the same database', async () => {
    const again = await createTestApp(authApiService, {
      ...ENV,
      AUTH_ADMIN_PASSWORD: 'a-different-password',
      DATABASE_URL: t.config.DATABASE_URL,
      DATABASE_SCHEMA: t.config.DATABASE_SCHEMA,
    });
    try {
      expect(await count('users', ENV.AUTH_ADMIN_EMAIL)).toBe(1);
      await again.http
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', freshIp())
        .type('form')
        .send({ username: ENV.AUTH_ADMIN_EMAIL, password: ENV.AUTH_ADMIN_PASSWORD })
        .expect(200);
    } finally {
      await again.close();
    }
  });

  it('create-user adds a logistics user with a role, and refuses a duplicate', async () => {
    await run(['--realm', 'logistics', '--email', 'Driver.Cmd@example.com', '--password', 'driver-password', '--role', 'driver', '--full-name', 'Cmd Driver']);
    expect(write).toHaveBeenCalledWith('created logistics user driver.cmd@example.com with role driver\n');
    const res = await t.http
      .post('/api/v1/logistics/auth/login')
      .set('X-Forwarded-For', freshIp())
      .send({ email: 'driver.cmd@example.com', password: 'driver-password' })
      .expect(200);
    const me = await t.http.get('/api/v1/logistics/auth/me').set('Authorization', `Bearer ${res.body.access_token}`).expect(200);
    expect(me.body).toMatchObject({ role: 'driver', full_name: 'Cmd Driver' });

    await expect(run(['--realm', 'logistics', '--email', 'driver.cmd@example.com', '--password', 'driver-password'])).rejects.toThrow(
      /already exists in the logistics realm/,
    );
  });

  it('create-user adds a fiscal user with a role, and refuses a duplicate and bad arguments', async () => {
    await run(['--realm', 'fiscal', '--email', 'clerk@example.com', '--password', 'clerk-password', '--role', 'clerk']);
    const login = await t.http
      .post('/api/v1/auth/login')
      .set('X-Forwarded-For', freshIp())
      .type('form')
      .send({ username: 'clerk@example.com', password: 'clerk-password' })
      .expect(200);
    const me = await t.http.get('/api/v1/auth/me').set('Authorization', `Bearer ${login.body.access_token}`).expect(200);
    expect(me.body).toMatchObject({ role: 'clerk', full_name: null });
    await expect(run(['--realm', 'fiscal', '--email', 'CLERK@example.com', '--password', 'clerk-password'])).rejects.toThrow(/already exists/);
    await expect(run(['--realm', 'fiscal', '--email', 'clerk2@example.com'])).rejects.toThrow(/--password/);
  });
});
