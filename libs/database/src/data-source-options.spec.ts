import { Client } from 'pg';
import type { QueryRunner } from 'typeorm';
import { buildDataSourceOptions, DEFAULT_POOL, poolSettingsFrom } from './data-source-options';
import { shouldMigrateOnStart } from './migrations';
import { assertSchemaName, schemaOf } from './schema';

describe('buildDataSourceOptions', () => {
  const base = { url: 'postgres://u@h:5432/auth', schema: 'auth', applicationName: 'auth-api', entities: [], migrations: [] };

  it('never synchronizes, keeps the migrations table in the schema and names the connection', () => {
    const o = buildDataSourceOptions(base) as unknown as Record<string, any>;
    expect(o).toMatchObject({
      type: 'postgres',
      url: base.url,
      schema: 'auth',
      synchronize: false,
      migrationsRun: false,
      migrationsTableName: 'migrations',
      installExtensions: false,
      applicationName: 'auth-api',
    });
    expect(o.extra).toEqual({ max: 10, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000, statement_timeout: 30_000, Client: expect.any(Function) });
    expect(Object.getPrototypeOf(o.extra.Client)).toBe(Client);
  });

  it('sets no session statement_timeout and names no statement on the shared embedded session', () => {
    const o = buildDataSourceOptions({ ...base, embedded: true }) as unknown as Record<string, any>;
    expect(o.extra.statement_timeout).toBeUndefined();
    expect(o.extra.Client).toBeUndefined();
  });

  it('refuses a schema that is not a plain identifier', () => {
    expect(() => buildDataSourceOptions({ ...base, schema: 'Auth; DROP' })).toThrow(/DATABASE_SCHEMA must be a lower-case SQL identifier/);
  });
});

describe('poolSettingsFrom', () => {
  it('defaults to a pool of 10', () => {
    expect(poolSettingsFrom({})).toEqual(DEFAULT_POOL);
  });

  it('reads the DB_* variables, which win over overrides', () => {
    expect(poolSettingsFrom({ DB_POOL_MAX: '4', DB_STATEMENT_TIMEOUT_MS: 0 }, { max: 2, idleTimeoutMs: 5 })).toEqual({
      max: 4,
      connectionTimeoutMs: 10_000,
      statementTimeoutMs: 0,
      idleTimeoutMs: 5,
    });
  });

  it.each([
    ['DB_POOL_MAX', '0'],
    ['DB_POOL_MAX', 'ten'],
    ['DB_CONNECT_TIMEOUT_MS', '-1'],
    ['DB_STATEMENT_TIMEOUT_MS', '1.5'],
  ])('names the bad variable %s=%s', (variable, value) => {
    expect(() => poolSettingsFrom({ [variable]: value })).toThrow(new RegExp(`^${variable} must be an integer`));
  });
});

describe('shouldMigrateOnStart', () => {
  it.each([
    [{ NODE_ENV: 'development' }, true],
    [{ NODE_ENV: 'test', DATABASE_URL: 'postgres://x/y' }, true],
    [{ NODE_ENV: 'production' }, true], // embedded default: nobody else would migrate it
    [{ NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y' }, false], // the migration Job does it
    [{ NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y', DB_MIGRATE_ON_START: 'true' }, true],
    [{ NODE_ENV: 'development', DB_MIGRATE_ON_START: 'false' }, false],
    [{ NODE_ENV: 'development', DB_MIGRATE_ON_START: false }, false],
    [{ NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y', DB_MIGRATE_ON_START: '' }, false],
  ])('%j → %s', (env, expected) => {
    expect(shouldMigrateOnStart(env)).toBe(expected);
  });

  it('rejects a value that is not a boolean', () => {
    expect(() => shouldMigrateOnStart({ DB_MIGRATE_ON_START: 'sometimes' })).toThrow(/DB_MIGRATE_ON_START must be true or false/);
  });
});

describe('schemaOf', () => {
  const runner = (schema?: string) => ({ connection: { options: { schema } } }) as unknown as QueryRunner;

  it('returns the data source schema for qualifying tables', () => {
    expect(`${schemaOf(runner('email'))}.contacts`).toBe('email.contacts');
  });

  it('fails clearly when the data source has no schema', () => {
    expect(() => schemaOf(runner(undefined))).toThrow(/no schema option/);
  });

  it.each(['', 'Email', '1abc', 'a-b', 'a.b', 'x'.repeat(64)])('assertSchemaName rejects %j', (name) => {
    expect(() => assertSchemaName(name)).toThrow(/lower-case SQL identifier/);
  });
});
