import { IsBoolean, IsInt, IsString, Min, MinLength } from 'class-validator';
import { BaseConfig } from './base.config';
import { ConfigValidationError, loadConfig } from './load-config';
import { RequiredInProduction } from './required-in-production';

class AppConfig extends BaseConfig {
  @IsString()
  @MinLength(16)
  @RequiredInProduction()
  JWT_SECRET?: string;

  @IsString()
  @RequiredInProduction()
  ADMIN_PASSWORD?: string = 'dev-password';

  @IsInt()
  @Min(1)
  WORKERS = 4;

  @IsBoolean()
  DISABLE_SIGNUPS = false;
}

/** What createServiceApp passes: the definition's port and `<name>:` as the Redis key prefix. */
const DEFAULTS = { PORT: 3004, REDIS_KEY_PREFIX: 'app:' };

function problemsOf(fn: () => unknown): ConfigValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigValidationError) return err;
    throw err;
  }
  throw new Error('expected a ConfigValidationError');
}

describe('loadConfig', () => {
  it('applies class defaults, definition defaults and converts types', () => {
    const config = loadConfig(AppConfig, { WORKERS: '8', DISABLE_SIGNUPS: 'true', EXTRA: 'ignored' }, DEFAULTS);
    expect(config).toBeInstanceOf(AppConfig);
    expect(config.NODE_ENV).toBe('development');
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.DATA_DIR).toBe('./.data');
    expect(config.PORT).toBe(3004);
    expect(config.WORKERS).toBe(8);
    expect(config.DISABLE_SIGNUPS).toBe(true);
    expect(config.JWT_SECRET).toBeUndefined();
    expect((config as unknown as Record<string, unknown>).EXTRA).toBeUndefined();
  });

  it('prefers the environment over definition defaults and treats empty strings as unset', () => {
    const config = loadConfig(AppConfig, { PORT: '4000', LOG_LEVEL: '', DISABLE_SIGNUPS: 'no' }, DEFAULTS);
    expect(config.PORT).toBe(4000);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.DISABLE_SIGNUPS).toBe(false);
  });

  it('names every bad variable in one error', () => {
    const error = problemsOf(() =>
      loadConfig(AppConfig, {
        PORT: 'eighty',
        NODE_ENV: 'staging',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://x',
        AMQP_URL: 'http://broker',
        WORKERS: '0',
        DISABLE_SIGNUPS: 'maybe',
        JWT_SECRET: 'short',
        REDIS_KEY_PREFIX: 'a prefix with spaces',
      }),
    );
    expect(error.problems.map((p) => p.variable).sort()).toEqual(
      ['AMQP_URL', 'DATABASE_URL', 'DISABLE_SIGNUPS', 'JWT_SECRET', 'LOG_LEVEL', 'NODE_ENV', 'PORT', 'REDIS_KEY_PREFIX', 'WORKERS'].sort(),
    );
    for (const name of ['PORT', 'NODE_ENV', 'LOG_LEVEL', 'DATABASE_URL', 'AMQP_URL', 'WORKERS', 'DISABLE_SIGNUPS', 'JWT_SECRET', 'REDIS_KEY_PREFIX']) {
      expect(error.message).toContain(`${name}:`);
    }
    expect(error.message).toContain('"eighty"');
    // Secret-looking values are never repeated.
    expect(error.message).not.toContain('short');
    expect(error.message).not.toContain('mysql://x');
  });

  it('reports a missing PORT and REDIS_KEY_PREFIX without a default', () => {
    const error = problemsOf(() => loadConfig(BaseConfig, {}));
    expect(error.problems.map((p) => p.variable).sort()).toEqual(['PORT', 'REDIS_KEY_PREFIX']);
    expect(loadConfig(BaseConfig, { REDIS_KEY_PREFIX: 'mine:' }, DEFAULTS).REDIS_KEY_PREFIX).toBe('mine:');
  });

  it('requires secrets in production even when the class has a development default', () => {
    const error = problemsOf(() => loadConfig(AppConfig, { NODE_ENV: 'production' }, DEFAULTS));
    expect(error.problems.map((p) => p.variable).sort()).toEqual(['ADMIN_PASSWORD', 'JWT_SECRET']);
    expect(error.message).toMatch(/JWT_SECRET: is required when NODE_ENV=production/);
  });

  it('still validates a production secret that is set', () => {
    const error = problemsOf(() =>
      loadConfig(AppConfig, { NODE_ENV: 'production', JWT_SECRET: 'too-short', ADMIN_PASSWORD: 'x' }, DEFAULTS),
    );
    expect(error.problems).toEqual([{ variable: 'JWT_SECRET', message: expect.stringContaining('longer than or equal to 16') }]);
  });

  it('accepts production with every secret set', () => {
    const config = loadConfig(
      AppConfig,
      { NODE_ENV: 'production', JWT_SECRET: 'a-long-enough-secret-value', ADMIN_PASSWORD: 'pw' },
      DEFAULTS,
    );
    expect(config.JWT_SECRET).toBe('a-long-enough-secret-value');
  });

  it('reads the event settings every service shares, with their defaults, and refuses bad ones by name', () => {
    expect(loadConfig(BaseConfig, { EVENTS_PREFETCH: '3', EVENTS_MAX_RETRIES: '0' }, DEFAULTS)).toMatchObject({
      EVENTS_EXCHANGE: 'platform.events',
      EVENTS_DLX: 'platform.dlx',
      EVENTS_PREFETCH: 3,
      EVENTS_MAX_RETRIES: 0,
      EVENTS_RECONNECT_DELAY_MS: 250,
      EVENTS_MAX_RECONNECT_DELAY_MS: 30_000,
      EVENTS_OUTBOX_POLL_MS: 1000,
    });
    const error = problemsOf(() =>
      loadConfig(BaseConfig, { EVENTS_EXCHANGE: 'has space', EVENTS_PREFETCH: '0', EVENTS_MAX_RETRIES: 'many', EVENTS_QUEUE_PREFIX: 'a/b' }, DEFAULTS),
    );
    expect(error.problems.map((p) => p.variable).sort()).toEqual(['EVENTS_EXCHANGE', 'EVENTS_MAX_RETRIES', 'EVENTS_PREFETCH', 'EVENTS_QUEUE_PREFIX']);
  });
});
