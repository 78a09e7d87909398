import { createTestApp, createTestRedisPrefix, type TestApp, type TestRedisPrefix } from '@platform/testing';
import type { EmailApiConfig } from '../src/config';
import { emailApiService } from '../src/service';

export interface EmailTestApp extends TestApp<EmailApiConfig> {
  redis: TestRedisPrefix;
}

/** email-api on a throwaway database, with Redis (under a throwaway key prefix) when the test setup found one. */
export async function startEmailApi(env: Record<string, string | undefined> = {}): Promise<EmailTestApp> {
  const redis = createTestRedisPrefix();
  const t = await createTestApp(emailApiService, {
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: redis.prefix,
    WORKER_POLL_MS: '50',
    // many accounts sign up from 127.0.0.1 in one test file; src/users/auth.e2e-spec.ts tests the limits
    AUTH_LIMIT_PER_IP: '100000',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    // the inbound SMTP receiver on a free loopback port (test files run in parallel)
    INBOUND_SMTP_PORT: '0',
    INBOUND_SMTP_HOST: '127.0.0.1',
    ...env,
  });
  const closeApp = t.close.bind(t);
  return Object.assign(t, {
    redis,
    async close() {
      await closeApp();
      await redis.cleanup();
    },
  });
}

export interface TestProject {
  id: string;
  name: string;
  publicKey: string;
  secretKey: string;
}

export interface TestAccount {
  email: string;
  password: string;
  userId: string;
  cookie: string;
}

let counter = 0;

/** The `name=value` of the session cookie from a response's Set-Cookie. */
export function sessionCookie(headers: Record<string, unknown>): string {
  const raw = headers['set-cookie'];
  const list = Array.isArray(raw) ? (raw as string[]) : [String(raw)];
  const cookie = list.find((c) => c.startsWith('email_session='));
  if (!cookie) throw new Error('no session cookie in the response');
  return cookie.split(';')[0];
}

export async function newAccount(t: TestApp<EmailApiConfig>, prefix = 'user'): Promise<TestAccount> {
  counter += 1;
  const email = `${prefix}.${counter}.${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const res = await t.http.post('/auth/signup').send({ email, password, name: `User ${counter}` }).expect(201);
  return { email, password, userId: res.body.id, cookie: sessionCookie(res.headers) };
}

/** A new account owning a new project. */
export async function newProject(t: TestApp<EmailApiConfig>, name = 'Test project'): Promise<{ account: TestAccount; project: TestProject }> {
  const account = await newAccount(t, 'owner');
  const res = await t.http.post('/users/@me/projects').set('Cookie', account.cookie).send({ name }).expect(201);
  return { account, project: { id: res.body.id, name: res.body.name, publicKey: res.body.publicKey, secretKey: res.body.secretKey } };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** The text of a quoted-printable MIME part, good enough to find tokens and links in test mails. */
export function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Waits (bounded) until `check` returns a value. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, what: string, tries = 400): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
