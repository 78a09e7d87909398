import { loadConfig } from '@platform/platform';
import { AuthApiConfig } from './config';

/** What createServiceApp passes for auth-api: its port, and REDIS_KEY_PREFIX (declared by BaseConfig) = `<name>:`. */
const DEFAULTS = { PORT: 3004, REDIS_KEY_PREFIX: 'auth-api:' };

describe('AuthApiConfig', () => {
  it('has working development defaults', () => {
    const c = loadConfig(AuthApiConfig, {}, DEFAULTS);
    expect(c).toMatchObject({ REDIS_KEY_PREFIX: 'auth-api:', AUTH_ISSUER: 'auth-api', AUTH_LOGIN_LIMIT_PER_ACCOUNT: 10, AUTH_LOGIN_LIMIT_PER_IP: 100, AUTH_LOGIN_LIMIT_WINDOW_SECONDS: 60 });
  });

  it('requires the signing key in production', () => {
    expect(() => loadConfig(AuthApiConfig, { NODE_ENV: 'production' }, DEFAULTS)).toThrow(/AUTH_JWT_PRIVATE_KEY/);
  });

  it('names every bad variable', () => {
    let message = '';
    try {
      loadConfig(AuthApiConfig, { AUTH_ADMIN_EMAIL: 'nope', LOGISTICS_ADMIN_EMAIL: 'ok@example.com', AUTH_LOGIN_LIMIT_PER_IP: '0', AUTH_JWT_PRIVATE_KEY: 'x' }, DEFAULTS);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/AUTH_ADMIN_EMAIL/);
    expect(message).toMatch(/AUTH_ADMIN_PASSWORD/);
    expect(message).toMatch(/LOGISTICS_ADMIN_PASSWORD/);
    expect(message).toMatch(/AUTH_LOGIN_LIMIT_PER_IP/);
    expect(message).toMatch(/AUTH_JWT_PRIVATE_KEY/);
  });
});
