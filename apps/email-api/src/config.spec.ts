import { loadConfig } from '@platform/platform';
import { EmailApiConfig } from './config';

/** What createServiceApp passes as defaults (the service's port and `<name>:` as the Redis key prefix). */
const defaults = { PORT: 3002, REDIS_KEY_PREFIX: 'email-api:' };

describe('EmailApiConfig', () => {
  it('defaults: 1000 requests per minute, signups open, no SMTP', () => {
    const config = loadConfig(EmailApiConfig, {}, defaults);
    expect(config).toMatchObject({ EMAIL_RATE_LIMIT_PER_MINUTE: 1000, DISABLE_SIGNUPS: false, PUBLIC_BASE_URL: 'http://localhost:3002' });
    expect(config.SMTP_URL).toBeUndefined();
  });

  it('requires JWT_SECRET and DKIM_KEY_SECRET in production and checks the other values', () => {
    expect(() => loadConfig(EmailApiConfig, { NODE_ENV: 'production' }, defaults)).toThrow(/JWT_SECRET/);
    expect(() => loadConfig(EmailApiConfig, { SMTP_URL: 'http://x', DNS_SERVERS: 'not a server', JWT_SECRET: 'short' }, defaults)).toThrow(
      /SMTP_URL[\s\S]*DNS_SERVERS|DNS_SERVERS[\s\S]*SMTP_URL/,
    );
    expect(() => loadConfig(EmailApiConfig, { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }, defaults)).toThrow(/DKIM_KEY_SECRET/);
    expect(() => loadConfig(EmailApiConfig, { DKIM_KEY_SECRET: 'short' }, defaults)).toThrow(/DKIM_KEY_SECRET: must have at least 32 characters/);
    const ok = loadConfig(EmailApiConfig, { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), DKIM_KEY_SECRET: 'y'.repeat(32), DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353', DISABLE_SIGNUPS: 'true' }, defaults);
    expect(ok).toMatchObject({ DISABLE_SIGNUPS: true, DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353' });
  });

  it('takes the three STRIPE_* variables together or none (billing off)', () => {
    const off = loadConfig(EmailApiConfig, {}, defaults);
    expect(off.STRIPE_SECRET_KEY).toBeUndefined();
    expect(off).toMatchObject({ STRIPE_API_BASE: 'https://api.stripe.com', BILLING_FREE_LIMIT: 1000 });
    expect(() => loadConfig(EmailApiConfig, { STRIPE_SECRET_KEY: 'sk_test_1' }, defaults)).toThrow(/STRIPE_WEBHOOK_SECRET[\s\S]*STRIPE_PRICE_ID/);
    expect(() => loadConfig(EmailApiConfig, { STRIPE_WEBHOOK_SECRET: 'whsec_1', STRIPE_PRICE_ID: 'price_1' }, defaults)).toThrow(/STRIPE_SECRET_KEY/);
    expect(() => loadConfig(EmailApiConfig, { STRIPE_API_BASE: 'ftp://stripe' }, defaults)).toThrow(/STRIPE_API_BASE/);
    const on = loadConfig(EmailApiConfig, { STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1', STRIPE_PRICE_ID: 'price_1', BILLING_FREE_LIMIT: '50' }, defaults);
    expect(on).toMatchObject({ STRIPE_SECRET_KEY: 'sk_test_1', BILLING_FREE_LIMIT: 50 });
  });
});
